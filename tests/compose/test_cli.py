"""`bandstand compose`, `resume` and `sessions` as a user meets them: output, JSON,
exit codes, and one-line errors for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.cli import run

FAST = ["--no-audio"]



def test_compose_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["compose", "Trap beat, dark, 140 BPM, key of Am", "--seed", "3", "--bars", "16",
                "--out", str(tmp_path), "--json", *FAST])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "completed" and data["seed"] == 3
    assert data["intent"]["genre"] == ["trap"] and data["intent"]["tempo"] == 140
    assert (data["intent"]["key"], data["intent"]["mode"], data["intent"]["half_time"]) == ("A", "minor", False)
    assert data["intent"]["ambiguities"] == []
    assert sum(s["bars"] for s in data["sections"]) == 16
    assert data["parts"] == ["drums", "bass", "chords", "lead", "pad"]
    assert "midi/full-arrangement.mid" in data["files"]
    assert set(data["quality"]["axes"]) == {"harmony", "rhythm", "arrangement", "vibe"}
    assert list(data["timings_ms"]) == ["intent", "harmony", "arrangement", "parts:drums", "parts:bass",
                                        "parts:chords", "parts:lead", "parts:pad", "sound", "assembly",
                                        "validation", "output"]
    assert Path(data["session_dir"]).is_dir()


def test_compose_progress_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["compose", "Frank Ocean meets Burial, late-night vibes", "--seed", "7", "--bars", "16",
                "--out", str(tmp_path), *FAST])
    captured = capsys.readouterr()
    assert code == 0
    for node in ("intent", "harmony", "arrangement", "parts:drums", "parts:bass", "parts:chords", "parts:lead",
                 "parts:pad", "sound", "assembly", "validation", "output"):
        assert f"✓ {node} — " in captured.err
    assert "half-time" in captured.err
    for word in ("genre", "key", "tempo", "parts", "quality", "time (ms)", "Files in", "full-arrangement.mid"):
        assert word in captured.out
    assert "135 BPM (feels 67.5, half-time)" in captured.out


def test_parts_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compose", "house", "--parts", "drums,bass", "--bars", "8", "--out", str(tmp_path), "--json",
                *FAST]) == 0
    assert json.loads(capsys.readouterr().out)["parts"] == ["drums", "bass"]


@pytest.mark.parametrize(("args", "fragment"), [
    (["compose", ""], "empty"),
    (["compose", "   "], "empty"),
    (["compose", "trap", "--bars", "0"], "bars"),
    (["compose", "trap", "--bars", "100000"], "bars"),
    (["compose", "trap", "--key", "H"], "unknown key"),
    (["compose", "trap", "--mode", "sideways"], "unknown mode"),
    (["compose", "trap", "--parts", "drums,kazoo"], "kazoo"),
    (["compose", "trap", "--skip", "2"], "critical"),
    (["compose", "trap", "--skip", "parts:bass"], "critical"),
    (["compose", "trap", "--approve", "chorus"], "unknown step"),
    (["compose", "trap", "--genre", "hose"], "house"),
    (["compose", "Something warm"], "ambiguous"),
    (["compose", "trap", "--intent-backend", "telepathy"], "telepathy"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                      fragment: str) -> None:
    out_dir = tmp_path / "out"
    code = run([*args, "--out", str(out_dir), *FAST])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("bandstand: error:") and fragment in err[0]
    assert not out_dir.exists() or not any(out_dir.iterdir())


def test_unwritable_out_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert run(["compose", "trap", "--out", str(blocker / "x"), *FAST]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]


def test_ambiguous_prompt_with_yes_takes_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["compose", "Something warm", "--yes", "--bars", "8", "--out", str(tmp_path), "--json", *FAST])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["intent"]["genre"] == ["neo-soul"]


def test_approve_gate_without_a_terminal_pauses_and_resume_approves(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compose", "trap beat", "--approve", "harmony", "--bars", "8", "--seed", "1", "--out", str(tmp_path),
                "--json", *FAST]) == 0
    paused = json.loads(capsys.readouterr().out)
    assert paused["status"] == "paused"
    assert run(["resume", paused["session_dir"], "--approve", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["status"] == "completed" and done["session_dir"] == paused["session_dir"]


def test_resume_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["resume", str(tmp_path / "missing")]) == 2
    assert "no session folder" in capsys.readouterr().err
    broken = tmp_path / "session-20260101-abcdef"
    (broken / "state").mkdir(parents=True)
    (broken / "state" / "pipeline-state.json").write_text("{oops", encoding="utf-8")
    assert run(["resume", str(broken)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "corrupt" in err[0]


def test_resume_of_a_finished_session_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compose", "lofi", "--bars", "8", "--out", str(tmp_path), "--json", *FAST]) == 0
    first = json.loads(capsys.readouterr().out)
    before = (Path(first["session_dir"]) / "midi" / "full-arrangement.mid").read_bytes()
    assert run(["resume", first["session_dir"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "completed"
    assert (Path(first["session_dir"]) / "midi" / "full-arrangement.mid").read_bytes() == before


def test_sessions_list_and_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compose", "house", "--bars", "8", "--out", str(tmp_path), "--json", *FAST]) == 0
    done = json.loads(capsys.readouterr().out)
    assert run(["sessions", "list", "--out", str(tmp_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [s["projectId"] for s in listed] == [done["session_id"]]
    assert listed[0]["genre"] == "house" and listed[0]["status"] == "completed"
    assert run(["sessions", "list", "--out", str(tmp_path)]) == 0
    assert done["session_id"] in capsys.readouterr().out
    assert run(["sessions", "clean", "--out", str(tmp_path)]) == 0
    assert "nothing to clean" in capsys.readouterr().out


def test_sessions_clean_needs_yes_when_not_interactive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "session-20200101-abcdef"
    stale.mkdir()
    import os

    os.utime(stale, (0, 0))
    assert run(["sessions", "clean", "--out", str(tmp_path)]) == 2
    assert "--yes" in capsys.readouterr().err
    assert stale.exists()
    assert run(["sessions", "clean", "--out", str(tmp_path), "--yes"]) == 0
    assert not stale.exists()


def test_compose_in_a_real_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bandstand", "compose", "jazz waltz in Bb", "--seed", "2", "--bars", "8",
         "--out", str(tmp_path), "--json", *FAST],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["intent"]["time_signature"] == [3, 4] and data["intent"]["key"] == "Bb"


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compose", "--help"]) == 0
    out = capsys.readouterr().out
    for flag in ("--bars", "--seed", "--parts", "--out", "--approve", "--skip", "--yes", "--json"):
        assert flag in out


def test_sessions_without_a_subcommand_shows_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["sessions"]) == 0
    out = capsys.readouterr().out
    assert "list" in out and "clean" in out
