"""The conductor/musician task board as the clients reach it (`bandstand board`, the batch
conductor and worker, the server's log view): `open_board` from what a person typed, and the
board's own types and operations, re-exported. The board lives once, in `bandstand.board`; a
client imports only the producer (docs/architecture.md)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bandstand.board import (
    AgentsRemaining,
    Board,
    CompletionReport,
    Deviations,
    ErrorReport,
    Handoff,
    KeyOutput,
    ReviewRequest,
    SqliteStore,
    State,
    open_store,
)
from bandstand.board.context import context_check, context_warning
from bandstand.board.hooks import session_start
from bandstand.board.hooks import stop as stop_hook
from bandstand.board.reports import DECISION_TEXT
from bandstand.board.states import RECOVERY
from bandstand.board.stores import DEFAULT_URL
from bandstand.board.taskfiles import HandoffDoc, TaskFiles, assess_resumption, write_proposal
from bandstand.board.view import BoardWatcher
from bandstand.board.watchers import WatchTimings, background_watcher, pause_watcher

__all__ = ["DECISION_TEXT", "DEFAULT_URL", "RECOVERY", "AgentsRemaining", "Board", "BoardWatcher", "CompletionReport",
           "Deviations", "ErrorReport", "Handoff", "HandoffDoc", "KeyOutput", "ReviewRequest", "SqliteStore", "State",
           "TaskFiles", "WatchTimings", "assess_resumption", "background_watcher", "context_check", "context_warning",
           "open_board", "open_store", "pause_watcher", "session_start", "stop_hook", "write_proposal"]


def open_board(url: str | None, *, workdir: str | Path = ".", stale_after: float = 540.0,
               busy_timeout: float = 30.0) -> Board:
    """The board at `url` (None: the default SQLite file), opened and migrated; a heartbeat is
    stale after `stale_after` seconds and a write waits `busy_timeout` seconds for another writer."""
    return Board.open(url, workdir=workdir, stale_after=timedelta(seconds=stale_after), busy_timeout=busy_timeout)
