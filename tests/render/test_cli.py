"""`bandstand render` through the CLI root, as a user runs it."""

from __future__ import annotations

from pathlib import Path

import mido
import pytest
from PIL import Image

from bandstand.cli import run
from bandstand.midi import write_midi
from tests.midi.songs import demo_song


def test_writes_wav_and_png_beside_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    midi = write_midi(demo_song(2, tempo=120.0), tmp_path / "song.mid")
    assert [t.name for t in mido.MidiFile(midi).tracks] == ["Demo", "Drums", "Bass", "Keys", "Lead", "Pad"]
    assert run(["render", str(midi)]) == 0
    out = capsys.readouterr().out
    assert "Demo | 120 BPM · C minor" in out
    assert (tmp_path / "song.wav").stat().st_size > 44100 * 4 * 4
    with Image.open(tmp_path / "song.png") as image:
        assert image.size == (1600, 900)


def test_explicit_outputs_and_png_only(tmp_path: Path) -> None:
    midi = write_midi(demo_song(2), tmp_path / "song.mid")
    assert run(["render", str(midi), "--png", str(tmp_path / "out" / "r.png"), "--width", "640",
                "--height", "360", "--no-audio"]) == 0
    with Image.open(tmp_path / "out" / "r.png") as image:
        assert image.size == (640, 360)
    assert not (tmp_path / "song.wav").exists()
    assert run(["render", str(midi), "--wav", str(tmp_path / "a.wav"), "--png", str(tmp_path / "a.png")]) == 0
    assert (tmp_path / "a.wav").exists() and (tmp_path / "a.png").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), (b"not midi at all", "not a readable MIDI file"),
     (b"MThd\x00\x00\x00\x06\x00\x01\x00\x02\x01\xe0MTrk\x00\x00\x00\x09\x00\xff\x03", "not a readable MIDI file")],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          content: bytes | None, message: str) -> None:
    path = tmp_path / "in.mid"
    if content is not None:
        path.write_bytes(content)
    assert run(["render", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bandstand: error: ") and message in err[0]
    assert not (tmp_path / "in.png").exists()
