"""The background and pause watchers, with intervals of milliseconds."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bandstand.board import Board, State
from bandstand.board.watchers import Watchers, WatchTimings, background_watcher, pause_watcher

FAST = WatchTimings(poll_interval=0.01, heartbeat_refresh=timedelta(minutes=8), pause_timeout=0.1)


async def test_background_watcher_yields_new_conductor_messages_then_ends(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    old = board.instruct("task-01", "already handled", conductor_session="conductor-1")

    async def conductor() -> None:
        await asyncio.sleep(0.05)
        board.post("task-01", "status", "musician chatter is ignored", from_session="m-1")
        board.instruct("task-01", "switch to plan B", conductor_session="conductor-1")

    got = []
    writer = asyncio.create_task(conductor())
    async for message in background_watcher(board, "task-01", "m-1", old, FAST):
        got.append(message)
    await writer
    assert [m.message for m in got] == ["switch to plan B"]


async def test_background_watcher_refreshes_an_old_heartbeat(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.backdate_heartbeat("task-01", board.clock() - timedelta(minutes=8, seconds=5))
    last = board.instruct("task-01", "x", conductor_session="conductor-1")

    async def later() -> None:
        await asyncio.sleep(0.05)
        board.instruct("task-01", "y", conductor_session="conductor-1")

    writer = asyncio.create_task(later())
    async for _ in background_watcher(board, "task-01", "m-1", last, FAST):
        pass
    await writer
    age = board.task("task-01").heartbeat_age(board.clock())
    assert age is not None and age < timedelta(seconds=30)


async def test_pause_watcher_reports_the_state_change(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.move("task-01", "m-1", State.NEEDS_REVIEW)

    async def review() -> None:
        await asyncio.sleep(0.03)
        board.approve("task-01", conductor_session="conductor-1")

    writer = asyncio.create_task(review())
    events = [e async for e in pause_watcher(board, "task-01", "m-1", FAST)]
    await writer
    assert [(e.kind, e.state) for e in events] == [("state_changed", State.REVIEW_APPROVED)]


async def test_pause_watcher_times_out_only_when_the_conductor_is_stale(board: Board) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    board.move("task-01", "m-1", State.ERROR)

    async def conductor_dies() -> None:
        await asyncio.sleep(0.25)  # past two pause timeouts with a fresh conductor: keep waiting
        board.backdate_heartbeat("task-00", board.clock() - timedelta(minutes=10))

    killer = asyncio.create_task(conductor_dies())
    started = asyncio.get_running_loop().time()
    events = [e async for e in pause_watcher(board, "task-01", "m-1", FAST)]
    await killer
    assert [e.kind for e in events] == ["timeout"]
    assert asyncio.get_running_loop().time() - started >= 0.25


async def test_one_watcher_per_kind() -> None:
    watchers = Watchers()
    stopped = []

    async def forever(name: str) -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            stopped.append(name)
            raise

    first = await watchers.start("pause", lambda: forever("first"))
    await asyncio.sleep(0)
    await watchers.start("pause", lambda: forever("second"))
    assert first.cancelled() and stopped == ["first"]
    assert watchers.running("pause")
    await watchers.start("background", lambda: forever("bg"))
    assert watchers.running("pause") and watchers.running("background")
    await watchers.stop()
    assert not watchers.running("pause") and not watchers.running("background")
