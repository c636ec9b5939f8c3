"""The protocol operations on both stores: claims, succession, fallback rows,
reports, terminal writes, fencing, messages, siblings, health, staleness."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bandstand.board import (
    CompletionReport,
    ContextWarning,
    ErrorReport,
    Handoff,
    ReviewRequest,
    State,
    agents_that_fit,
    context_decision,
    successor,
)
from bandstand.board.board import Board
from bandstand.errors import BoardUsageError, FencingError, IllegalTransition, TerminalState


def review(ctx: float = 30, n: int = 1, m: int = 2) -> ReviewRequest:
    return ReviewRequest(context_usage=ctx, smoothness=8, checkpoint=n, checkpoints_total=m, summary="checkpoint done")


def test_successor_names() -> None:
    assert successor("task-03", None) == "musician-task-03"
    assert successor("task-03", "musician-task-03") == "musician-task-03-S2"
    assert successor("task-03", "musician-task-03-S2") == "musician-task-03-S3"


def test_claim_sets_the_row(board: Board) -> None:
    board.create_task("task-01", phase="build")
    result = board.claim("task-01", "m-1")
    assert result.claimed and result.worked_by == "musician-task-01"
    task = board.task("task-01")
    assert task.state is State.WORKING and task.session_id == "m-1"
    assert task.started_at and task.last_heartbeat and task.retry_count == 0


def test_blocked_claim_writes_a_fallback_row_and_tells_the_conductor(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    result = board.claim("task-01", "m-2")
    assert not result.claimed and result.fallback_task_id == "fallback-m-2"
    fallback = board.task("fallback-m-2")
    assert fallback.state is State.EXITED and "working" in (fallback.last_error or "")
    assert board.last_message("task-00", "claim_blocked") is None  # it used to land on the conductor's row
    blocked = board.last_message("task-01", "claim_blocked")
    assert blocked is not None and "task-01" in blocked.message and blocked.from_session == "m-2"


def test_missing_instructions_fall_back_too(board: Board, tmp_path: Path) -> None:
    board.create_task("task-01", instruction_path="instructions/task-01.md")
    result = board.claim("task-01", "m-1")
    assert not result.claimed and "instructions missing" in result.reason
    assert board.task("task-01").state is State.WATCHING
    (tmp_path / "instructions").mkdir()
    (tmp_path / "instructions" / "task-01.md").write_text("do it")
    assert board.claim("task-01", "m-1").claimed


def test_claim_next_takes_tasks_in_order_then_none(board: Board) -> None:
    for i in (2, 1, 3):
        board.create_task(f"task-0{i}")
    got = [board.claim_next("m-1") for _ in range(4)]
    assert [g.task_id for g in got if g] == ["task-01", "task-02", "task-03"]
    assert got[-1] is None


def test_review_cycle_and_completion(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    assert board.request_review("task-01", "m-1", review()).state is State.NEEDS_REVIEW
    assert board.reject("task-01", "tests missing", conductor_session="conductor-1").state is State.REVIEW_FAILED
    assert board.request_review("task-01", "m-1", review()).state is State.NEEDS_REVIEW
    board.approve("task-01", conductor_session="conductor-1")
    board.resume("task-01", "m-1")
    with pytest.raises(IllegalTransition, match="approved its completion report"):
        board.complete("task-01", "m-1")
    final = CompletionReport(context_usage=45, smoothness=9, checkpoint=2, checkpoints_total=2, summary="all done")
    board.report_completion("task-01", "m-1", final)
    board.approve("task-01", "ship it", conductor_session="conductor-1")
    board.resume("task-01", "m-1")
    done = board.complete("task-01", "m-1", "finished")
    assert done.state is State.COMPLETE and done.completed_at
    # the state write is the last write: the acknowledgement message precedes it
    last = board.messages_since(0, task_id="task-01")[-1]
    assert last.message_type == "completion_ack" and last.timestamp <= done.updated_at
    with pytest.raises(TerminalState):
        board.heartbeat("task-01", "m-1")


def test_error_report_counts_retries(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    task = board.report_error("task-01", "m-1", ErrorReport(context_usage=20, retry=1, error="tests fail"))
    assert task.state is State.ERROR and task.retry_count == 1 and task.last_error == "tests fail"
    board.propose_fix("task-01", "pin the version", conductor_session="conductor-1")
    board.resume("task-01", "m-1")
    assert board.task("task-01").state is State.WORKING


def test_moving_an_unclaimed_task_says_claim_it_first(board: Board) -> None:
    board.create_task("task-02")
    with pytest.raises(FencingError, match=r"^task-02 is not claimed yet \(state watching\): claim it first with 'bandstand board claim task-02 -s m-2'$"):
        board.heartbeat("task-02", "m-2")


def test_context_warning_above_80_escalates(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    assert board.warn_context("task-01", "m-1", ContextWarning(context_usage=55)).state is State.WORKING
    assert "Agents that fit in the 65% budget: 1" in board.last_message("task-01", "context_warning").message  # type: ignore[union-attr]
    task = board.warn_context("task-01", "m-1", ContextWarning(context_usage=85))
    assert task.state is State.ERROR and task.last_error == "context_exhaustion_warning"


def test_context_budget_rules() -> None:
    assert agents_that_fit(41, 8) == 3
    assert agents_that_fit(70) == 0
    assert context_decision(50, 10) == "proceed"
    assert context_decision(50, 25) == "ask_conductor"
    assert context_decision(50, 31) == "stop_and_escalate"
    assert context_decision(50, 4, self_correction=True) == "ask_conductor"  # 4 × 6 = 24


def test_handoff_is_a_clean_terminal_exit(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.request_exit("task-01", "rotate sessions", conductor_session="conductor-1")
    assert board.claim("task-01", "m-1").worked_by == "musician-task-01-S2"  # claim to prepare the handoff
    h = Handoff(context_usage=60, reason="context", handoff_path="temp/task-01-HANDOFF",
                last_completed_step="step 3", remaining_steps=["step 4"])
    assert board.handoff("task-01", "m-1", h).state is State.EXITED
    assert board.last_message("task-01", "handoff") is not None


def test_fencing_only_the_holder_moves_the_task(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    with pytest.raises(FencingError, match="held by session m-1"):
        board.request_review("task-01", "intruder", review())
    with pytest.raises(FencingError):
        board.heartbeat("task-01", "intruder")
    assert board.task("task-01").state is State.WORKING


def test_messages_since_and_conductor_messages(board: Board) -> None:
    board.create_task("task-01")
    board.create_task("task-02")
    a = board.instruct("task-01", "start with the tests", conductor_session="conductor-1")
    b = board.post("task-02", "status", "hi", from_session="m-2")
    c = board.instruct("task-01", "then the docs", conductor_session="conductor-1")
    assert a < b < c
    assert [m.id for m in board.messages_since(a)] == [b, c]
    assert [m.id for m in board.conductor_messages_since("task-01", 0)] == [a, c]
    assert [m.id for m in board.conductor_messages_since("task-01", a)] == [c]


def test_siblings_health_and_staleness(board: Board) -> None:
    for i in (1, 2, 3):
        board.create_task(f"task-0{i}")
    board.claim("task-01", "m-1")
    board.claim("task-02", "m-2")
    board.claim("task-02", "m-9")  # leaves a fallback row, which is not a sibling
    assert [t.task_id for t in board.siblings("task-01")] == ["task-02", "task-03"]
    assert not board.health().stale
    board.backdate_heartbeat("task-00", board.clock() - timedelta(minutes=10))
    assert board.health().stale
    assert board.stale_tasks() == []
    board.backdate_heartbeat("task-02", board.clock() - timedelta(minutes=9, seconds=1))
    assert [t.task_id for t in board.stale_tasks()] == ["task-02"]


def test_bad_ids_and_unknown_tasks(board: Board) -> None:
    with pytest.raises(BoardUsageError, match="task-01"):
        board.create_task("build-it")
    with pytest.raises(BoardUsageError, match="no task"):
        board.task("task-77")
    board.create_task("task-01")
    with pytest.raises(BoardUsageError, match="already exists"):
        board.create_task("task-01")


def test_claim_next_passes_over_missing_instructions(board: Board, tmp_path: Path) -> None:
    board.create_task("task-01", instruction_path="instructions/task-01.md")
    board.create_task("task-02")
    result = board.claim_next("m-1")
    assert result is not None and result.claimed and result.task_id == "task-02"
    assert board.task("task-01").state is State.WATCHING
    blocked = board.claim_next("m-2")
    assert blocked is not None and not blocked.claimed and "instructions missing" in blocked.reason
    assert board.task("fallback-m-2").state is State.EXITED
    (tmp_path / "instructions").mkdir()
    (tmp_path / "instructions" / "task-01.md").write_text("do it")
    again = board.claim_next("m-3")
    assert again is not None and again.claimed and again.task_id == "task-01"
    assert board.claim_next("m-4") is None
