"""Autopilot: skip quiet rounds, force one after four skips, never pile up."""

from __future__ import annotations

from bandstand.jam.autopilot import Autopilot
from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members


def test_skip_and_force_rule() -> None:
    pilot = Autopilot(enabled=True)
    assert pilot.decide(has_directive=False, round_running=False) == "run"
    pilot.round_done(changed=False)
    assert pilot.decide(has_directive=False, round_running=False) == "run"  # only one quiet round so far
    pilot.round_done(changed=False)
    assert [pilot.decide(has_directive=False, round_running=False) for _ in range(5)] == ["skip"] * 4 + ["run"]
    pilot.round_done(changed=False)
    assert pilot.decide(has_directive=True, round_running=False) == "run"  # a directive always plays
    assert pilot.decide(has_directive=True, round_running=True) == "busy"  # never backlog
    pilot.round_done(changed=True)
    assert pilot.decide(has_directive=False, round_running=False) == "run"


def test_interval_is_clamped_to_8_to_30_seconds() -> None:
    pilot = Autopilot()
    pilot.set(True, 3)
    assert pilot.interval == 8
    pilot.set(True, 99)
    assert pilot.interval == 30
    assert Autopilot().interval == 16


async def test_a_settled_band_is_left_alone_until_the_forced_round() -> None:
    engine = JamEngine(resolve_members(None))
    await engine.start()
    decisions = []
    try:
        for _ in range(16):
            decision = engine.autopilot.decide(has_directive=False, round_running=engine.round_running)
            decisions.append(decision)
            if decision == "run":
                await engine.play_round(None, [m.name for m in engine.active()])
    finally:
        await engine.stop()
    # the band evolves for a few rounds, settles, and then only every fifth tick plays
    assert decisions[:3] == ["run", "run", "run"]
    tail = "".join("r" if d == "run" else "s" for d in decisions[-10:])
    assert "ssssr" in tail and "rr" not in tail


async def test_the_autopilot_is_on_by_default_in_a_live_jam_and_can_be_switched_off() -> None:
    from bandstand.jam.live import LiveJam
    from bandstand.protocol import Emitter

    on = LiveJam(resolve_members(["BEAT", "GROOVE"]), emitter=Emitter())
    off = LiveJam(resolve_members(["BEAT", "GROOVE"]), emitter=Emitter(), autopilot=False)
    try:
        await on.start()
        await off.start()
        assert on.engine.autopilot.enabled and on._autopilot_task is not None
        assert not off.engine.autopilot.enabled and off._autopilot_task is None
        assert on.state().autopilot is True and off.state().autopilot is False
    finally:
        await on.stop()
        await off.stop()


def test_fresh_ideas_follow_the_creativity_threshold() -> None:
    band = ["BEAT", "GROOVE", "ARIA", "GLITCH"]
    half = Autopilot()
    rounds = [half.fresh_ideas(band) for _ in range(4)]
    assert rounds == [["GROOVE", "GLITCH"], ["BEAT", "ARIA"], ["GROOVE", "GLITCH"], ["BEAT", "ARIA"]]
    every = Autopilot(creativity=1.0)
    assert every.fresh_ideas(band) == band
    never = Autopilot(creativity=0.0)
    assert [never.fresh_ideas(band) for _ in range(3)] == [[], [], []]
