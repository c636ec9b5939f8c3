"""Autopilot: offer the band a round every N seconds, but only when it helps.

Skip a tick when there is no directive and no pattern changed for two rounds;
force a round after four skips; skip a tick outright while a round is still
running (the music must feel live, not backlogged). `Autopilot` is the rule;
`run_autopilot` is the loop a live jam runs while the autopilot is on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MIN_INTERVAL, MAX_INTERVAL, DEFAULT_INTERVAL = 8.0, 30.0, 16.0
QUIET_ROUNDS_TO_SKIP = 2
SKIPS_BEFORE_FORCE = 4


@dataclass(slots=True)
class Autopilot:
    """The skip/force rule; `decide` is called on every tick."""

    enabled: bool = False
    interval: float = DEFAULT_INTERVAL
    quiet_rounds: int = 0
    skips: int = 0

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
