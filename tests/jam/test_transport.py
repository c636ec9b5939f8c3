"""The transport: swap at cycle boundaries, timed events per member, the played record."""

from __future__ import annotations

from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members
from bandstand.jam.transport import Transport
from tests.jam.helpers import Recorder


async def test_new_patterns_take_effect_at_the_next_cycle_boundary() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(["beat", "groove"]), emitter=rec.emitter)
    transport = Transport(engine)
    await engine.start()
    try:
        first = transport.advance()
        assert rec.of("execute")[-1]["from_cycle"] == 0
        assert {e.member for e in first} == {"BEAT", "GROOVE"}
        assert all(0 <= e.begin < 1 and e.duration > 0 for e in first)
        assert all(e.note is not None and 24 <= e.note <= 48 for e in first if e.member == "GROOVE")
        old_code = transport.playing.code
        await engine.directive("@BEAT double time")  # mid-cycle: the playing pattern stays
        assert transport.playing.code == old_code and engine.composition.code != old_code
        transport.advance()
        assert rec.of("execute")[-1]["from_cycle"] == 1 and transport.playing.code == engine.composition.code
        transport.advance()
        assert len(rec.of("execute")) == 2  # nothing changed: no new execute
        assert [p.cycle for p in transport.played] == [0, 1, 2]
        assert transport.played[0].round == 1 and transport.played[1].round == 2
        assert [m["cycle"] for m in rec.of("events")] == [0, 1, 2]
        assert rec.of("events")[0]["cycle_seconds"] == 2.0
    finally:
        await engine.stop()


async def test_muted_members_are_not_scheduled() -> None:
    engine = JamEngine(resolve_members(["beat", "groove"]))
    transport = Transport(engine)
    await engine.start()
    try:
        engine.set_mute("GROOVE", True)
        assert {e.member for e in transport.advance()} == {"BEAT"}
        engine.set_solo("GROOVE", True)
        assert {e.member for e in transport.advance()} == {"GROOVE"}
    finally:
        await engine.stop()
