"""Ctrl-C (SIGINT) on a real `bandstand compose` process: it stops cleanly with exit 130,
says how to resume, leaves a resumable checkpoint, and `bandstand resume` finishes the
song with the same files as an uninterrupted run."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.compose.checkpoint import FileCheckpoint

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARGS = ["compose", "house music", "--seed", "2", "--bars", "16", "--json"]


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in ("midi", "progression", "notes") for p in sorted((root / folder).glob("*"))}


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background shell may have left it ignored


def test_ctrl_c_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", *ARGS, "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    # Wait until the session has its first checkpoint and the WAV render (the long stage) is near.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        sessions = list(out.glob("session-*"))
        if sessions and (sessions[0] / "state" / "pipeline-state.json").exists():
            try:
                harmony = FileCheckpoint.in_session(sessions[0]).load().nodes.get("harmony")
                if harmony is not None and harmony.status == "completed":
                    break
            except Exception:  # written right now; look again
                pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    session = next(out.glob("session-*"))
    if proc.returncode == 0:
        pytest.skip("the run finished before the interrupt arrived")
    assert proc.returncode == 130, stderr
    assert json.loads(stdout)["status"] == "cancelled"
    state = FileCheckpoint.in_session(session).load()
    assert state.status == "cancelled" and state.error is not None and state.error.code == "USER_CANCELLED"

    resumed = subprocess.run([sys.executable, "-m", "bandstand", "resume", str(session), "--json"],
                             capture_output=True, text=True, timeout=180, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
    straight = subprocess.run([sys.executable, "-m", "bandstand", *ARGS, "--out", str(tmp_path / "ref")],
                              capture_output=True, text=True, timeout=180, check=False)
    assert straight.returncode == 0, straight.stderr
    assert digest(session) == digest(Path(json.loads(straight.stdout)["session_dir"]))
