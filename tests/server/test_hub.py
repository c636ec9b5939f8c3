"""The hub: one jam shared by clients, autopilot ticks, stop cancels everything."""

from __future__ import annotations

import asyncio

from bandstand.jam.persona import resolve_members
from bandstand.protocol import BossDirective, SetAutopilot, StartJam, StopJam
from bandstand.server.hub import JamHub


async def drain(queue: asyncio.Queue) -> list[dict]:
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out


async def test_autopilot_offers_rounds_and_stop_cancels_the_tasks() -> None:
    hub = JamHub(resolve_members(["beat", "groove"]))
    a, b = hub.connect(), hub.connect()
    try:
        await hub.handle(SetAutopilot(enabled=True, interval=8), a)  # switched on before the start
        await hub.handle(StartJam(members=None), a)
        assert hub.engine.autopilot.enabled and hub.engine.autopilot.interval == 8
        assert hub._autopilot_task is not None
        hub.engine.autopilot.interval = 0.05  # the clamp is for people; the loop itself is tested fast
        for _ in range(200):
            if hub.engine.round >= 3:
                break
            await asyncio.sleep(0.02)
        assert hub.engine.round >= 3
        await hub.handle(BossDirective(text="@NOBODY hi"), b)
        errors = [m for m in await drain(b) if m["type"] == "error"]
        assert len(errors) == 1 and "@NOBODY" in errors[0]["message"]
        assert not any(m["type"] == "error" for m in await drain(a))  # the mistake goes to its sender only
        await hub.handle(StopJam(), a)
        assert hub.engine.running is False and hub._transport_task is None and hub._autopilot_task is None
        assert all(m.session is None for m in hub.engine.members.values())
        rounds = hub.engine.round
        await asyncio.sleep(0.2)
        assert hub.engine.round == rounds
    finally:
        await hub.close()
