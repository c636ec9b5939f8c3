"""The session log view's data: runtime runs (the JSONL logs of agent sessions
and teams under the runs folder) and the task board, as JSON and live over SSE.

    GET /api/v1/runs                  the runs, newest first
    GET /api/v1/runs/{name}           a run's events so far (a replay)
    GET /api/v1/runs/{name}/stream    SSE: `events` batches — everything so far (`from_start`), then what is appended
    GET /api/v1/board                 the board now: tasks (state, heartbeat age, stale) and recent messages
    GET /api/v1/board/stream          SSE: `board` snapshots whenever a task or a message changes

Reading is bounded (`bandstand.runtime.runs.RunBudget`, `bandstand.board.view.BoardWatcher`)
and runs on worker threads; a stream polls every `POLL_SECONDS` and sends an SSE comment
every `PING_SECONDS` while nothing happens. The board is read, never created or written:
an SQLite board that does not exist is a 404.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Depends, Request
from sse_starlette.sse import EventSourceResponse

from bandstand.board import Board, SqliteStore, open_store
from bandstand.board.view import BoardWatcher
from bandstand.errors import BoardUsageError, NotFound
from bandstand.runtime.runs import RunBudget, RunFollower, list_runs, run_path
from bandstand.server.state import ServerState, server_state

router = APIRouter(tags=["logs"])

POLL_SECONDS = 0.5
BOARD_POLL_SECONDS = 1.0
PING_SECONDS = 8
BUDGET = RunBudget()


def runs_root(state: ServerState) -> Path:
    return Path(state.runs_dir)


def open_board(url: str) -> Board:
    """The board at `url` for reading (an SQLite file must exist; it is not created)."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///").partition("?")[0])
        if not path.is_file():
            raise NotFound(f"there is no board at {path} (bandstand board init makes one; serve --board names another)")
        return Board(SqliteStore(path, writer_lock=False))
    try:
        return Board(open_store(url))
    except BoardUsageError as exc:
        raise NotFound(f"the board at {url} cannot be read: {exc}") from exc


@router.get("/runs", summary="The runs of agent sessions and teams under the runs folder, newest first")
async def runs(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    found = await to_thread.run_sync(list_runs, runs_root(state), BUDGET)
    return {"root": str(runs_root(state)), "runs": [r.as_dict() for r in found]}


@router.get("/runs/{name}", summary="A run's events so far, in time order (a replay)")
async def run_events(name: str, state: ServerState = Depends(server_state)) -> dict[str, Any]:
    follower = RunFollower(run_path(runs_root(state), name), BUDGET)
    events = await to_thread.run_sync(follower.read)
    return {"name": name, "kind": follower.kind, "events": events, "truncated": follower.truncated,
            "skipped": follower.skipped}


def _sse(kind: str, payload: Any) -> dict[str, str]:
    return {"event": kind, "data": json.dumps(payload, ensure_ascii=False, default=str)}


@router.get("/runs/{name}/stream", summary="SSE: a run's events, everything so far and then as they are written")
async def run_stream(name: str, request: Request, state: ServerState = Depends(server_state)) -> EventSourceResponse:
    follower = RunFollower(run_path(runs_root(state), name), BUDGET)

    async def events() -> AsyncIterator[dict[str, str]]:
        first = True
        while not await request.is_disconnected():
            batch = await to_thread.run_sync(follower.read)
            if batch or first:
                yield _sse("events", {"name": name, "kind": follower.kind, "events": batch, "from_start": first,
                                      "truncated": follower.truncated, "skipped": follower.skipped})
                first = False
            await asyncio.sleep(POLL_SECONDS)

    return EventSourceResponse(events(), ping=PING_SECONDS)


@router.get("/board", summary="The task board now: every task with its heartbeat age, and recent messages")
async def board(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    opened = await to_thread.run_sync(open_board, state.board_url)
    try:
        snapshot = await to_thread.run_sync(BoardWatcher(opened).poll)
    finally:
        opened.close()
    return {"url": _shown(state.board_url), **(snapshot or {})}


@router.get("/board/stream", summary="SSE: board snapshots whenever a task or a message changes")
async def board_stream(request: Request, state: ServerState = Depends(server_state)) -> EventSourceResponse:
    opened = await to_thread.run_sync(open_board, state.board_url)
    watcher = BoardWatcher(opened)

    async def events() -> AsyncIterator[dict[str, str]]:
        try:
            while not await request.is_disconnected():
                snapshot = await to_thread.run_sync(watcher.poll)
                if snapshot is not None:
                    yield _sse("board", {"url": _shown(state.board_url), **snapshot})
                await asyncio.sleep(BOARD_POLL_SECONDS)
        finally:
            opened.close()

    return EventSourceResponse(events(), ping=PING_SECONDS)


def _shown(url: str) -> str:
    """The board's URL without a password."""
    scheme, sep, rest = url.partition("://")
    auth, at, host = rest.rpartition("@")
    return f"{scheme}{sep}{auth.split(':', 1)[0]}{at}{host}" if at else url
