"""What `bandstand compose` says in a real process: counts that match what is listed, plurals,
and the exit codes in its help."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bandstand.render.synth import SLOW_ENV


def bandstand(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=180,
                          check=False, cwd=cwd, env=None if env is None else {**os.environ, **env})


def test_the_counts_match_what_is_listed_and_one_is_singular(tmp_path: Path) -> None:
    # an 8-bar house song has one section: it said "1 section markers", and "15 files" over 13 listed
    proc = bandstand("compose", "deep house", "--bars", "8", "--seed", "3", "--no-audio", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\b1 section marker\b(?!s)", proc.stderr), proc.stderr
    said = re.search(r"output — (\d+) files", proc.stderr)
    assert said, proc.stderr
    listing = proc.stdout.split("Files in", 1)[1].splitlines()[1:]
    listed = [line.strip() for line in listing if line.startswith("  ")]
    assert "manifest.json" in listed
    assert int(said.group(1)) == len(listed)


def test_compose_help_has_examples_and_the_exit_codes() -> None:
    proc = bandstand("compose", "--help")
    assert proc.returncode == 0
    assert "Examples:" in proc.stdout and "Exit codes:" in proc.stdout
    codes = proc.stdout.split("Exit codes:", 1)[1]
    for code in ("0", "1", "2", "3", "130"):
        assert re.search(rf"^\s+{code}\s", codes, re.MULTILINE), code
    assert "Exit codes:" in bandstand("resume", "--help").stdout


def test_a_timeout_names_the_node_its_limit_and_the_option_that_raises_it(tmp_path: Path) -> None:
    # it said "ran past the 60s stage timeout" whatever stopped it, with no way to raise it from the CLI
    proc = bandstand("compose", "trap", "--bars", "8", "--no-audio", "--stage-timeout", "0.0001", "--out",
                     str(tmp_path))
    assert proc.returncode in (1, 3), proc.stderr
    assert re.search(r"\b(intent|harmony|arrangement|parts:\w+|sound|assembly|validation|output) ran past its "
                     r"0\.0001s time limit per node \(raise it with --stage-timeout SECONDS\)", proc.stderr), proc.stderr
    assert "bandstand resume SESSION_DIR --stage-timeout SECONDS" in " ".join(proc.stderr.split())  # however wrapped
    session = next(tmp_path.glob("session-*"))
    again = bandstand("resume", str(session), "--stage-timeout", "60")  # the higher limit: it finishes
    assert again.returncode == 0, again.stderr
    assert "completed" in again.stderr
    proc = bandstand("compose", "trap", "--bars", "8", "--no-audio", "--pipeline-timeout", "0.0001", "--out",
                     str(tmp_path / "whole"))
    assert proc.returncode == 1
    assert re.search(r"\bintent was stopped by the whole run's 0\.0001s limit \(raise it with --pipeline-timeout "
                     r"SECONDS\)", proc.stderr), proc.stderr


def test_a_render_out_of_time_leaves_the_session_without_the_wav_and_says_how_to_render_it(tmp_path: Path) -> None:
    # it was retried three times (the same render, four times) and the run ended with the
    # session half written; now the output node is told its time is up, stops the render, writes
    # everything else, and says so once. The render is slowed (50 ms a slice) past the limit.
    proc = bandstand("compose", "deep house", "--bars", "16", "--parts", "bass", "--seed", "3", "--stage-timeout",
                     "1", "--out", str(tmp_path), env={SLOW_ENV: str(tmp_path / "synthesizing")})
    assert proc.returncode == 3, proc.stderr
    session = next(tmp_path.glob("session-*"))
    words = " ".join(proc.stderr.split())
    said = "audio/full-arrangement.wav not written: output ran past its 1s time limit per node (raise it with " \
           "--stage-timeout SECONDS)"
    assert re.search(rf"✓ output — \d+ files \(and the state\) in {re.escape(str(session))}; no WAV: its time was up",
                     words), proc.stderr
    assert "■ completed_partial in" in words and f"Finished with problems: {said} (everything else is written; " \
           f"render the WAV into the session later with bandstand resume {session} --stage-timeout SECONDS, or " \
           f"into {session}/export with bandstand export {session} --format wav)." in words, proc.stderr
    assert "retry" not in words.lower() and words.count("✓ output") == 1
    manifest = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["degraded"] == [said] and not (session / "audio" / "full-arrangement.wav").exists()
    again = bandstand("resume", str(session), "--stage-timeout", "120")  # what the hint says: it renders the WAV
    assert again.returncode == 0, again.stderr
    assert (session / "audio" / "full-arrangement.wav").stat().st_size > 0


def test_sessions_clean_says_which_recent_sessions_it_keeps_and_why(tmp_path: Path) -> None:
    # a paused run has no manifest yet: unfinished, but just written — it said only "nothing to clean"
    paused = bandstand("compose", "trap beat", "--approve", "harmony", "--bars", "8", "--no-audio", "--out",
                       str(tmp_path))
    assert paused.returncode == 0, paused.stderr
    session = next(tmp_path.glob("session-*")).name
    proc = bandstand("sessions", "clean", "--incomplete", "--yes", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert f"kept 1 unfinished session changed in the last 2 minutes (a run may still be writing it): {session}" \
        in proc.stdout
    assert "nothing else to clean" in proc.stdout
    assert (tmp_path / session).is_dir()
