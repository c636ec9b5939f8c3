"""The three checks (exit codes) and the two session hooks."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bandstand.board import Board, State
from bandstand.board.checks import check_headroom, check_state, check_temp, heartbeat_status
from bandstand.board.hooks import CAPS, session_start, stop
from bandstand.board.taskfiles import PROPOSAL_TYPES, TaskFiles, write_proposal
from bandstand.errors import BoardUsageError


@pytest.mark.parametrize(("age", "status"), [(None, "NONE"), (10, "OK"), (479, "OK"), (480, "STALE"),
                                              (540, "STALE"), (541, "ALARM")])
def test_heartbeat_bands(age: float | None, status: str) -> None:
    assert heartbeat_status(age) == status


def test_check_state(board: Board) -> None:
    assert check_state(board, "task-09").code == 1
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    assert check_state(board, "task-01", "m-1").code == 0
    assert check_state(board, "task-01", "m-2").code == 1  # session mismatch
    board.backdate_heartbeat("task-01", board.clock() - timedelta(seconds=500))
    report = check_state(board, "task-01", "m-1")
    assert report.code == 1 and report.data["heartbeat"] == "STALE"
    board.backdate_heartbeat("task-01", board.clock() - timedelta(seconds=600))
    assert check_state(board, "task-01", "m-1").data["heartbeat"] == "ALARM"
    board.heartbeat("task-01", "m-1")
    board.instruct("task-01", "please also add docs", conductor_session="conductor-1")
    report = check_state(board, "task-01", "m-1")
    assert report.code == 1 and report.data["pending_messages"] == 1
    board.post("task-01", "status", "on it", from_session="m-1")
    assert check_state(board, "task-01", "m-1").code == 0


def test_check_state_knows_what_each_state_carries(board: Board) -> None:
    # every row the protocol itself writes is valid; an exit requested before anyone claimed has no session
    board.create_task("task-01")
    assert check_state(board, "task-01").code == 0
    board.request_exit("task-01", "not needed after all", conductor_session="conductor-1")
    report = check_state(board, "task-01")
    assert "OK    state exit_requested is valid" in report.lines  # (the exit request itself is pending)
    board.create_task("task-02")
    board.claim("task-02", "m-1")
    board.move("task-02", "m-1", State.NEEDS_REVIEW)
    board.propose_fix("task-02", "pin the version", conductor_session="conductor-1")
    assert check_state(board, "task-02", "m-1").code == 1  # the fix is a pending conductor message …
    assert "OK    state fix_proposed is valid" in check_state(board, "task-02", "m-1").lines  # … the state is fine
    board.claim("task-03", "m-9")  # blocked: a fallback row, exited
    assert "OK    state exited is valid" in check_state(board, "fallback-m-9").lines
    board.store.execute_script("UPDATE orchestration_tasks SET completed_at = NULL WHERE task_id = 'fallback-m-9'")
    assert check_state(board, "fallback-m-9").code == 1


def test_check_temp(tmp_path: Path) -> None:
    files = TaskFiles(tmp_path, "task-01")
    assert check_temp(tmp_path, "task-01").code == 1  # no files yet
    files.step_started(1, ctx=10)
    assert check_temp(tmp_path, "task-01").code == 0  # no deviations yet is healthy
    files.deviation("Low", "renamed a helper")
    TaskFiles(tmp_path, "task-02").step_started(1)
    report = check_temp(tmp_path, "task-01")
    assert report.code == 0 and report.data["other_tasks"] == ["task-02"]
    files.deviation("Medium", "extra migration")
    files.deviation("Medium", "changed an API")
    report = check_temp(tmp_path, "task-01")
    assert report.code == 1 and report.data["severity"] == {"Low": 1, "Medium": 2, "High": 0}


@pytest.mark.parametrize(("ctx", "correction", "code"), [(40, False, 0), (61, False, 1), (30, True, 1), (76, False, 2)])
def test_check_headroom(tmp_path: Path, ctx: float, correction: bool, code: int) -> None:
    files = TaskFiles(tmp_path, "task-01")
    files.step_started(1, ctx=12)
    files.agent_launched("tester", ctx=20)
    files.agent_returned("tester", ctx=28)
    if correction:
        files.self_correction("wrong fixture", ctx=29)
    files.step_completed(1, ctx=ctx)
    report = check_headroom(tmp_path, "task-01")
    assert report.code == code
    assert report.data["trajectory"][0] == 12 and report.data["agents_launched"] == 1


def test_proposals(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    path = write_proposal(tmp_path, "PATTERN", "retry-with-backoff", "Retry with backoff", "flaky network",
                          today=datetime(2026, 11, 22, tzinfo=UTC))
    assert path.relative_to(tmp_path).as_posix() == "docs/implementation/proposals/2026-11-22-retry-with-backoff.md"
    assert "Type: PATTERN" in path.read_text()
    assert len(PROPOSAL_TYPES) == 7
    with pytest.raises(BoardUsageError):
        write_proposal(tmp_path, "IDEA", "x", "t", "r")


def test_session_start_hook() -> None:
    out = session_start({"session_id": "abc-123", "hook_event_name": "SessionStart"})
    assert out["hookSpecificOutput"]["additionalContext"] == "CLAUDE_SESSION_ID=abc-123"


def test_stop_hook_blocks_until_the_protocol_allows(board: Board) -> None:
    assert stop({"session_id": "stranger"}, board) == {}
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    decision = stop({"session_id": "m-1"}, board)
    assert decision["decision"] == "block" and "working" in decision["reason"]
    board.move("task-01", "m-1", State.EXITED)
    assert stop({"session_id": "m-1"}, board) == {}
    # the conductor may stop only in exit_requested or complete
    assert stop({"session_id": "conductor-1"}, board)["decision"] == "block"
    board._conductor_move("task-00", State.EXIT_REQUESTED, "exit_request", "done", "conductor-1")
    assert stop({"session_id": "conductor-1"}, board) == {}


def test_stop_hook_cap_forces_the_stop(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    for _ in range(CAPS["musician"]):
        assert stop({"session_id": "m-1"}, board)["decision"] == "block"
    assert "decision" not in stop({"session_id": "m-1"}, board)


@pytest.mark.parametrize("payload", [{}, {"session_id": ""}, {"session_id": "  "}, {"session_id": None}])
def test_session_start_without_a_session_id_injects_nothing(payload: dict[str, object]) -> None:
    # it used to inject 'CLAUDE_SESSION_ID=' (empty)
    assert session_start(payload) == {}
