"""The board as a viewer sees it: every task with its state, who works it, its
heartbeat's age and whether it is stale, and the messages — the newest ones
first, then each new one once. `BoardWatcher.poll()` answers what changed since
its last call (None when nothing did), so a live view polls it cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from bandstand.board.board import Board, Task, format_ts, parse_ts
from bandstand.board.states import RECOVERY, State

__all__ = ["BoardSnapshot", "BoardWatcher", "row_view", "task_view"]


class BoardSnapshot(TypedDict):
    """What `BoardWatcher.poll` answers: every task (`row_view`), the messages new since the
    last poll, the board's clock, its staleness limit and whether messages are still behind."""

    tasks: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    now: str
    stale_after_s: float
    behind: bool


def task_view(task: Task, board: Board) -> dict[str, Any]:
    """A task with `heartbeat_age_s` (None: never) and `stale` (past the board's limit in a state
    someone should keep fresh, `states.RECOVERY`, as `Board.stale_tasks` says)."""
    age = task.heartbeat_age(board.clock())
    seconds = None if age is None else round(age.total_seconds(), 3)
    stale = task.state in RECOVERY and (age is None or age > board.stale_after)
    return {**task.as_dict(), "heartbeat_age_s": seconds, "stale": stale, "valid_state": True}


def row_view(row: dict[str, Any], board: Board) -> dict[str, Any]:
    """`task_view` of a stored row; a row in a state the protocol does not know is shown as it
    is, with `valid_state` false (`bandstand board check-state` explains it), not an error."""
    if row["state"] in _KNOWN:
        return task_view(Task.from_row(row), board)
    age = None if row["last_heartbeat"] is None else board.clock() - parse_ts(row["last_heartbeat"])
    return {**row, "heartbeat_age_s": None if age is None else round(age.total_seconds(), 3), "stale": False,
            "valid_state": False}


_KNOWN = frozenset(s.value for s in State)


@dataclass
class BoardWatcher:
    """Polls one board (see the module docstring). `keep`: messages sent at first; `pages`:
    pages of 1000 messages read per poll at most (a board with more catches up over polls)."""

    board: Board
    keep: int = 200
    pages: int = 10
    last_id: int = 0
    _tasks: list[dict[str, Any]] | None = None
    _first: bool = True
    _behind: bool = field(default=False)

    def poll(self) -> BoardSnapshot | None:
        """{"tasks", "messages" (new since the last poll), "now", "behind"} or None when nothing changed."""
        raw = self.board.task_rows()
        messages: list[dict[str, Any]] = []
        self._behind = False
        for _ in range(self.pages):
            page = self.board.messages_since(self.last_id, limit=1000)
            messages.extend(m.as_dict() for m in page)
            if page:
                self.last_id = page[-1].id
            if len(page) < 1000:
                break
        else:
            self._behind = True
        if self._first:
            messages = messages[-self.keep:]
        elif raw == self._tasks and not messages:
            return None
        self._first = False
        self._tasks = raw
        return {"tasks": [row_view(r, self.board) for r in raw], "messages": messages,
                "now": format_ts(self.board.clock()), "stale_after_s": self.board.stale_after.total_seconds(),
                "behind": self._behind}
