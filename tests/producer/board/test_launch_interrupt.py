"""Ctrl-C stops a launch cleanly: no musician is left running, the board holds only protocol
states, and the same command run again continues it to the end (the tasks the stopped musicians
held are recovered when their heartbeat goes stale)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from bandstand.board import CONDUCTOR_TASK, Board, State

from .launching import env, launch_cmd, run_launch


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if marker.encode() in argv and stat[stat.rfind(")") + 2:].split()[0] != "Z":
                found.append(int(entry.name))
    return found


def test_ctrl_c_stops_cleanly_and_the_same_command_continues(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'board.db'}"
    proc = subprocess.Popen(launch_cmd(url, tmp_path, "--musicians", "2", "--tasks", "6"), env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        with Board.open(url, workdir=tmp_path) as board:
            while time.monotonic() < deadline and not any(
                    t.state is State.WORKING for t in board.tasks() if t.phase == "launch"):
                time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("bandstand: stopped; the musicians have ended")
    assert "Traceback" not in err
    assert _running(f"-{proc.pid}\0") == []  # musician-K-<launcher pid>: none left
    with Board.open(url, workdir=tmp_path) as board:
        assert board.task(CONDUCTOR_TASK).state is State.WORKING
        states = {t.task_id: t.state for t in board.tasks() if t.phase == "launch"}
    assert len(states) == 6
    _, outcome = run_launch(url, tmp_path, "--musicians", "2", "--tasks", "6")
    assert {t["state"] for t in outcome["tasks"].values()} == {"complete"}
    held = [t for t, s in states.items() if s not in (State.WATCHING, State.COMPLETE)]
    assert set(held) <= set(outcome["recovered"]) | {t for t, s in states.items() if s is State.NEEDS_REVIEW}
    with Board.open(url, workdir=tmp_path) as board:
        assert board.task(CONDUCTOR_TASK).state is State.COMPLETE
