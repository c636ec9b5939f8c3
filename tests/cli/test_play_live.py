"""`bandstand play SESSION --osc HOST:PORT` as a person types it (a real process) into a local
OSC peer standing in for SuperDirt: every note of the section arrives as a `/dirt/play`
bundle, stamped with when it sounds and sent ahead of that, the stamps spaced as the tempo
says, with SuperDirt's names and values; `--midi-out` on a machine without a MIDI subsystem,
a malformed address and a missing section are each one line, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance

from ..peers.osc_peer import OscPeer
from ..studio.songs import small_song

pytest.importorskip("pythonosc")

TEMPO = 300.0  # the chorus's 4 bars in 3.2 s
BEAT = 60.0 / TEMPO


@pytest.fixture
def session(tmp_path: Path) -> ProjectSession:
    song = small_song()
    song.tempo = TEMPO
    return create_from_song(tmp_path / "session", song, Provenance(prompt="small", seeds={"song": 1}),
                            ids=SeededIds(3))


def play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", "play", *args], capture_output=True, text=True,
                          timeout=300, env=os.environ.copy(), check=False)


def test_a_section_goes_to_superdirt_as_timestamped_bundles_ahead_of_time(session: ProjectSession) -> None:
    with OscPeer() as peer:
        done = play(str(session.session_dir), "--section", "chorus", "--osc", peer.address, "--latency", "1.5")
        got = peer.wait_for(52, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "playing the Chorus (bars 13–16" in done.stdout and "sent 52 notes" in done.stdout
    # the chorus: 4 bars of 8 drum hits, 2 bass notes a bar in bars 13-16, a 3-note chord a bar
    assert len(got) == 52 and not peer.malformed
    assert {b.address for b in got} == {"/dirt/play"}
    stamps = [b.timestamp for b in got]
    assert stamps == sorted(stamps)  # sent in the order they sound
    assert all(b.arrived < b.timestamp for b in got)  # every bundle ahead of its time (1.5 s latency)
    first = stamps[0]
    hats = [b.timestamp - first for b in got if b.args["s"] == "hh"]
    assert hats == pytest.approx([BEAT * (0.5 + i) for i in range(16)], abs=1e-3)  # an off-beat hat a beat
    kicks = [b for b in got if b.args["s"] == "bd"]
    assert [k.timestamp - first for k in kicks] == pytest.approx([BEAT * 2 * i for i in range(8)], abs=1e-3)
    assert {b.args["s"] for b in got} == {"bd", "sd", "hh", "gm_electric_bass_finger", "gm_piano"}
    bass = [b.args for b in got if b.args["s"] == "gm_electric_bass_finger"]
    assert [a["note"] for a in bass[:4]] == [40 - 60, 40 - 60, 43 - 60, 43 - 60]  # SuperDirt: MIDI 60 is note 0
    assert all(a["delta"] == pytest.approx(0.9 * BEAT, abs=1e-3) and a["legato"] == 1.0 for a in bass)
    assert all("note" not in b.args for b in kicks)  # a drum is a sample, not a pitch
    cps = {round(b.args["cps"], 6) for b in got}
    assert cps == {round(TEMPO / 60 / 4, 6)}  # a cycle is a bar
    assert got[0].args["cycle"] == pytest.approx(12.0)  # the chorus starts at bar 13
    assert len({b.args["orbit"] for b in got}) == 3  # an orbit a part


def test_play_live_mistakes_are_one_line(session: ProjectSession) -> None:
    cases = [
        (["--osc", "localhost:notaport"], "--osc 'localhost:notaport' is not HOST:PORT"),
        (["--osc", "127.0.0.1:57120", "--section", "outro"], "this song has no section 'outro'"),
        (["--osc", "127.0.0.1:57120", "--latency", "60"], "--latency 60.0 is out of range"),
    ]
    for args, said in cases:
        done = play(str(session.session_dir), *args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], (args, done.stderr)


@pytest.mark.skipif(os.path.exists("/dev/snd/seq"), reason="this machine has a MIDI subsystem")
def test_midi_out_without_a_midi_subsystem_is_one_line(session: ProjectSession) -> None:
    for command in (["play", str(session.session_dir)], ["jam", "--no-browser", "--port", "0"]):
        done = subprocess.run([sys.executable, "-m", "bandstand", *command, "--midi-out", "bandstand"],
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "no MIDI subsystem" in lines[0] and "--osc" in lines[0], done.stderr
