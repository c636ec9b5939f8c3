"""Issue #25: jam members repeated the same lines for several rounds, and "take a solo" never
ended. Through the real jam engine and its built-in musicians: a solo lasts `SOLO_ROUNDS` rounds
(the soloist then says it is back and the band plays as before), "solo" again renews it, and no
member says a thought or a reaction again within `REPEAT_ROUNDS` rounds."""

from __future__ import annotations

from bandstand.jam.engine import JamEngine
from bandstand.jam.musicians.lines import FREE
from bandstand.jam.persona import resolve_members
from bandstand.jam.turn import REPEAT_ROUNDS, SOLO_ROUNDS
from tests.jam.helpers import Recorder


def _said(rec: Recorder) -> dict[str, list[tuple[int, str, str]]]:
    out: dict[str, list[tuple[int, str, str]]] = {}
    for m in rec.of("agent_thought"):
        out.setdefault(m["member"], []).append((m["round"], m["thought"], m["reaction"]))
    return out


def _repeats(said: dict[str, list[tuple[int, str, str]]]) -> list[tuple[str, int, str]]:
    found = []
    for member, lines in said.items():
        for i, (round_, thought, reaction) in enumerate(lines):
            for earlier, was_thought, was_reaction in lines[:i]:
                if round_ - earlier <= REPEAT_ROUNDS:
                    found += [(member, round_, line) for line in (thought, reaction) if line and line in (was_thought, was_reaction)]
    return found


async def test_a_solo_ends_after_its_rounds_and_can_be_renewed() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter, seed=5)
    await engine.start()
    try:
        await engine.directive("@ARIA take a solo")
        asked = engine.round
        aria = engine.members["ARIA"]
        for _ in range(SOLO_ROUNDS - 1):
            assert aria.style.solo
            await engine.autopilot_round()
        assert aria.style.solo and engine.round == asked + SOLO_ROUNDS - 1
        rec.clear()
        await engine.autopilot_round()  # the solo has had its rounds
        assert not aria.style.solo
        back = {m["member"]: m["thought"] for m in rec.of("agent_thought")}
        assert set(back) == set(engine.members)  # everyone plays again, not around a soloist
        making_room = [text.split("{soloist}")[0] for role in FREE.values() for cond, text in role if cond == "other_solo"]
        assert not [t for n, t in back.items() for room in making_room if n != "ARIA" and t.startswith(room)]
        assert any(word in back["ARIA"].lower() for word in ("back", "over", "say")), back["ARIA"]
        # asked again, the solo starts over; dropping out ends it at once
        await engine.directive("@ARIA solo")
        assert aria.style.solo
        await engine.directive("@ARIA drop out")
        assert not aria.style.solo
    finally:
        await engine.stop()


async def test_no_member_repeats_a_line_within_a_few_rounds() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter, seed=11)
    await engine.start()
    try:
        for i in range(14):
            if i == 3:
                await engine.directive("simpler")
            elif i == 7:
                await engine.directive("@ARIA take a solo")
            else:
                await engine.autopilot_round()
        said = _said(rec)
        assert all(len(lines) >= 8 for lines in said.values()), {m: len(v) for m, v in said.items()}
        assert _repeats(said) == []
    finally:
        await engine.stop()
