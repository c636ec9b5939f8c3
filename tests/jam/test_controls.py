"""The boss's controls on a running jam, beside the words: a member's fader, the tempo,
the energy, and the boss's own pattern for a member (validated like any reply, the
member told in its next turn). Real sessions with the built-in musicians."""

from __future__ import annotations

from typing import Any

import pytest

from bandstand.agents import AlgorithmicBackend
from bandstand.errors import Conflict, InvalidInput
from bandstand.jam.engine import JamEngine
from bandstand.jam.musicians import Musician
from bandstand.jam.persona import resolve_members
from bandstand.jam.recording import song_of
from bandstand.jam.sound import cycle_events, name_notes
from bandstand.jam.transport import Transport
from bandstand.jam.turn import JamReply, TurnInput
from tests.jam.helpers import Recorder


class Listening:
    """A backend factory whose built-in musicians also keep every turn they were given."""

    def __init__(self) -> None:
        self.turns: dict[str, list[TurnInput]] = {}

    def __call__(self, persona: Any, seed: int) -> AlgorithmicBackend:
        musician, turns = Musician(persona, seed), self.turns.setdefault(persona.name, [])

        def play(request: Any) -> JamReply:
            turns.append(request.data)
            return musician(request)

        return AlgorithmicBackend(play)


async def started(rec: Recorder, **kwargs: Any) -> JamEngine:
    engine = JamEngine(resolve_members(["beat", "groove", "aria"]), emitter=rec.emitter, **kwargs)
    await engine.start()
    return engine


def velocities(engine: JamEngine, member: str) -> list[int]:
    code = dict(engine.composition.layers)[member]
    return [e.velocity for e in cycle_events(member, code, 0)]


async def test_a_members_fader_scales_what_is_heard_and_recorded() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        loud = velocities(engine, "GROOVE")
        engine.set_volume("groove", 0.5)
        assert engine.members["GROOVE"].volume == 0.5
        quiet = velocities(engine, "GROOVE")
        assert len(quiet) == len(loud) and all(q < v for q, v in zip(quiet, loud, strict=True))
        assert rec.messages[-1]["type"] == "jam_state_update"
        assert next(m for m in rec.messages[-1]["members"] if m["name"] == "GROOVE")["volume"] == 0.5
        # the member's own pattern is unchanged: the fader is the mix, not the part
        assert ".mul(gain(" not in engine.members["GROOVE"].pattern
        # and the recording plays what was heard: GROOVE's notes in the second bar are softer
        transport = Transport(engine)
        engine.set_volume("GROOVE", 1)
        transport.advance()
        engine.set_volume("GROOVE", 0.5)
        transport.advance()
        song = song_of(engine, transport.played)
        groove = [n for t in song.tracks if t.name.startswith("GROOVE") for n in t.notes]
        first = [n.velocity for n in groove if n.start < 4]
        second = [n.velocity for n in groove if n.start >= 4]
        assert first and second and max(second) < min(first)
        engine.set_volume("GROOVE", 0)
        assert "GROOVE" not in dict(engine.composition.layers)
        engine.set_volume("GROOVE", 9)  # clamped to the fader's top
        assert engine.members["GROOVE"].volume == 1.5
        with pytest.raises(InvalidInput, match="no band member"):
            engine.set_volume("TUBA", 1)
    finally:
        await engine.stop()


async def test_the_tempo_control_changes_the_next_cycle_without_a_round() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        transport = Transport(engine)
        transport.advance()
        rounds = engine.round
        engine.set_tempo(90)
        assert engine.round == rounds and engine.context.bpm == 90
        assert rec.of("musical_context_update")[-1]["changed"] == ["bpm"]
        transport.advance()
        assert [c.bpm for c in transport.played] == [120, 90]
        assert transport.played[-1].seconds == pytest.approx(4 * 60 / 90)
    finally:
        await engine.stop()
    with pytest.raises(Conflict):
        engine.set_tempo(100)


async def test_the_energy_control_is_a_round_for_the_whole_band() -> None:
    rec, band = Recorder(), Listening()
    engine = await started(rec, backend=band)
    try:
        rec.clear()
        record = await engine.set_energy(8)
        assert engine.context.energy == 8 and record.directive == "energy 8/10"
        assert rec.of("boss_directive_echo")[0]["text"] == "energy 8/10"
        assert {m["member"] for m in rec.of("agent_thought")} == {"BEAT", "GROOVE", "ARIA"}
        assert all(turns[-1].energy_delta == 3 for turns in band.turns.values())
    finally:
        await engine.stop()


async def test_the_boss_rewrites_a_members_pattern_and_the_member_is_told() -> None:
    rec, band = Recorder(), Listening()
    engine = await started(rec, backend=band)
    try:
        code = 'note("c2 ~ g1 ~").s("sawtooth").lpf(500)'
        rec.clear()
        await engine.override_member_code("groove", f"  {code} ")
        groove = engine.members["GROOVE"]
        assert groove.pattern == groove.fallback_pattern == code
        assert rec.of("code_override") == [rec.of("code_override")[0]]
        assert rec.of("code_override")[0]["member"] == "GROOVE" and rec.of("code_override")[0]["code"] == code
        assert dict(engine.composition.layers)["GROOVE"] == code
        assert rec.messages[-1]["type"] == "jam_state_update"

        await engine.directive("@BEAT busier")  # GROOVE is not asked: it is told next time it is
        assert code not in (band.turns["BEAT"][-1].directive or "")
        await engine.directive("more energy")
        told = band.turns["GROOVE"][-1]
        assert told.directive_to_you and code in (told.directive or "") and told.last_pattern == code
        await engine.directive("simpler")
        assert code not in (band.turns["GROOVE"][-1].directive or "")  # told once
    finally:
        await engine.stop()


async def test_a_refused_rewrite_names_the_notes_and_changes_nothing() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        before = engine.members["ARIA"].pattern
        rec.clear()
        with pytest.raises(InvalidInput) as refused:
            await engine.override_member_code("ARIA", 'note("c4 c#4 f#4 b4 e4").s("piano")')
        message = str(refused.value)
        assert message.startswith("ARIA's pattern was refused:") and "(C#, E, F#, B)" in message
        assert "MIDI" not in message
        assert engine.members["ARIA"].pattern == before and rec.messages == []
        with pytest.raises(InvalidInput, match="unknown function"):
            await engine.override_member_code("ARIA", 'note("c4").nonsense(3)')
        with pytest.raises(InvalidInput, match="empty"):
            await engine.override_member_code("ARIA", "   ")
    finally:
        await engine.stop()


async def test_a_members_refused_reply_is_shown_with_its_notes() -> None:
    wrong = 'note("c3 c#3 f#3 b3 e3").s("sawtooth")'

    def factory(persona: Any, seed: int) -> AlgorithmicBackend:
        musician = Musician(persona, seed)

        def play(request: Any) -> JamReply:
            reply = musician(request)
            if persona.name == "GROOVE" and request.data.directive:
                return reply.model_copy(update={"pattern": wrong})
            return reply

        return AlgorithmicBackend(play)

    rec = Recorder()
    engine = await started(rec, backend=factory)
    try:
        good = engine.members["GROOVE"].pattern
        rec.clear()
        await engine.directive("@GROOVE go wild")
        thought = rec.of("agent_thought")[0]
        assert thought["rejected"] == wrong and thought["pattern"] == good
        assert "(C#, E, F#, B)" in thought["note"]
    finally:
        await engine.stop()


def test_midi_numbers_in_a_reason_become_note_names() -> None:
    assert name_notes("3 of 5 notes are outside the given scale (MIDI 61, 66, 71, 73)") == (
        "3 of 5 notes are outside the given scale (C#, F#, B)"
    )
    assert name_notes("notes out of range: MIDI 10..130") == "notes out of range: MIDI 10..130"
