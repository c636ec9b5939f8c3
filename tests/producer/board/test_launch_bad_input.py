"""Bad input to `bandstand board launch`: one line naming what and how to fix it, exit 2, no
traceback, and nothing written (no board file, no output folder)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .launching import env


@pytest.mark.parametrize(("args", "said"), [
    (["--musicians", "0"], "--musicians 0: a launch needs 1 to 32 musicians"),
    (["--musicians", "2", "--backend", "gpt-9"], "unknown backend 'gpt-9': use one of builtin, claude-code"),
    (["--musicians", "2", "--backend", "anthropic"], "the anthropic backend is not configured here: no API key"),
    (["--musicians", "2", "--backend", "claude-code"], "the claude-code backend is not configured here"),
    (["--musicians", "2", "--tasks", "many"], "--tasks 'many' is neither a count nor a file"),
    (["--musicians", "2", "--tasks", "0"], "--tasks 0: a launch has 1 to 999 tasks"),
    (["--musicians", "2", "--heartbeat", "600"], "--heartbeat (600 s) must be shorter than --stale-after"),
])
def test_one_line_exit_2_nothing_written(tmp_path: Path, args: list[str], said: str) -> None:
    board = tmp_path / "state" / "board.db"
    run_env = env(BANDSTAND_CLAUDE_BIN=str(tmp_path / "no-claude-here"))
    run_env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run([sys.executable, "-m", "bandstand", "board", "--board", f"sqlite:///{board}", "--workdir",
                           str(tmp_path), "launch", *args], env=run_env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_unreachable_board(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run([sys.executable, "-m", "bandstand", "board", "--workdir", str(tmp_path), "launch",
                           "--musicians", "2", "--board", f"postgresql://bandstand:secret@127.0.0.1:{port}/board"],
                          env=env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot connect to the board at" in lines[0], done.stderr
    assert "secret" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
