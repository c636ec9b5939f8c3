"""Helpers for the launcher tests: run `bandstand board … launch` as a real process, read the board."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[3] / "src"
#: Short liveness timings so a crash is noticed in seconds (the protocol's are minutes).
FAST = ["--heartbeat", "0.3", "--poll", "0.1"]
STALE_AFTER = "5"


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), e.get("PYTHONPATH", "")) if p)
    e.update(extra)
    return e


def launch_cmd(url: str, workdir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "bandstand", "board", "--board", url, "--workdir", str(workdir), "--json",
            "--stale-after", STALE_AFTER, "launch", *FAST, *args]


def run_launch(url: str, workdir: Path, *args: str, timeout: float = 120.0,
               **extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = subprocess.run(launch_cmd(url, workdir, *args), env=env(**extra), capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, json.loads(done.stdout)


def message_types(board: Any, task_id: str) -> list[str]:
    return [m.message_type for m in board.messages_since(0, task_id=task_id)]
