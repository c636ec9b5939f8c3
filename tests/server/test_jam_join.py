"""A client that joins a running jam is sent the cycle playing now and the one sent ahead,
with the moment each begins, so it starts at the current position (no backlog, no wait)."""

from __future__ import annotations

import asyncio

from bandstand.jam.persona import resolve_members
from bandstand.protocol import StartJam
from bandstand.server.hub import JamHub


async def test_a_late_client_gets_the_current_cycles() -> None:
    hub = JamHub(resolve_members(["beat", "groove"]))
    first = hub.connect()
    try:
        assert [first.get_nowait()["type"] for _ in range(2)] == ["jam_state_update", "chat_history"]
        late_before_start = hub.connect()
        late_before_start.get_nowait()
        late_before_start.get_nowait()
        assert late_before_start.empty()  # nothing plays yet: nothing to join
        await hub.handle(StartJam(members=None), first)
        transport = hub.jam.transport
        assert transport is not None
        for _ in range(1500):  # the second cycle is sent about 1.7 s after the start
            if len(transport.recent) == 2:
                break
            await asyncio.sleep(0.02)
        late = hub.connect()
        state = late.get_nowait()
        assert state["type"] == "jam_state_update" and state["running"] is True
        assert late.get_nowait()["type"] == "chat_history"
        joined = [late.get_nowait() for _ in range(late.qsize())]
        assert [m["type"] for m in joined] == ["events", "events"]
        assert [m["cycle"] for m in joined] == [m.cycle for m in transport.recent]
        assert joined[1]["at"] - joined[0]["at"] == joined[0]["cycle_seconds"]
    finally:
        await hub.close()
