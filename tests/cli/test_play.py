"""`bandstand play` as a person types it (real processes): the WAV that shows HEAD goes to the
system's player (here a stand-in player on PATH that keeps what it was given), rendered
first when stale; a section is cut out with its ring-out; no player, a player that fails, an
unknown section and a wrong $BANDSTAND_PLAYER each get one line."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from bandstand.producer.sessions.listen import RING_SECONDS
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance

from ..studio.songs import small_song

PLAYER = """#!/bin/sh
# a stand-in audio player: keeps its arguments and a copy of the file it was asked to play
printf '%s\\n' "$@" > "{kept}/args"
for last; do :; done
/bin/cp "$last" "{kept}/played.wav"
{tail}
"""


def make_player(folder: Path, name: str = "aplay", tail: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(PLAYER.format(kept=folder, tail=tail))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return folder


def play(*args: str, path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PATH": str(path)}
    environ.pop("BANDSTAND_PLAYER", None)
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "bandstand", "play", *args], capture_output=True, text=True,
                          timeout=300, env=environ, check=False)


def frames(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").reshape(-1, w.getnchannels()), w.getframerate()


@pytest.fixture
def session(tmp_path: Path) -> ProjectSession:
    return create_from_song(tmp_path / "session", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                            ids=SeededIds(3))


def test_the_whole_song_is_rendered_once_and_played(session: ProjectSession, tmp_path: Path) -> None:
    bin_ = make_player(tmp_path / "bin")
    first = play(str(session.session_dir), path=bin_)
    assert first.returncode == 0, first.stderr
    assert "rendering revision 1" in first.stderr and "playing the whole song (revision 1)" in first.stdout
    wav = session.session_dir / "audio" / "full-arrangement.wav"
    assert (bin_ / "args").read_text().splitlines() == ["-q", str(wav)]
    assert (bin_ / "played.wav").read_bytes() == wav.read_bytes()
    again = play(str(session.session_dir), path=bin_)
    assert again.returncode == 0 and "rendering" not in again.stderr  # HEAD's WAV is there: not rendered again


def test_a_section_is_cut_from_its_first_bar_with_a_ring_out(session: ProjectSession, tmp_path: Path) -> None:
    bin_ = make_player(tmp_path / "bin")
    done = play(str(session.session_dir), "--section", "the chorus", path=bin_)
    assert done.returncode == 0, done.stderr
    assert "playing the Chorus (bars 13–16, revision 1)" in done.stdout
    whole, rate = frames(session.session_dir / "audio" / "full-arrangement.wav")
    cut, cut_rate = frames(bin_ / "played.wav")
    start = round(12 * 4 * 60 / 100 * rate)  # bar 13 at 100 BPM in 4/4
    expected = min(len(whole), round((16 * 4 * 60 / 100 + RING_SECONDS) * rate)) - start
    assert cut_rate == rate and abs(len(cut) - expected) <= 1
    middle = slice(len(cut) // 4, len(cut) // 2)  # past the fade-in, before the fade-out: the song's own samples
    assert np.array_equal(cut[middle], whole[start:][middle]) and np.abs(cut[middle]).max() > 100


def test_an_unknown_section_names_the_songs_sections(session: ProjectSession, tmp_path: Path) -> None:
    done = play(str(session.session_dir), "--section", "bridge", path=make_player(tmp_path / "bin"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("bandstand: error: this song has no section 'bridge'; "
                                   "its sections are: Intro, Verse, Chorus")


def test_no_player_says_where_the_wav_is(session: ProjectSession, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = play(str(session.session_dir), path=empty)
    assert done.returncode == 1
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("bandstand: error: no audio player found here")
    assert str(session.session_dir / "audio" / "full-arrangement.wav") in line and "bandstand studio" in line
    assert (session.session_dir / "audio" / "full-arrangement.wav").is_file()  # rendered all the same


def test_a_player_without_an_audio_device_is_one_line(session: ProjectSession, tmp_path: Path) -> None:
    bin_ = make_player(tmp_path / "bin", tail="echo 'aplay: main:831: audio open error: No such file' >&2; exit 1")
    done = play(str(session.session_dir), path=bin_)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(
        "bandstand: error: aplay could not play it (exit 1: aplay: main:831: audio open error")


def test_a_wrong_player_setting_is_said_before_any_work(session: ProjectSession, tmp_path: Path) -> None:
    done = play(str(session.session_dir), path=make_player(tmp_path / "bin"),
                env={"BANDSTAND_PLAYER": "no-such-player --loud"})
    assert done.returncode == 2 and "BANDSTAND_PLAYER names 'no-such-player'" in done.stderr
    assert not (session.session_dir / "audio" / "full-arrangement.wav").exists()
