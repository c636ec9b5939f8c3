"""Exhaustive transitions: every pair of states, both roles, on both stores."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

from bandstand.board import TERMINAL, TRANSITIONS, Board, Role, State, check_transition, is_legal
from bandstand.board.states import NEEDS_STALE
from bandstand.errors import IllegalTransition, TerminalState

from .conftest import force_state

PAIRS = list(itertools.product(State, State))


@pytest.mark.parametrize("role", list(Role))
def test_table_decides_every_pair(role: Role) -> None:
    for f, t in PAIRS:
        if f in TERMINAL:
            with pytest.raises(TerminalState):
                check_transition(role, f, t)
        elif (f, t) in TRANSITIONS[role]:
            assert is_legal(role, f, t)
            assert check_transition(role, f, t)
        else:
            with pytest.raises(IllegalTransition) as err:
                check_transition(role, f, t)
            assert str(f) in str(err.value) and str(t) in str(err.value)


def test_terminal_states_have_no_way_out() -> None:
    for role in Role:
        assert not any(f in TERMINAL for f, _ in TRANSITIONS[role])


def _musician_move(board: Board, task_id: str, to: State) -> None:
    if to is State.COMPLETE:
        # completion needs an approved completion report first
        board.post(task_id, "completion", "final", from_session="m-1")
        board.post(task_id, "approval", "ok", from_session="conductor-1")
    board.move(task_id, "m-1", to)


def _conductor_move(board: Board, task_id: str, to: State) -> None:
    from bandstand.board.board import CONDUCTOR_TASK

    assert task_id != CONDUCTOR_TASK
    if (board.task(task_id).state, to) in NEEDS_STALE:
        board.backdate_heartbeat(task_id, board.clock() - timedelta(minutes=10))
    board._conductor_move(task_id, to, "note", "by the conductor", "conductor-1")


def test_every_pair_on_the_real_board(board: Board) -> None:
    for n, (role, (f, t)) in enumerate(itertools.product(Role, PAIRS), start=1):
        task_id = f"task-{n:03d}"
        board.create_task(task_id)
        force_state(board, task_id, f.value)
        legal = f not in TERMINAL and (f, t) in TRANSITIONS[role]
        mover = _musician_move if role is Role.MUSICIAN else _conductor_move
        if legal:
            mover(board, task_id, t)
            assert board.task(task_id).state is t, (role, f, t)
        else:
            with pytest.raises(IllegalTransition):
                mover(board, task_id, t)
            assert board.task(task_id).state is f, (role, f, t)


def test_state_change_refreshes_heartbeat(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.backdate_heartbeat("task-01", board.clock() - timedelta(minutes=5))
    before = board.task("task-01").last_heartbeat
    board.move("task-01", "m-1", State.ERROR)
    assert board.task("task-01").last_heartbeat > before  # type: ignore[operator]


def test_fix_for_a_working_task_needs_a_stale_heartbeat(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    with pytest.raises(IllegalTransition, match="fresh heartbeat"):
        board.propose_fix("task-01", "restart", conductor_session="conductor-1")
    board.backdate_heartbeat("task-01", board.clock() - timedelta(minutes=10))
    assert board.propose_fix("task-01", "restart", conductor_session="conductor-1").state is State.FIX_PROPOSED


def test_only_the_conductor_makes_conductor_moves(board: Board) -> None:
    from bandstand.errors import FencingError

    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.move("task-01", "m-1", State.NEEDS_REVIEW)
    with pytest.raises(FencingError):
        board.approve("task-01", conductor_session="m-1")
    assert board.task("task-01").state is State.NEEDS_REVIEW
