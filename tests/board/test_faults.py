"""A musician killed with SIGKILL mid-task: its heartbeat goes stale (time
travel by rewriting the heartbeat column), the conductor proposes a fix, a new
session claims as -S2, assesses resumption and completes; the zombie that
wakes up later cannot change the task."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bandstand.board import Board, CompletionReport, State
from bandstand.board.taskfiles import HandoffDoc, TaskFiles, assess_resumption
from bandstand.errors import FencingError

ROOT = Path(__file__).resolve().parents[2]


def test_crash_recovery_and_zombie_fencing(board: Board, board_url: str, tmp_path: Path) -> None:
    board.create_task("task-03")
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.board.workers", "work", board_url, "m-1", "task-03", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE,
    )
    assert worker.stdout is not None and worker.stdout.readline().strip() == b"working"
    worker.send_signal(signal.SIGKILL)
    assert worker.wait(timeout=10) == -signal.SIGKILL
    worker.stdout.close()
    assert board.task("task-03").state is State.WORKING  # nobody noticed yet

    # nine minutes pass (by rewriting the column, not by sleeping)
    board.backdate_heartbeat("task-03", board.clock() - timedelta(minutes=9, seconds=30))
    stale = board.stale_tasks()
    assert [t.task_id for t in stale] == ["task-03"]
    board.propose_fix("task-03", "the session crashed: resume from step 1", conductor_session="conductor-1")

    # a new session takes over
    claim = board.claim("task-03", "m-2")
    assert claim.claimed and claim.worked_by == "musician-task-03-S2"
    files = TaskFiles(tmp_path, "task-03")
    assessment = assess_resumption(files, "working", "musician-task-03")
    assert not assessment.clean_exit and assessment.handoff is None  # forced exit: no HANDOFF
    assert "missing" in assessment.summary()
    assert assessment.verify_first
    files.status("takeover by m-2: previous session crashed without a HANDOFF; re-running verification", ctx=5)

    final = CompletionReport(context_usage=30, smoothness=7, checkpoint=1, checkpoints_total=1, summary="done")
    board.report_completion("task-03", "m-2", final)
    board.approve("task-03", conductor_session="conductor-1")
    board.resume("task-03", "m-2")

    # the zombie wakes up: nothing it does lands
    with pytest.raises(FencingError):
        board.heartbeat("task-03", "m-1")
    with pytest.raises(FencingError):
        board.exit("task-03", "m-1", "I am back")
    assert board.task("task-03").session_id == "m-2"

    assert board.complete("task-03", "m-2").state is State.COMPLETE


def test_resumption_reads_a_fresh_handoff(tmp_path: Path) -> None:
    files = TaskFiles(tmp_path, "task-04")
    files.step_started(1, ctx=10)
    files.step_completed(1, ctx=20)
    files.write_handoff(HandoffDoc(session_id="m-1", worked_by="musician-task-04", completed_steps=["step 1"],
                                   pending_steps=["step 2"]))
    assessment = assess_resumption(files, "exited", "musician-task-04")
    assert assessment.clean_exit and "step 2" in (assessment.handoff or "")
    assert not assessment.report_to_conductor


def test_many_deviations_are_reported_on_resumption(tmp_path: Path) -> None:
    files = TaskFiles(tmp_path, "task-05")
    for i in range(3):
        files.deviation("Low", f"renamed helper {i}")
    assessment = assess_resumption(files, "fix_proposed", "musician-task-05")
    assert assessment.report_to_conductor and "3 deviations" in assessment.summary()
