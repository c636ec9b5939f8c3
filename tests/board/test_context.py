"""The context budget, run by the musician (issue 17): below 50% nothing to estimate; from
50% the cost to the next checkpoint decides — below 70% proceed, 70–80% ask the conductor
(a context warning), above 80% stop and escalate (state error) — and it counts 6× after a
self-correction. The warning carries self-correction, deviations and agents remaining."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.board import Board, State
from bandstand.board.context import context_check, context_warning
from bandstand.board.taskfiles import TaskFiles
from bandstand.errors import BoardUsageError, FencingError


@pytest.fixture
def working(board: Board, tmp_path: Path) -> TaskFiles:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    files = TaskFiles(tmp_path, "task-01")
    files.step_started(1, ctx=20)
    return files


@pytest.mark.parametrize(("usage", "cost", "correction", "decision", "state"), [
    (40, None, False, "proceed", State.WORKING),
    (55, 10, False, "proceed", State.WORKING),
    (55, 20, False, "ask_conductor", State.WORKING),
    (55, 4, True, "ask_conductor", State.WORKING),  # 4 × 6 = 24 → 79%
    (60, 25, False, "stop_and_escalate", State.ERROR),
    (55, 6, True, "stop_and_escalate", State.ERROR),  # 6 × 6 = 36 → 91%
])
def test_the_budget_decides(board: Board, working: TaskFiles, usage: float, cost: float | None, correction: bool,
                            decision: str, state: State) -> None:
    if correction:
        working.self_correction("the first fixture was wrong", ctx=usage - 1)
    warning = context_warning(working, usage=usage, cost=cost, agents=2)
    result = context_check(board, "task-01", "m-1", warning)
    assert (result.decision, result.task.state) == (decision, state)
    assert result.code == {"proceed": 0, "ask_conductor": 1, "stop_and_escalate": 2}[decision]
    sent = board.last_message("task-01", "context_warning")
    assert (sent is not None) == (decision != "proceed")
    assert f"[ctx: {usage:g}%]" in working.status_lines()[-1] and "context check" in working.status_lines()[-1]
    if state is State.ERROR:
        assert board.task("task-01").last_error == "context_exhaustion_warning"


def test_the_warning_carries_what_the_conductor_needs(board: Board, working: TaskFiles) -> None:
    working.deviation("Medium", "a second migration")
    working.deviation("Low", "renamed a helper")
    working.self_correction("wrong fixture", ctx=50)
    working.status("step 2 started", ctx=52)
    warning = context_warning(working, cost=3, agents=2, agent_cost=5)
    assert warning.context_usage == 52  # the last [ctx: N%] of the status file
    context_check(board, "task-01", "m-1", warning)  # 52 + 3×6 = 70 → ask
    sent = board.last_message("task-01", "context_warning")
    assert sent is not None
    text = sent.message
    assert "Self-correction: yes — wrong fixture" in text
    assert "Deviations: 2 (Medium)" in text
    assert "Agents remaining: 2 (5% each, 10% total)" in text
    assert "Agents that fit in the 65% budget: 2" in text  # (65 − 52) // 5
    assert "70% at the checkpoint" in text


def test_from_half_the_context_an_estimate_is_required(board: Board, working: TaskFiles) -> None:
    with pytest.raises(BoardUsageError, match="--cost"):
        context_check(board, "task-01", "m-1", context_warning(working, usage=50))
    with pytest.raises(FencingError):  # only the holder runs its budget
        context_check(board, "task-01", "m-2", context_warning(working, usage=30))
    empty = TaskFiles(working.workdir, "task-02")
    with pytest.raises(BoardUsageError, match="--context"):
        context_warning(empty)


def test_context_check_at_the_command_line(board: Board, board_url: str, tmp_path: Path, working: TaskFiles) -> None:
    env = {**os.environ, "BANDSTAND_BOARD": board_url}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bandstand", "board", "--workdir", str(tmp_path), *args],
                              env=env, capture_output=True, text=True, timeout=120)

    run = cli("context-check", "task-01", "-s", "m-1", "--context", "52", "--cost", "10")
    assert run.returncode == 0 and "proceed" in run.stdout, run.stderr
    run = cli("context-check", "task-01", "-s", "m-1", "--context", "58")
    assert run.returncode == 2 and "--cost" in run.stderr and run.stderr.count("\n") == 1
    run = cli("--json", "context-check", "task-01", "-s", "m-1", "--context", "58", "--cost", "15",
              "--self-correction", "redid the parser", "--agents", "1")
    assert run.returncode == 2, run.stderr
    out = json.loads(run.stdout)
    assert out["decision"] == "stop_and_escalate" and out["state"] == "error" and out["projected"] == 148
    assert "Self-correction: yes — redid the parser" in out["report"]
    # the headroom check sees the checks' own status lines
    assert cli("check-headroom", "task-01").returncode == 1


def test_context_comes_before_a_checkpoint(board: Board, working: TaskFiles) -> None:
    from bandstand.board import ReviewRequest
    from bandstand.errors import IllegalTransition

    review = ReviewRequest(context_usage=84, smoothness=7, checkpoint=1, checkpoints_total=2, summary="half")
    with pytest.raises(IllegalTransition, match="context threshold comes before a checkpoint"):
        board.request_review("task-01", "m-1", review)
    assert board.task("task-01").state is State.WORKING and board.last_message("task-01", "review_request") is None
    result = context_check(board, "task-01", "m-1", context_warning(working, usage=84, cost=0))
    assert result.task.state is State.ERROR and result.code == 2
    calm = ReviewRequest(context_usage=75, smoothness=7, checkpoint=1, checkpoints_total=2, summary="half")
    board.create_task("task-02")
    board.claim("task-02", "m-2")
    assert board.request_review("task-02", "m-2", calm).state is State.NEEDS_REVIEW  # 70–80%: the review asks
