"""The band's voices through a real engine: no two members say the same words in a round,
nonsense gets a puzzled answer (no compliance, no echo), a silent member promises nothing,
and ✋ only when a member did not do what was asked."""

from __future__ import annotations

from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members
from tests.jam.helpers import Recorder

SESSION = [
    "more energy", "@BEAT double time", "3/4 time", "busier", "@ARIA take a solo", "switch to D major",
    "swing", "straight", "simpler", "140 bpm", "chords D Bm G A", "half time", "@GLITCH drop out",
    "everyone quieter", "@GLITCH come back", "4/4 time", "calm down",
]


async def test_no_two_members_say_the_same_words_in_a_round() -> None:
    for seed in range(3):
        rec = Recorder()
        engine = JamEngine(resolve_members(None), emitter=rec.emitter, seed=seed)
        await engine.start()
        try:
            for text in SESSION:
                await engine.directive(text)
            await engine.autopilot_round()
        finally:
            await engine.stop()
        by_round: dict[int, list[dict]] = {}
        for thought in rec.of("agent_thought"):
            by_round.setdefault(thought["round"], []).append(thought)
        for round_, said in by_round.items():
            for field in ("thought", "reaction"):
                lines = [m[field] for m in said if m[field]]
                assert len(lines) == len(set(lines)), (seed, round_, field, lines)


async def test_nonsense_gets_a_puzzled_reply_and_changes_nothing() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter)
    await engine.start()
    try:
        before = {n: m.pattern for n, m in engine.members.items()}
        rec.clear()
        await engine.directive("purple monkey dishwasher")
        thoughts = rec.of("agent_thought")
        assert len(thoughts) == 4
        for m in thoughts:
            words = f"{m['thought']} {m['reaction']}".lower()
            assert not any(w in words for w in ("purple", "monkey", "dishwasher")), words  # no echo
            assert m["complied_with_boss"] is False  # it could not do what was asked, and says so
        assert {n: m.pattern for n, m in engine.members.items()} == before
        assert any("idea" in m["thought"] or "can't" in m["thought"] for m in thoughts)
        rec.clear()
        await engine.directive("busier")  # understood: everyone complies, even the grumblers
        assert all(m["complied_with_boss"] for m in rec.of("agent_thought"))
    finally:
        await engine.stop()


async def test_a_silent_member_promises_nothing() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter)
    await engine.start()
    try:
        await engine.directive("@GLITCH drop out")
        for seed_text in ("more energy", "busier", "@GLITCH double time", "pump it up"):
            rec.clear()
            await engine.directive(seed_text)
            glitch = next(m for m in rec.of("agent_thought") if m["member"] == "GLITCH")
            words = f"{glitch['thought']} {glitch['reaction']}".lower()
            assert glitch["pattern"] == "silence"
            assert not any(w in words for w in ("crunch", "glitches", "blips now", "on it")), words
            assert glitch["complied_with_boss"] is False  # asked to play while sitting out
        rec.clear()
        await engine.directive("@GLITCH come back")
        glitch = rec.of("agent_thought")[-1]
        assert glitch["pattern"] != "silence" and glitch["complied_with_boss"] is True
    finally:
        await engine.stop()


async def test_a_member_that_changed_nothing_does_not_say_it_did() -> None:
    claims = ("Nudged one kick", "Moved the kick", "Same pocket, a touch more", "Moved the blips", "Crunchier",
              "Fewer sounds", "Same motif, a step higher", "Same motif, a different", "Varied the answer",
              "Panned the glitches")  # lines that say the part changed
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter)
    engine.autopilot.creativity = 0.0  # no fresh ideas: the band settles
    await engine.start()
    try:
        checked = 0
        for _ in range(6):
            before = {n: m.pattern for n, m in engine.members.items()}
            rec.clear()
            await engine.autopilot_round()
            for said in rec.of("agent_thought"):
                if said["pattern"] == before[said["member"]]:
                    checked += 1
                    assert not said["thought"].startswith(claims), said
        assert checked >= 8  # most of the settled band's turns changed nothing
    finally:
        await engine.stop()
