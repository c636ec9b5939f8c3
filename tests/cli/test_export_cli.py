"""`bandstand export`: every format from a composed session, one-line errors with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import mido
import pytest

from bandstand.cli import run
from bandstand.compose import compose


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    return compose("deep house", seed=4, bars=4, out_dir=str(out), render_audio=False,
                   render_pianoroll=False).session_dir


@pytest.mark.parametrize(("fmt", "expected"), [("musicxml", ["lead-sheet.musicxml"]), ("png", ["pianoroll.png"]),
                                               ("wav", ["full-arrangement.wav"])])
def test_each_format_writes_its_files(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      fmt: str, expected: list[str]) -> None:
    assert run(["export", str(session), "--format", fmt, "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [Path(f).name for f in report["files"]] == expected and report["format"] == fmt
    assert all(Path(f).stat().st_size > 0 for f in report["files"])


def test_mid_and_stems(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["export", str(session), "--format", "mid", "--out", str(tmp_path / "m")]) == 0
    names = {Path(line).name for line in capsys.readouterr().out.split()}
    assert "full-arrangement.mid" in names and "bass.mid" in names
    assert len(mido.MidiFile(str(tmp_path / "m" / "full-arrangement.mid")).tracks) >= 3
    assert run(["export", str(session), "--format", "stems"]) == 0
    stems = [Path(line) for line in capsys.readouterr().out.split()]
    assert {p.parent for p in stems} == {session / "export" / "stems"} and len(stems) >= 2
    assert run(["export", str(session), "--format", "stems", "--out", str(tmp_path / "s")]) == 0
    asked = [Path(line) for line in capsys.readouterr().out.split()]
    assert {p.parent for p in asked} == {tmp_path / "s"}  # --out X: the stems in X, not X/stems
    assert sorted(p.name for p in asked) == sorted(p.name for p in stems)


def test_errors_are_one_line_and_exit_2(tmp_path: Path, session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["export", str(tmp_path / "nope"), "--format", "mid"]) == 2
    assert run(["export", str(session), "--format", "flac"]) == 2
    assert run(["export", str(tmp_path), "--format", "mid"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("bandstand: error:") for line in err)
    assert "no such session" in err[0] and "musicxml" in err[1] and "full-arrangement.mid" in err[2]
