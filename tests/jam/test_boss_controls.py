"""The boss's hands on the band, as the members take them: a rewritten part is kept by a
built-in musician until the boss asks it for something else, and stands when the kick moves."""

from __future__ import annotations

from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members
from tests.jam.helpers import Recorder

BOSS_BEAT = 's("bd ~ sd ~, hh*8")'
BOSS_BASS = 'note("c2 ~ g1 ~").s("triangle")'


async def _band(**kw) -> JamEngine:
    engine = JamEngine(resolve_members(None), **kw)
    await engine.start()
    return engine


async def test_a_built_in_member_keeps_the_part_the_boss_wrote_and_says_so() -> None:
    rec = Recorder()
    engine = await _band(emitter=rec.emitter)
    try:
        await engine.override_member_code("beat", BOSS_BEAT)
        beat = engine.members["BEAT"]
        rec.clear()
        await engine.play_round(None, ["BEAT"])  # told in its next turn: it plays what the boss wrote
        thought = rec.of("agent_thought")[0]
        assert beat.pattern == BOSS_BEAT and "beat you wrote" in thought["thought"]
        await engine.autopilot_round()  # and keeps it while the band moves on
        assert beat.pattern == BOSS_BEAT
        await engine.directive("@BEAT busier")  # the boss asks for something else: its own part again
        assert beat.pattern != BOSS_BEAT and beat.override is None
    finally:
        await engine.stop()


async def test_a_bass_line_the_boss_wrote_stands_when_the_kick_moves() -> None:
    engine = await _band()
    try:
        await engine.override_member_code("GROOVE", BOSS_BASS)
        record = await engine.directive("@BEAT busier")
        assert not record.members["GROOVE"]["asked"] and engine.members["GROOVE"].pattern == BOSS_BASS
    finally:
        await engine.stop()


async def test_quieter_moves_the_faders_of_those_it_is_said_to() -> None:
    engine = await _band()
    try:
        await engine.directive("@GROOVE quieter")
        assert engine.members["GROOVE"].volume == 0.8 and engine.members["BEAT"].volume == 1.0
        await engine.directive("everyone louder")
        assert engine.members["GROOVE"].volume == 1.0 and engine.members["BEAT"].volume == 1.25
    finally:
        await engine.stop()
