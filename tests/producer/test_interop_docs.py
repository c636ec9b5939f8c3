"""docs/interop.md runs: its export and from-midi lines on a composed song, its import lines on
a file written with mido (then the edit it suggests), its curl line against a real
`bandstand serve`, and its live-out lines into a local OSC peer (the MIDI line it shows, on a
machine without a MIDI subsystem), and its transport lines (the song's saved transport)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ..peers.osc_peer import OscPeer
from ..server.jam_process import bandstand_server, jam_server
from .midi_songs import four_part_song

DOC = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
EXAMPLE_SESSION = "output/session-20260209-a1b2c3"


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == kind]


def commands(block: str) -> list[str]:
    """The block's lines, each one command (backslash continuations joined)."""
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def bash(line: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    line = re.sub(r"^bandstand ", f"{sys.executable} -m bandstand ", line)
    done = subprocess.run(["bash", "-c", f"set -euo pipefail\n{line}"], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})
    assert done.returncode == 0, (line, done.stderr)
    return done.stdout


def test_every_example_runs(composed_copy: Callable[..., Path], tmp_path: Path) -> None:
    export, clip, importing, upload, _live, _transport, _studio = blocks("bash")
    shutil.copytree(composed_copy("funk groove", 3, 8), tmp_path / EXAMPLE_SESSION)
    four_part_song(tmp_path / "song.mid")

    for line in commands(export):
        bash(line, tmp_path)
    assert (tmp_path / EXAMPLE_SESSION / "export" / "full-arrangement.strudel.js").is_file()
    assert (tmp_path / "code" / "full-arrangement.strudel.js").is_file()

    printed, as_json = (bash(line, tmp_path) for line in commands(clip))
    assert printed.splitlines()[1].startswith('note("') and json.loads(as_json)["bars"] == 16

    first, second, edit = commands(importing)
    bash(first, tmp_path)
    [made] = [p for p in (tmp_path / "output").iterdir() if p.name != Path(EXAMPLE_SESSION).name]
    assert json.loads(bash(second, tmp_path))["tempo"] == 100
    assert "bass" in bash(edit.replace("output/SESSION", f"output/{made.name}"), tmp_path)

    with bandstand_server("serve", "--out", str(tmp_path / "served")) as served:
        env = {"URL": served.base.rstrip("/"), "TOKEN": served.token}
        [line] = commands(upload)
        answer = json.loads(bash(line, tmp_path, env))
    assert answer["import"]["parts"][1] == {"name": "Electric Bass (finger)", "role": "bass"}
    assert (tmp_path / "served" / answer["projectId"] / "revisions").is_dir()


def test_the_live_out_examples_play_into_superdirt(composed_copy: Callable[..., Path], tmp_path: Path) -> None:
    import httpx
    import pytest

    pytest.importorskip("pythonosc")
    play, jam = commands(blocks("bash")[4])
    shutil.copytree(composed_copy("funk groove", 3, 8), tmp_path / EXAMPLE_SESSION)
    with OscPeer() as peer:
        said = bash(play.replace("127.0.0.1:57120", peer.address), tmp_path)
        assert "sent 452 notes" in said and len(peer.wait_for(452, timeout=30)) == 452
    words = jam.replace("127.0.0.1:57120", "{osc}").split()
    assert words[:2] == ["bandstand", "jam"]
    with OscPeer() as peer, jam_server(*(w.format(osc=peer.address) for w in words[2:]), cwd=tmp_path) as served:
        assert httpx.post(served.base + "api/v1/jam/start", json={}, headers=served.headers, timeout=60).is_success
        assert peer.wait_for(1, timeout=60)[0].address == "/dirt/play"
    if not os.path.exists("/dev/snd/seq"):
        [shown] = blocks("text")[-1:]
        done = subprocess.run([sys.executable, "-m", "bandstand", "jam", "--midi-out", "bandstand"],
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2 and done.stderr.strip() == shown.strip()


def test_the_transport_examples_drive_the_songs_transport(composed_copy: Callable[..., Path], tmp_path: Path) -> None:
    from bandstand.producer.live.transport import transport_state

    shutil.copytree(composed_copy("funk groove", 3, 8), tmp_path / EXAMPLE_SESSION)
    said = [bash(line, tmp_path) for line in commands(blocks("bash")[5])]
    assert said[0].startswith("stopped at bar 1, looping the")
    assert said[1].startswith("playing at bar 1") and said[2].startswith("playing at bar 5")
    last = json.loads(said[3])
    assert last["playing"] is False and last["bar"] == 5 and last["seq"] == 4
    assert transport_state(tmp_path / EXAMPLE_SESSION).model_dump() == last


def test_a_studio_with_live_out_plays_what_the_transport_says(composed_copy: Callable[..., Path],
                                                              tmp_path: Path) -> None:
    import httpx
    import pytest

    pytest.importorskip("pythonosc")
    shutil.copytree(composed_copy("funk groove", 3, 8), tmp_path / EXAMPLE_SESSION)
    [line] = commands(blocks("bash")[6])
    words = line.split()
    assert words[:2] == ["bandstand", "studio"]
    with OscPeer() as peer, bandstand_server(
            "studio", *(peer.address if w == "127.0.0.1:57120" else w for w in words[2:]), cwd=tmp_path) as served:
        project, origin = Path(EXAMPLE_SESSION).name, served.base.removesuffix("studio")  # it printed …/studio
        answer = httpx.post(f"{origin}api/v1/projects/{project}/transport", json={"action": "play"},
                            headers=served.headers, timeout=60)
        assert answer.status_code == 200, answer.text
        assert peer.wait_for(1, timeout=60)[0].address == "/dirt/play"
