"""Crash recovery in every state the protocol allows it from (issue 17): a session that
went silent in needs_review, error, review_approved or review_failed is reported stale like
one in working, and the conductor can take the task back with a fix proposal; a fresh
heartbeat still refuses the takeover where the musician must act next."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bandstand.board import Board, State
from bandstand.board.states import NEEDS_STALE, RECOVERY
from bandstand.board.view import task_view
from bandstand.errors import IllegalTransition

from .conftest import force_state

HELD = [State.WORKING, State.NEEDS_REVIEW, State.ERROR, State.REVIEW_APPROVED, State.REVIEW_FAILED]


@pytest.mark.parametrize("state", HELD)
def test_a_silent_session_is_stale_and_recoverable_in(board: Board, state: State) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    force_state(board, "task-01", state.value)
    assert board.stale_tasks() == []
    board.backdate_heartbeat("task-01", board.clock() - timedelta(minutes=9, seconds=30))
    assert [(t.task_id, t.state) for t in board.stale_tasks()] == [("task-01", state)]
    assert task_view(board.task("task-01"), board)["stale"]
    fixed = board.propose_fix("task-01", "the session went silent: take it over", conductor_session="conductor-1")
    assert fixed.state is State.FIX_PROPOSED
    claim = board.claim("task-01", "m-2")
    assert claim.claimed and claim.worked_by == "musician-task-01-S2"


@pytest.mark.parametrize("state", [State.REVIEW_APPROVED, State.REVIEW_FAILED, State.WORKING])
def test_a_fresh_session_keeps_its_task(board: Board, state: State) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    force_state(board, "task-01", state.value)
    board.heartbeat("task-01", "m-1")
    with pytest.raises(IllegalTransition, match="fresh heartbeat"):
        board.propose_fix("task-01", "take it over", conductor_session="conductor-1")
    assert board.task("task-01").state is state


def test_unclaimed_and_finished_tasks_are_never_stale(board: Board) -> None:
    for n, state in enumerate([State.WATCHING, State.COMPLETE, State.EXITED], start=1):
        board.create_task(f"task-0{n}")
        board.claim(f"task-0{n}", f"m-{n}")
        force_state(board, f"task-0{n}", state.value, f"m-{n}")
        board.backdate_heartbeat(f"task-0{n}", board.clock() - timedelta(hours=2))
    board.claim("task-09", "m-9")  # a blocked claim: its fallback row is exited
    assert board.stale_tasks() == []


def test_every_recoverable_state_has_a_way_back() -> None:
    # a stale task in a musician-held state can be taken over by a fix or by a new claim
    from bandstand.board import CLAIMABLE, TRANSITIONS, Role

    for state in RECOVERY:
        assert state in CLAIMABLE or (state, State.FIX_PROPOSED) in TRANSITIONS[Role.CONDUCTOR], state
    assert {(f, State.FIX_PROPOSED) for f in (State.REVIEW_APPROVED, State.REVIEW_FAILED)} <= NEEDS_STALE
