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


async def test_each_event_says_how_the_recording_plays_it() -> None:
    # the page plays the General MIDI voice the WAV render plays: same program, key and velocity
    from bandstand.jam.sound import compile_pattern
    from bandstand.patterns import pattern_to_song

    engine = JamEngine(resolve_members(["beat", "groove", "aria", "glitch"]))
    transport = Transport(engine)
    await engine.start()
    try:
        events = transport.advance()
        heard = sorted((e.member, e.program if e.program is not None else -1, e.key, e.velocity, round(e.begin * 4, 6)) for e in events if e.key is not None)
        recorded = []
        for member, code in transport.playing.layers:
            for track in pattern_to_song(compile_pattern(code), 1, 120.0, 4).tracks:
                program = -1 if track.is_drum else track.program
                recorded += [(member, program, n.pitch, n.velocity, round(n.start, 6)) for n in track.notes]
        assert heard == sorted(recorded) and len(heard) > 10
        assert {e.program for e in events if e.member == "BEAT"} == {None}  # the drum kit
        assert all(e.program is not None for e in events if e.member == "GROOVE")
        assert transport.recent[-1].at is None  # advanced by hand (headless): no wall-clock moment
    finally:
        await engine.stop()


async def test_in_real_time_each_cycle_is_stamped_with_the_moment_it_begins() -> None:
    import asyncio
    import time

    rec = Recorder()
    engine = JamEngine(resolve_members(["beat"]), emitter=rec.emitter)
    transport = Transport(engine, lookahead=0.3)
    await engine.start()
    sent = time.time()
    task = asyncio.ensure_future(transport.run())
    try:
        for _ in range(1500):  # the second cycle is sent 1.7 s in (up to 30 s on a busy machine)
            if len(rec.of("events")) >= 2:
                break
            await asyncio.sleep(0.02)
        first, second = rec.of("events")[:2]
        assert first["at"] >= sent + 0.3 - 0.05  # sent ahead of the moment the cycle begins
        assert abs(second["at"] - first["at"] - first["cycle_seconds"]) < 1e-5
        assert [m.cycle for m in transport.recent] == [0, 1]  # what a client joining now is sent
    finally:
        task.cancel()
        await engine.stop()
