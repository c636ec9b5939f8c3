"""`bandstand render`: every output path is checked before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.midi import write_midi
from bandstand.score import Note, Song, Track


@pytest.fixture
def song_file(tmp_path: Path) -> Path:
    keys = Track("Keys", "chords")
    keys.notes += [Note(0.0, 4.0, pitch, 80) for pitch in (60, 64, 67)]
    return write_midi(Song(title="Tiny", tracks=[keys]), tmp_path / "tiny.mid")


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = captured.err.strip()
    assert "\n" not in line and line.startswith("bandstand: error: ") and "internal error" not in line
    for word in words:
        assert word in line


def test_a_folder_as_png_or_wav_is_a_user_error(song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _one_line_error(capsys, ["render", str(song_file), "--png", str(tmp_path), "--no-audio"], "--png", "is a folder")
    _one_line_error(capsys, ["render", str(song_file), "--wav", str(tmp_path)], "--wav", "is a folder")
    _one_line_error(capsys, ["render", str(song_file), "--png", "", "--no-audio"], "--png", "is a folder")


def test_a_bad_wav_path_writes_no_png_first(song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "taken.txt"
    blocker.write_text("x")
    _one_line_error(capsys, ["render", str(song_file), "--wav", str(blocker / "out.wav")], "is a file, not a folder")
    assert not song_file.with_suffix(".png").exists()


def test_a_png_under_a_file_is_a_user_error(song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "taken.txt"
    blocker.write_text("x")
    _one_line_error(capsys, ["render", str(song_file), "--png", str(blocker / "roll.png"), "--no-audio"], "taken.txt is a file")


def test_a_missing_input_is_reported_before_the_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _one_line_error(capsys, ["render", str(tmp_path / "missing.mid"), "--png", str(tmp_path)], "missing.mid", "no such file")


def test_new_folders_for_the_outputs_are_made(song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "new" / "dir" / "roll.png"
    assert run(["render", str(song_file), "--png", str(png), "--no-audio"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_soundfont_is_reported_before_anything_is_written(
    song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANDSTAND_SOUNDFONT", str(tmp_path / "none.sf2"))
    _one_line_error(capsys, ["render", str(song_file)], "BANDSTAND_SOUNDFONT")
    assert not song_file.with_suffix(".png").exists()  # it used to draw the piano roll first
    assert run(["render", str(song_file), "--no-audio"]) == 0  # no audio asked: no SoundFont needed


def test_no_png_writes_the_wav_alone_and_both_nos_are_refused(
    song_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wav = tmp_path / "only.wav"
    assert run(["render", str(song_file), "--no-png", "--wav", str(wav)]) == 0
    out = capsys.readouterr().out
    assert wav.read_bytes()[:4] == b"RIFF" and "audio" in out and "piano roll" not in out
    assert not song_file.with_suffix(".png").exists()
    _one_line_error(capsys, ["render", str(song_file), "--no-png", "--no-audio"], "--no-audio and --no-png",
                    "nothing to render")
    assert not song_file.with_suffix(".wav").exists()
