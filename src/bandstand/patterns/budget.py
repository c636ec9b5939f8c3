"""Query budgets: how much work one query of a pattern may do before it is stopped.

A pattern is lazy, so what it costs is only known when it is queried: a chain such
as ``s("bd").fast(1000).fast(1000).fast(1000)`` asks one cycle of ``"bd"`` for a
billion cycles. The leaves of the engine — where haps are made and spans are cut
into cycles (`pure`, signals, the cycle splitters) — charge every hap and every
piece to the *meter* of the running query, and the meter stops the query with
`PatternBudgetExceeded` (naming the limit) once it passes its work or time budget.
Work done is what memory holds, so the work budget bounds memory too.

The meter is per thread and cooperative, so a query can run on a worker thread and
still stop itself; `metered(budget)` installs one (an inner `metered` inside a
running query keeps the outer meter) and `Pattern.query_arc` meters every query
with `DEFAULT_QUERY_BUDGET` unless given another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from bandstand.errors import PatternBudgetExceeded

__all__ = ["DEFAULT_QUERY_BUDGET", "QueryBudget", "charge", "metered"]

_CHECK_EVERY: Final = 2048  # the clock is read once per this many units of work


@dataclass(frozen=True, slots=True)
class QueryBudget:
    """The most work (haps made plus cycle pieces cut) and wall-clock seconds one
    query may spend."""

    max_work: int = 200_000
    max_seconds: float = 5.0

    def __post_init__(self) -> None:
        if self.max_work < 1 or not self.max_seconds > 0:
            raise ValueError(f"a query budget needs positive limits, got {self}")


DEFAULT_QUERY_BUDGET: Final = QueryBudget()


class _Meter:
    __slots__ = ("budget", "check_at", "deadline", "work")

    def __init__(self, budget: QueryBudget) -> None:
        self.budget = budget
        self.work = 0
        self.check_at = min(_CHECK_EVERY, budget.max_work)
        self.deadline = time.monotonic() + budget.max_seconds

    def over(self) -> None:
        """Called when `work` reached `check_at`: raise if over a limit, else move `check_at`."""
        budget = self.budget
        if self.work > budget.max_work:
            raise PatternBudgetExceeded(
                f"the pattern computes more than {budget.max_work} events and patterns"
                " (its query budget)",
                limit="events",
                budget=budget.max_work,
            )
        if time.monotonic() > self.deadline:
            raise PatternBudgetExceeded(
                f"the pattern took longer than {budget.max_seconds:g} s to compute (its query budget)",
                limit="seconds",
                budget=budget.max_seconds,
            )
        self.check_at = min(self.work + _CHECK_EVERY, budget.max_work + 1)


class _State(threading.local):
    meter: _Meter | None = None


_STATE: Final = _State()


def charge(units: int = 1) -> None:
    """Count `units` of work against the running query's meter (none: free)."""
    meter = _STATE.meter
    if meter is not None:
        meter.work += units
        if meter.work >= meter.check_at:
            meter.over()


@contextmanager
def metered(budget: QueryBudget | None) -> Iterator[None]:
    """Run the block under `budget` (None: unmetered unless a meter is running already).
    Inside a running meter the outer one keeps counting."""
    if budget is None or _STATE.meter is not None:
        yield
        return
    _STATE.meter = _Meter(budget)
    try:
        yield
    finally:
        _STATE.meter = None
