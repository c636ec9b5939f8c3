"""The session log view's data: runtime runs (the JSONL logs of agent sessions
and teams under the runs folder) and the task board, as JSON and live over SSE.

    GET /api/v1/runs                  the runs, newest first
    GET /api/v1/runs/{name}           a run's events so far (a replay)
    GET /api/v1/runs/{name}/stream    SSE: `events` batches — everything so far (`from_start`), then what is appended
    GET /api/v1/board                 the board now: tasks (state, heartbeat age, stale) and recent messages
    GET /api/v1/board/stream          SSE: `board` snapshots whenever a task or a message changes

Reading is bounded (`TeamRuns`' budget, `runtime.runs.RunBudget`; `bandstand.board.view.BoardWatcher`)
and runs on worker threads; a stream polls every `POLL_SECONDS` and sends an SSE comment
every `PING_SECONDS` while nothing happens. The board is read, never created or written:
an SQLite board that does not exist is a 404.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from fastapi import APIRouter, Depends, Request

from bandstand.producer import App
from bandstand.server.state import ServerState, server_state
from bandstand.server.streams import STREAM_ANSWERS, BoundedStream, Lag, frame

if TYPE_CHECKING:
    from bandstand.producer.app import TeamRuns

router = APIRouter(tags=["logs"])

POLL_SECONDS = 0.5
BOARD_POLL_SECONDS = 1.0
PING_SECONDS = 8


def team_runs(state: ServerState) -> TeamRuns:
    return App.team_runs(state.runs_dir)


@router.get("/runs", summary="The runs of agent sessions and teams under the runs folder, newest first")
async def runs(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    runs_here = team_runs(state)
    found = await to_thread.run_sync(runs_here.runs)
    return {"root": str(runs_here.root), "runs": [r.as_dict() for r in found]}


@router.get("/runs/{name}", summary="A run's events so far, in time order (a replay)")
async def run_events(name: str, state: ServerState = Depends(server_state)) -> dict[str, Any]:
    follower = team_runs(state).follow(name)
    events = await to_thread.run_sync(follower.read)
    return {"name": name, "kind": follower.kind, "events": events, "truncated": follower.truncated,
            "skipped": follower.skipped}


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


@router.get("/runs/{name}/stream", summary="SSE: a run's events, everything so far and then as they are written",
            responses=STREAM_ANSWERS)
async def run_stream(name: str, request: Request, state: ServerState = Depends(server_state)) -> BoundedStream:
    follower = team_runs(state).follow(name)
    slots, limits = state.stream_slots, state.config.limits

    def next_frame(first: bool) -> tuple[bytes | None, bool]:
        """The next event, read and encoded here on a worker thread, and whether more is waiting."""
        batch = follower.read(limits.sse_event_bytes)
        if not (batch or first):
            return None, follower.pending > 0
        return frame("events", {"name": name, "kind": follower.kind, "events": batch, "from_start": first,
                                "truncated": follower.truncated, "skipped": follower.skipped}), follower.pending > 0

    async def events() -> AsyncIterator[bytes]:
        first, lag = True, Lag(limits.sse_lag_seconds)
        while not await request.is_disconnected():
            data, more = await to_thread.run_sync(next_frame, first, limiter=slots.limiter)
            first = False
            if data is not None:
                yield data
            lag.behind(more)
            if lag.too_long:
                yield frame("closed", {"name": name, "reason": "slow", "detail": (
                    f"this stream stayed behind the run's log for more than {limits.sse_lag_seconds:g} s (the log "
                    "grows faster than it is read); GET /api/v1/runs/NAME reads what is there, or open the stream "
                    "again")})
                return
            if not more:
                await asyncio.sleep(POLL_SECONDS)

    return BoundedStream(events(), slots=slots, client=_client(request), ping=PING_SECONDS)


@router.get("/board", summary="The task board now: every task with its heartbeat age, and recent messages")
async def board(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    desk = App.board(state.board_url)
    snapshot = await to_thread.run_sync(desk.snapshot)
    return {"url": _shown(desk.url), **snapshot}


@router.get("/board/stream", summary="SSE: board snapshots whenever a task or a message changes",
            responses=STREAM_ANSWERS)
async def board_stream(request: Request, state: ServerState = Depends(server_state)) -> BoundedStream:
    slots = state.stream_slots
    slots.check(_client(request))  # too many streams: refused before the board is opened
    desk = App.board(state.board_url)
    watcher = await to_thread.run_sync(desk.watch)
    opened = watcher.board

    def next_frame() -> bytes | None:
        snapshot = watcher.poll()
        return None if snapshot is None else frame("board", {"url": _shown(desk.url), **snapshot})

    async def events() -> AsyncIterator[bytes]:
        try:
            while not await request.is_disconnected():
                data = await to_thread.run_sync(next_frame, limiter=slots.limiter)
                if data is not None:
                    yield data
                await asyncio.sleep(BOARD_POLL_SECONDS)
        finally:
            opened.close()

    try:
        return BoundedStream(events(), slots=slots, client=_client(request), ping=PING_SECONDS)
    except BaseException:
        opened.close()
        raise


def _shown(url: str) -> str:
    """The board's URL without a password."""
    scheme, sep, rest = url.partition("://")
    auth, at, host = rest.rpartition("@")
    return f"{scheme}{sep}{auth.split(':', 1)[0]}{at}{host}" if at else url
