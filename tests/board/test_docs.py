"""docs/board.md: the shell session runs as written, the check examples run,
and the hooks snippet is valid JSON naming real commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "board.md"
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(), re.S)


def test_the_bash_examples_run(tmp_path: Path) -> None:
    session, checks = (body for lang, body in BLOCKS if lang == "bash")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env.pop("BANDSTAND_BOARD", None)
    run = subprocess.run(["bash", "-c", "set -e\n" + session], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "task-01: complete" in run.stdout
    assert "REVIEW REQUEST — checkpoint 1 of 2" in run.stdout
    env["BANDSTAND_BOARD"] = f"sqlite:///{tmp_path}/board.db"
    for line in checks.strip().splitlines():
        check = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert check.returncode in (0, 1, 2), check.stderr
        assert "task-01" in check.stdout


def test_the_hooks_snippet_is_valid() -> None:
    snippet = json.loads(next(body for lang, body in BLOCKS if lang == "json"))
    commands = [h["command"] for event in snippet["hooks"].values() for group in event for h in group["hooks"]]
    assert commands == ["bandstand board hook session-start", "bandstand board hook stop"]


@pytest.mark.parametrize("command", ["init", "claim", "request-review", "report-completion", "check-headroom",
                                     "write-handoff", "assess-resumption", "wait", "proposal", "stale"])
def test_documented_commands_exist(command: str) -> None:
    from bandstand.cli import run

    assert run(["board", command, "--help"]) == 0


def test_the_context_check_example_prints_what_the_page_says(tmp_path: Path) -> None:
    example = next(body for lang, body in BLOCKS if lang == "text" and "context-check" in body)
    command, expected = example.strip().splitlines()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "BANDSTAND_BOARD": f"sqlite:///{tmp_path}/board.db"}
    setup = "set -e\nbandstand board init -s conductor\nbandstand board create task-01\n" \
            "bandstand board claim task-01 -s musician-a\n"
    subprocess.run(["bash", "-c", setup], cwd=tmp_path, env=env, check=True, capture_output=True)
    run = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == expected
