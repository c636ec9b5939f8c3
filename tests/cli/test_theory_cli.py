"""`bandstand theory …`: chord, scale, roman and key, in text and JSON, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mido
import pytest

from bandstand.cli import run


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> object:
    assert run(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_chord_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["theory", "chord", "Cm7b5/Gb", "F#13#11", "Bb6/9", "--json"])
    assert isinstance(out, list)
    first, second, third = out
    assert first["symbol"] == "Cm7b5/Gb"
    assert (first["root"], first["bass"], first["pitch_classes"]) == (0, 6, [0, 3, 6, 10])
    assert first["notes"] == ["C", "Eb", "Gb", "Bb"]
    assert first["quality"] == "m7b5"
    assert second["pitch_classes"] == [0, 1, 3, 4, 6, 8, 10]
    assert second["root"] == second["bass"] == 6
    assert third["pitch_classes"] == [0, 2, 5, 7, 10]
    for item in out:
        assert item["pitch_classes"] == sorted(set(item["pitch_classes"]))


def test_chord_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["theory", "chord", "Am7/G"]) == 0
    line = capsys.readouterr().out.strip()
    assert line == "Am7/G  root A  quality m7  notes A C E G  bass G"


def test_scale_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["theory", "scale", "Eb dorian"]) == 0
    assert capsys.readouterr().out.strip() == "Eb dorian  notes Eb F Gb Ab Bb C Db  pitch classes 3 5 6 8 10 0 1"
    out = _json(capsys, ["theory", "scale", "Eb dorian", "A minor pentatonic", "--json"])
    assert isinstance(out, list)
    assert out[0]["notes"] == ["Eb", "F", "Gb", "Ab", "Bb", "C", "Db"]
    assert out[0]["pitch_classes"] == [3, 5, 6, 8, 10, 0, 1]
    assert out[1]["notes"] == ["A", "C", "D", "E", "G"]


def test_roman_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["theory", "roman", "ii7", "V7/ii", "V65", "N6", "--key", "C major", "--json"])
    assert isinstance(out, list)
    assert [(o["figure"], o["root"], o["bass"], o["pitch_classes"]) for o in out] == [
        ("ii7", 2, 2, [0, 2, 5, 9]),
        ("V7/ii", 9, 9, [1, 4, 7, 9]),
        ("V65", 7, 11, [2, 5, 7, 11]),
        ("N6", 1, 5, [1, 5, 8]),
    ]


def test_roman_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["theory", "roman", "V7", "--key", "F# minor"]) == 0
    assert capsys.readouterr().out.strip() == (
        "V7 in F# minor: C#7  root C#  quality 7  notes C# E# G# B  bass C#"
    )


def _write_midi(path: Path, chords: list[list[int]], drums: bool = True) -> Path:
    mid = mido.MidiFile(type=1, ticks_per_beat=480)
    conductor = mido.MidiTrack()
    conductor.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))
    mid.tracks.append(conductor)
    track = mido.MidiTrack()
    track.append(mido.MetaMessage("track_name", name="piano", time=0))
    for chord in chords:
        for p in chord:
            track.append(mido.Message("note_on", note=p, velocity=80, channel=0, time=0))
        for i, p in enumerate(chord):
            track.append(mido.Message("note_off", note=p, velocity=0, channel=0, time=960 if i == 0 else 0))
    mid.tracks.append(track)
    if drums:
        kit = mido.MidiTrack()
        for _ in range(16):
            kit.append(mido.Message("note_on", note=37, velocity=90, channel=9, time=0))
            kit.append(mido.Message("note_off", note=37, velocity=0, channel=9, time=240))
        mid.tracks.append(kit)
    mid.save(str(path))
    return path


A_MINOR = [[57, 60, 64], [50, 53, 57], [52, 56, 59, 62], [57, 60, 64], [53, 57, 60], [52, 56, 59], [45, 57, 60, 64]]


def test_key_of_a_midi_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write_midi(tmp_path / "song.mid", A_MINOR)
    out = _json(capsys, ["theory", "key", str(path), "--json"])
    assert isinstance(out, dict)
    assert out["key"] == "A minor"
    assert 0.5 < out["confidence"] <= 1.0
    assert out["notes"] == sum(len(c) for c in A_MINOR)  # the drum track is ignored
    assert out["ranking"][0]["key"] == "A minor"
    assert run(["theory", "key", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: A minor  confidence ")


@pytest.mark.parametrize(
    ("argv", "text", "position"),
    [
        (["theory", "chord", "C", "Cxyz7"], "Cxyz7", 1),
        (["theory", "chord", "H7"], "H7", 0),
        (["theory", "scale", "Eb dorain"], "Eb dorain", 3),
        (["theory", "roman", "V8", "--key", "C major"], "V8", 1),
        (["theory", "roman", "V", "--key", "H major"], "H major", 0),
    ],
)
def test_bad_input_is_one_error_line_with_a_caret(
    argv: list[str], text: str, position: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0].startswith("bandstand: error: ")
    assert repr(text) in lines[0]
    assert lines[1:] == [text, " " * position + "^"]


def test_bad_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["theory", "key", str(tmp_path / "missing.mid")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    junk = tmp_path / "junk.mid"
    junk.write_bytes(b"not a midi file")
    assert run(["theory", "key", str(junk)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    drums = _write_midi(tmp_path / "drums.mid", [], drums=True)
    assert run(["theory", "key", str(drums)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no pitched notes" in err[0]


def test_missing_key_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["theory", "roman", "V"]) == 2
    assert "--key" in capsys.readouterr().err


def test_the_real_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bandstand", "theory", "chord", "G7/B", "--json"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["bass"] == 11
    bad = subprocess.run([sys.executable, "-m", "bandstand", "theory", "chord", "Q"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
