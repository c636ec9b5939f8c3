"""Autopilot: offer the band a round every N seconds, but only when it helps.

Skip a tick when there is no directive and no pattern changed for two rounds;
force a round after four skips; skip a tick outright while a round is still
running (the music must feel live, not backlogged). On each round it offers,
the members whose turn it is bring a fresh idea: the creativity threshold
(0–1) sets how often — at 0.5 every member every second round, staggered so
the band changes a part or two at a time; at 0 the band only settles.
`Autopilot` is the rule; `run_autopilot` is the loop a live jam runs while the
autopilot is on (on by default; a headless jam ticks it every
`cycles_between` cycles instead of seconds).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MIN_INTERVAL, MAX_INTERVAL, DEFAULT_INTERVAL = 8.0, 30.0, 16.0
QUIET_ROUNDS_TO_SKIP = 2
SKIPS_BEFORE_FORCE = 4
DEFAULT_CREATIVITY = 0.5


@dataclass(slots=True)
class Autopilot:
    """The skip/force rule; `decide` is called on every tick."""

    enabled: bool = True
    interval: float = DEFAULT_INTERVAL
    quiet_rounds: int = 0
    skips: int = 0
    creativity: float = DEFAULT_CREATIVITY
    offered: int = 0  # rounds offered so far

    def set(self, enabled: bool, interval: float | None = None) -> None:
        self.enabled = enabled
        if interval is not None:
            self.interval = min(MAX_INTERVAL, max(MIN_INTERVAL, float(interval)))

    def decide(self, *, has_directive: bool, round_running: bool) -> str:
        """'run', 'skip' or 'busy' for this tick."""
        if round_running:
            return "busy"
        if has_directive or self.quiet_rounds < QUIET_ROUNDS_TO_SKIP or self.skips >= SKIPS_BEFORE_FORCE:
            self.skips = 0
            return "run"
        self.skips += 1
        return "skip"

    def cycles_between(self, cycle_seconds: float) -> int:
        """The interval in cycles of the jam's current tempo and metre (16 s = 8 bars at 120)."""
        return max(1, round(self.interval / cycle_seconds))

    def fresh_ideas(self, members: list[str], seed: int = 0) -> list[str]:
        """The members who bring a new idea to the round being offered now: member i when
        (offered + i + seed) is a multiple of the period 1/creativity (none at creativity 0)."""
        self.offered += 1
        if self.creativity <= 0:
            return []
        period = max(1, math.ceil(1 / min(1.0, self.creativity) - 1e-9))
        return [name for i, name in enumerate(members) if (self.offered + i + seed) % period == 0]

    def round_done(self, changed: bool) -> None:
        """Record whether the round changed any pattern."""
        self.quiet_rounds = 0 if changed else self.quiet_rounds + 1


async def run_autopilot(engine: Any, offer_round: Callable[[], object]) -> None:
    """The autopilot loop of a running jam: every `interval` seconds decide, and when the
    rule says 'run', call `offer_round()` (which starts the round as its own task: a
    tick never waits for a round, a round still running makes the tick 'busy')."""
    while engine.running and engine.autopilot.enabled:
        await asyncio.sleep(engine.autopilot.interval)
        decision = engine.autopilot.decide(has_directive=False, round_running=engine.round_running)
        if decision == "run":
            offer_round()


async def tick_headless(engine: Any, cycle: int) -> None:
    """The autopilot of a headless jam: a tick every `cycles_between` cycles (never on the
    first), decided by the same rule, its round played before the cycle is."""
    pilot = engine.autopilot
    if not pilot.enabled or cycle == 0 or cycle % pilot.cycles_between(engine.context.cycle_seconds):
        return
    if pilot.decide(has_directive=False, round_running=engine.round_running) == "run":
        await engine.autopilot_round()
