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
        assert hub.jam.engine.autopilot.enabled and hub.jam.engine.autopilot.interval == 8
        assert hub.jam._autopilot_task is not None
        hub.jam.engine.autopilot.interval = 0.05  # the clamp is for people; the loop itself is tested fast
        for _ in range(1500):  # up to 30 s on a busy machine
            if hub.jam.engine.round >= 3:
                break
            await asyncio.sleep(0.02)
        assert hub.jam.engine.round >= 3
        await hub.handle(BossDirective(text="@NOBODY hi"), b)
        errors = [m for m in await drain(b) if m["type"] == "error"]
        assert len(errors) == 1 and "@NOBODY" in errors[0]["message"]
        assert not any(m["type"] == "error" for m in await drain(a))  # the mistake goes to its sender only
        await hub.handle(StopJam(), a)
        assert hub.jam.engine.running is False and hub.jam._transport_task is None and hub.jam._autopilot_task is None
        assert all(m.session is None for m in hub.jam.engine.members.values())
        # no round can come after the stop: nothing of the jam is left running on the loop
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    finally:
        await hub.close()


async def test_stop_during_a_slow_round_ends_it_cleanly() -> None:
    from bandstand.agents import AlgorithmicBackend
    from bandstand.jam.musicians import Musician

    release = asyncio.Event()

    def factory(persona, seed):
        musician = Musician(persona, seed)

        async def slow(request):
            if request.turn >= 1:
                await release.wait()  # a member that thinks forever after its first turn
            return musician(request)

        return AlgorithmicBackend(slow)

    hub = JamHub(resolve_members(["beat", "groove"]), backend=factory)
    queue = hub.connect()
    try:
        await hub.handle(StartJam(members=None), queue)
        await hub.handle(BossDirective(text="more energy"), queue)
        for _ in range(3000):  # up to 30 s on a busy machine
            if hub.jam.engine.round_running:
                break
            await asyncio.sleep(0.01)
        assert hub.jam.engine.round_running and {m.status for m in hub.jam.engine.members.values()} == {"thinking"}
        await asyncio.wait_for(hub.handle(StopJam(), queue), 30)
        assert not hub.jam.engine.running and not hub.jam.engine.round_running and not hub.jam._tasks
        assert {m.status for m in hub.jam.engine.members.values()} == {"idle"}
        states = [m for m in await drain(queue) if m["type"] == "jam_state_update"]
        assert states[-1]["running"] is False
    finally:
        release.set()
        await hub.close()
