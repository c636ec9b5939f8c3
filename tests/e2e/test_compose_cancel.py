"""Ctrl-C (SIGINT) on a real `bandstand compose` process while it renders the WAV: it stops
cleanly with exit 130, says how to resume, leaves a resumable checkpoint and no synthesis process
behind, and `bandstand resume` finishes the song with the same files as an uninterrupted run.

The render is made slow on purpose (`$BANDSTAND_TEST_SLOW_SYNTH`: every slice of synthesis waits
50 ms, and the file it names is written when synthesis starts), so the interrupt always lands in
the middle of the synthesis — the longest stage — and never after the run has finished."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.render.synth import SLOW_ENV

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARGS = ["compose", "house music", "--seed", "2", "--bars", "16", "--json"]


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in ("midi", "progression", "notes") for p in sorted((root / folder).glob("*"))}


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def interrupted(tmp_path: Path, *, group: bool, times: int = 1) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run compose until its synthesis is underway, then Ctrl-C it (`times` times, to its whole
    process group as a terminal does, or to the main process only)."""
    out, started = tmp_path / "out", tmp_path / "synthesizing"
    env = {**os.environ, SLOW_ENV: str(started)}
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", *ARGS, "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while not started.exists():
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        for _ in range(times):
            if group:
                os.killpg(proc.pid, signal.SIGINT)
            else:
                proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        stdout, stderr = proc.communicate(timeout=60)  # the slowed render alone would take far longer
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert not group_alive(proc.pid), "a synthesis process outlived the cancelled run"
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), next(out.glob("session-*"))


def test_ctrl_c_during_the_render_then_resume(tmp_path: Path) -> None:
    done, session = interrupted(tmp_path, group=True)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["status"] == "cancelled"
    state = FileCheckpoint.in_session(session).load()
    assert state.status == "cancelled" and state.error is not None and state.error.code == "USER_CANCELLED"
    assert state.nodes["output"].status == "pending"
    assert not (session / "audio" / "full-arrangement.wav").exists()

    resumed = subprocess.run([sys.executable, "-m", "bandstand", "resume", str(session), "--json"],
                             capture_output=True, text=True, timeout=180, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
    assert (session / "audio" / "full-arrangement.wav").exists()
    straight = subprocess.run([sys.executable, "-m", "bandstand", *ARGS, "--out", str(tmp_path / "ref")],
                              capture_output=True, text=True, timeout=180, check=False)
    assert straight.returncode == 0, straight.stderr
    reference = Path(json.loads(straight.stdout)["session_dir"])
    assert digest(session) == digest(reference)
    wav = "audio/full-arrangement.wav"
    assert (session / wav).read_bytes() == (reference / wav).read_bytes()


@pytest.mark.parametrize(("group", "times"), [(False, 1), (True, 2)])
def test_ctrl_c_stops_the_synthesis_at_once(tmp_path: Path, group: bool, times: int) -> None:
    done, session = interrupted(tmp_path, group=group, times=times)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    status = FileCheckpoint.in_session(session).load().status
    if times == 1:
        assert status == "cancelled"
        return
    # A second Ctrl-C may land while the first is still being written down: the checkpoint then
    # says what a killed run's says, and the session resumes all the same.
    assert status in ("cancelled", "running")
    resumed = subprocess.run([sys.executable, "-m", "bandstand", "resume", str(session), "--json"],
                             capture_output=True, text=True, timeout=180, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
