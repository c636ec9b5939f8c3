"""The musician's two watchers, as async iterators.

- background (while working): waits for conductor messages with
  `id > last_processed_id` (ids, not timestamps, are the dedup key), yields
  them and ends; meanwhile it keeps the heartbeat fresh.
- pause (while needs_review or error): waits for the task to leave those
  states; after the pause timeout it checks the conductor's heartbeat —
  fresh: keep waiting; stale: yield a timeout for escalation.

`Watchers` keeps exactly one watcher of each kind: starting one stops the
previous one first. Intervals are parameters so tests run in milliseconds."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from bandstand.board.board import CONDUCTOR_TASK, HEARTBEAT_REFRESH, HEARTBEAT_STALE, Board, Message
from bandstand.board.states import State

PAUSE_STATES = frozenset({State.NEEDS_REVIEW, State.ERROR})


@dataclass(frozen=True, slots=True)
class WatchTimings:
    poll_interval: float = 5.0
    heartbeat_refresh: timedelta = HEARTBEAT_REFRESH
    pause_timeout: float = 15 * 60.0
    conductor_stale: timedelta = HEARTBEAT_STALE


@dataclass(frozen=True, slots=True)
class PauseEvent:
    kind: Literal["state_changed", "timeout"]
    state: State
    detail: str = ""


async def _refresh_heartbeat(board: Board, task_id: str, session_id: str, refresh: timedelta) -> None:
    task = await asyncio.to_thread(board.task, task_id)
    age = task.heartbeat_age(board.clock())
    if age is None or age >= refresh:
        await asyncio.to_thread(board.heartbeat, task_id, session_id)


async def background_watcher(
    board: Board, task_id: str, session_id: str, last_processed_id: int, timings: WatchTimings = WatchTimings()
) -> AsyncIterator[Message]:
    """Yield the conductor's new messages for this task, then end."""
    while True:
        messages = await asyncio.to_thread(board.conductor_messages_since, task_id, last_processed_id)
        if messages:
            for message in messages:
                yield message
            return
        await _refresh_heartbeat(board, task_id, session_id, timings.heartbeat_refresh)
        await asyncio.sleep(timings.poll_interval)


async def pause_watcher(
    board: Board, task_id: str, session_id: str, timings: WatchTimings = WatchTimings()
) -> AsyncIterator[PauseEvent]:
    """Yield one event when the task leaves needs_review/error, or a timeout for escalation."""
    waited_since = time.monotonic()
    while True:
        task = await asyncio.to_thread(board.task, task_id)
        if task.state not in PAUSE_STATES:
            yield PauseEvent("state_changed", task.state)
            return
        if time.monotonic() - waited_since >= timings.pause_timeout:
            conductor = await asyncio.to_thread(board.health, CONDUCTOR_TASK)
            age = conductor.heartbeat_age_s
            if conductor.stale or (age is not None and age > timings.conductor_stale.total_seconds()):
                yield PauseEvent("timeout", task.state, f"conductor heartbeat stale ({age and int(age)} s)")
                return
            waited_since = time.monotonic()
        await _refresh_heartbeat(board, task_id, session_id, timings.heartbeat_refresh)
        await asyncio.sleep(timings.poll_interval)


WatcherKind = Literal["background", "pause"]


class Watchers:
    """At most one running watcher per kind; starting a kind stops the old one first."""

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Task[None]] = {}

    def running(self, kind: WatcherKind) -> bool:
        task = self._running.get(kind)
        return task is not None and not task.done()

    async def start(self, kind: WatcherKind, run: Callable[[], Coroutine[Any, Any, None]]) -> asyncio.Task[None]:
        await self.stop(kind)
        task: asyncio.Task[None] = asyncio.create_task(run(), name=f"board-{kind}-watcher")
        self._running[kind] = task
        return task

    async def stop(self, kind: WatcherKind | None = None) -> None:
        kinds = [kind] if kind else list(self._running)
        for k in kinds:
            task = self._running.pop(k, None)
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
