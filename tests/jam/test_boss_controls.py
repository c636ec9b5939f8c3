"""The boss's hands on the band: a member's code overridden, volumes, tempo, energy."""

from __future__ import annotations

import json

import pytest

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.errors import InvalidInput
from bandstand.jam.engine import JamEngine, algorithmic_backend
from bandstand.jam.persona import resolve_members
from bandstand.jam.sound import cycle_events
from tests.jam.helpers import Recorder

BOSS_BEAT = 's("bd ~ sd ~, hh*8")'


async def _band(**kw) -> JamEngine:
    engine = JamEngine(resolve_members(None), **kw)
    await engine.start()
    return engine


async def test_the_boss_can_play_a_members_part_and_the_member_notices() -> None:
    rec = Recorder()
    engine = await _band(emitter=rec.emitter)
    try:
        await engine.override_member_code("beat", BOSS_BEAT)
        beat = engine.members["BEAT"]
        assert beat.pattern == BOSS_BEAT and dict(engine.composition.layers)["BEAT"] == BOSS_BEAT
        assert rec.of("jam_state_update")[-1]["combined_pattern"] == engine.composition.code
        rec.clear()
        await engine.play_round(None, ["BEAT"])  # the next round: it plays what the boss wrote, and says so
        thought = rec.of("agent_thought")[0]
        assert beat.pattern == BOSS_BEAT and "boss" in thought["thought"].lower()
        await engine.directive("@BEAT busier")  # the boss asks for something else: its own part again
        assert beat.pattern != BOSS_BEAT and beat.override is None
    finally:
        await engine.stop()


async def test_an_override_is_checked_like_a_reply() -> None:
    engine = await _band()
    try:
        before = engine.members["GROOVE"].pattern
        with pytest.raises(InvalidInput, match=r"GROOVE's code was not accepted: .*C#, E, F#"):
            await engine.override_member_code("GROOVE", 'note("c#2 e2 f#2 c#3").s("sawtooth")')
        with pytest.raises(InvalidInput, match="no band member"):
            await engine.override_member_code("NOBODY", BOSS_BEAT)
        with pytest.raises(InvalidInput, match="empty"):
            await engine.override_member_code("GROOVE", "  ")
        assert engine.members["GROOVE"].pattern == before
    finally:
        await engine.stop()


async def test_an_llm_member_is_told_the_boss_rewrote_its_part(openai_server) -> None:
    good = {"pattern": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")', "thoughts": "Roots.", "reaction": "", "comply_with_boss": True}
    openai_server.reply_for = lambda user, system, n: json.dumps(good)
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key", model="local", retries=1)
    engine = JamEngine(resolve_members(["BEAT", "GROOVE"]), turn_timeout=10,
                       backend=lambda p, s: backend if p.name == "GROOVE" else algorithmic_backend(p, s))
    await engine.start()
    try:
        await engine.override_member_code("GROOVE", 'note("c2 ~ g1 ~").s("triangle")')
        await engine.play_round(None, ["GROOVE"])
        turn = openai_server.requests[-1]["body"]["messages"][-1]["content"]
        assert 'THE BOSS REWROTE YOUR PART — now playing: note("c2 ~ g1 ~").s("triangle")' in turn
    finally:
        await engine.stop()


def _gain(engine: JamEngine, name: str) -> float:
    code = dict(engine.composition.layers)[name]
    events = [e for c in range(4) for e in cycle_events(name, code, c)]
    return sum(e.gain for e in events) / len(events)


async def test_member_and_master_volume_scale_the_events() -> None:
    engine = await _band()
    try:
        aria = _gain(engine, "ARIA")
        engine.set_member_gain("aria", 0.5)
        assert _gain(engine, "ARIA") == pytest.approx(aria * 0.5, rel=1e-3)
        beat = _gain(engine, "BEAT")
        engine.set_master_gain(0.5)
        assert _gain(engine, "BEAT") == pytest.approx(beat * 0.5, rel=1e-3)
        assert _gain(engine, "ARIA") == pytest.approx(aria * 0.25, rel=1e-3)
        with pytest.raises(InvalidInput, match=r"0-1\.5"):
            engine.set_member_gain("ARIA", 2)
        engine.set_master_gain(1.0)
        engine.set_member_gain("ARIA", 1.0)
        assert dict(engine.composition.layers)["ARIA"] == engine.members["ARIA"].pattern
    finally:
        await engine.stop()


def _peak(engine: JamEngine, name: str) -> float:
    code = dict(engine.composition.layers)[name]
    return max(e.gain for c in range(4) for e in cycle_events(name, code, c))


async def test_tempo_and_energy_controls() -> None:
    rec = Recorder()
    engine = await _band(emitter=rec.emitter)
    try:
        rounds = engine.round
        engine.set_tempo(96)
        assert engine.context.bpm == 96 and engine.round == rounds
        assert rec.of("musical_context_update")[-1]["changed"] == ["bpm"]
        with pytest.raises(InvalidInput, match="40-240"):
            engine.set_tempo(500)
        quiet = _peak(engine, "BEAT")
        record = await engine.set_energy(9)
        assert engine.context.energy == 9 and record.round == rounds + 1
        assert all(m["asked"] for m in record.members.values())
        assert _peak(engine, "BEAT") > quiet
        with pytest.raises(InvalidInput, match="1-10"):
            await engine.set_energy(0)
    finally:
        await engine.stop()
