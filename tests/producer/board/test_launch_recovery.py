"""A musician SIGKILLed mid-task: the conductor sees its heartbeat go stale, hands the task on
(fix_proposed, crash recovery), and another musician claims it as the successor and finishes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from bandstand.board import Board, State

from .launching import env, launch_cmd, message_types


def _musician_pid(launcher: int, session: str) -> int | None:
    """The pid of the launcher's child running `session`, from the process table."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2:].split()[1]) == launcher and session.encode() in argv:
            return int(entry.name)
    return None


def test_a_killed_musicians_task_is_recovered_by_another(board_url: str, tmp_path: Path) -> None:
    url = board_url
    proc = subprocess.Popen(launch_cmd(url, tmp_path, "--musicians", "2", "--tasks", "4"), env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed: tuple[str, str] | None = None
    try:
        deadline = time.monotonic() + 60
        with Board.open(url, workdir=tmp_path) as board:
            while killed is None and time.monotonic() < deadline and proc.poll() is None:
                working = [t for t in board.tasks() if t.phase == "launch" and t.state is State.WORKING]
                for task in working:
                    pid = _musician_pid(proc.pid, str(task.session_id))
                    if pid is not None:
                        os.kill(pid, signal.SIGKILL)
                        killed = (task.task_id, str(task.session_id))
                        break
                time.sleep(0.02)
        assert killed is not None, "no musician was ever seen working"
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    outcome = json.loads(out)
    task_id, dead = killed
    assert {t["state"] for t in outcome["tasks"].values()} == {"complete"}
    assert task_id in outcome["recovered"]
    assert outcome["musicians"][dead] == -signal.SIGKILL
    with Board.open(url, workdir=tmp_path) as board:
        task = board.task(task_id)
        assert task.worked_by == f"musician-{task_id}-S2"
        assert task.session_id != dead
        fixes = [m for m in board.messages_since(0, task_id=task_id) if m.message_type == "fix_proposal"]
        assert len(fixes) == 1 and "crash recovery" in fixes[0].message
        assert message_types(board, task_id)[-1] == "completion_ack"
    status = (tmp_path / "temp" / f"{task_id}-status").read_text()
    assert f"takeover by musician-{task_id}-S2" in status and "forced" in status
    song = tmp_path / "output" / "board" / task_id
    assert (song / "midi" / "full-arrangement.mid").is_file()
    assert sorted(p.name for p in (tmp_path / "output" / "board").iterdir()) == [
        ".staging", "task-01", "task-02", "task-03", "task-04"]
