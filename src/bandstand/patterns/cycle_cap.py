"""The per-layer cap at play time: one cycle of one layer, bounded in events and in work.

A layer sounds at most `MAX_EVENTS_PER_CYCLE` events in any cycle, and computing one
cycle of it may cost at most `CYCLE_BUDGET` (work and seconds). Validation refuses a
pattern over the cap in every cycle it checks, but it cannot check every cycle of every
pattern (random choices, very long periods), so whoever plays a layer asks for its cycle
here: `play_cycle` thins a layer over the cap to the cap, evenly through the cycle, and
mutes one whose query runs past its budget — and says which it did, so the player can
tell the band once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from bandstand.errors import PatternBudgetExceeded
from bandstand.patterns.budget import QueryBudget

__all__ = ["CYCLE_BUDGET", "MAX_EVENTS_PER_CYCLE", "CappedCycle", "play_cycle", "thin"]

MAX_EVENTS_PER_CYCLE: Final = 64  # more than this is "too dense" for a musician's part
# What one cycle of one layer may cost: about 16 times the work of the costliest ordinary
# jam cycle (a 64-event layered part computes about 1,000 units), and a quarter of a second
# on a loaded machine — a cycle is computed within the transport's 0.3 s look-ahead.
CYCLE_BUDGET: Final = QueryBudget(max_work=16_000, max_seconds=0.25)


@dataclass(frozen=True, slots=True)
class CappedCycle:
    """One cycle of one layer as it may sound: `haps` (onsets, in time order, at most the
    cap), `found` (the onsets the cycle holds before thinning), `muted` (why nothing
    sounds: the query ran past its budget; "" when it did not) and which `limit` it passed."""

    haps: tuple[Any, ...]
    found: int
    muted: str = ""
    limit: str = ""  # the budget's limit that muted it: "events" (work) or "seconds"

    @property
    def thinned(self) -> bool:
        return self.found > len(self.haps) and not self.muted


def thin(haps: list[Any], cap: int) -> list[Any]:
    """At most `cap` of `haps` (in time order), spread evenly through them: the cycle keeps its
    shape, only sparser."""
    n = len(haps)
    if n <= cap:
        return haps
    return [haps[i * n // cap] for i in range(cap)]


def _onset(hap: Any) -> Any:
    return hap.whole.begin


def play_cycle(
    pattern: Any, cycle: int, *, cap: int = MAX_EVENTS_PER_CYCLE, budget: QueryBudget = CYCLE_BUDGET
) -> CappedCycle:
    """The onsets of `pattern` in `cycle`, computed under `budget` and thinned to `cap`.

    Past the budget the cycle is muted (`CappedCycle.muted` names the limit); any other
    `PatternError` of the query is raised, as `query_arc` raises it."""
    try:
        haps = pattern.query_arc(cycle, cycle + 1, budget=budget)
    except PatternBudgetExceeded as exc:
        return CappedCycle((), 0, exc.message, exc.limit)
    onsets = sorted((h for h in haps if h.has_onset()), key=_onset)
    return CappedCycle(tuple(thin(onsets, cap)), len(onsets))
