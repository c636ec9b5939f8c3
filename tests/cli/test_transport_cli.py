"""`bandstand transport` as a person types it (real processes): each action changes the song's
saved transport and says where it stands; a mistake is one line, exit 2, and changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bandstand.producer.live.transport import transport_state
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance

from ..studio.songs import small_song


def transport(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", "transport", *args], capture_output=True, text=True,
                          timeout=120, env=os.environ.copy(), check=False)


def test_actions_and_mistakes(tmp_path: Path) -> None:
    folder = str(create_from_song(tmp_path / "s", small_song(), Provenance(prompt="s", seeds={"song": 1}),
                                  ids=SeededIds(3)).session_dir)
    said = [transport(folder, *args) for args in (["play", "--bar", "5"], ["loop", "-s", "the chorus"],
                                                   ["stop"], [])]
    assert [d.returncode for d in said] == [0, 0, 0, 0], [d.stderr for d in said]
    assert [d.stdout.strip() for d in said] == [
        "playing at bar 5",
        "playing at bar 13, looping the Chorus (bars 13–16)",  # the playhead moves into the loop
        "stopped at bar 13, looping the Chorus (bars 13–16)",
        "stopped at bar 13, looping the Chorus (bars 13–16)",
    ]
    assert json.loads(transport(folder, "--json").stdout)["seq"] == 3
    for args, line in [(["play", "--bar", "17"], "bar 17 is past the song's end: it has 16 bars"),
                       (["loop", "--section", "coda"], "this song has no section 'coda'; its sections are: "
                                                       "Intro, Verse, Chorus"),
                       (["set_playhead"], "set_playhead needs a bar"),
                       (["rewind"], "no transport action 'rewind'"),
                       (["play", "--bar", "0"], "--bar 0 is out of range"),
                       (["loop", "--bar", "3"], "loop takes a section")]:
        done = transport(folder, *args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and line in lines[0], (args, done.stderr)
    assert transport_state(folder).seq == 3
    missing = transport(str(tmp_path / "nowhere"), "play")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
