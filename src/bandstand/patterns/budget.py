"""Query budgets: how much work one query of a pattern may do before it is stopped.

A pattern is lazy, so what it costs is only known when it is queried: a chain such
as ``s("bd").fast(1000).fast(1000).fast(1000)`` asks one cycle of ``"bd"`` for a
billion cycles. The leaves of the engine — where haps are made and spans are cut
into cycles (`pure`, signals, the cycle splitters) — charge every hap and every
piece to the *meter* of the running query, and the meter stops the query with
`PatternBudgetExceeded` (naming the limit) once it passes its work or time budget.
Work done is what memory holds, so the work budget bounds memory too.

The meter is per thread and cooperative, so a query can run on a worker thread and
still stop itself; `metered(budget)` installs one (nested inside another, it gets
the tighter of the two budgets and its work counts for both) and
`Pattern.query_arc` meters every query with `DEFAULT_QUERY_BUDGET` unless given
another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from bandstand.errors import PatternBudgetExceeded

__all__ = ["DEFAULT_QUERY_BUDGET", "Meter", "QueryBudget", "charge", "metered", "reserve", "running_meter"]

_CHECK_EVERY: Final = 256  # the clock is read once per this many units of work


@dataclass(frozen=True, slots=True)
class QueryBudget:
    """The most work (haps made plus cycle pieces cut) and seconds of CPU time one
    query may spend. The seconds are the querying thread's own CPU time, not the wall
    clock: a query is pure computation, so its CPU time is what it costs, and a loaded
    machine (other processes, other threads holding the GIL) does not stop a query that
    would fit on an idle one."""

    max_work: int = 200_000
    max_seconds: float = 5.0

    def __post_init__(self) -> None:
        if self.max_work < 1 or not self.max_seconds > 0:
            raise ValueError(f"a query budget needs positive limits, got {self}")


DEFAULT_QUERY_BUDGET: Final = QueryBudget()


class Meter:
    """The work and time one metered block has spent (`metered` yields it). Inside an
    outer meter it stops at the tighter of its own budget and what is left of the outer
    one, and names the budget that stopped it."""

    __slots__ = ("check_at", "deadline", "limit", "named_seconds", "named_work", "work")

    def __init__(self, budget: QueryBudget, outer: Meter | None = None) -> None:
        self.work = 0
        self.limit = self.named_work = budget.max_work
        self.deadline = time.thread_time() + budget.max_seconds
        self.named_seconds = budget.max_seconds
        if outer is not None:
            left = max(0, outer.limit - outer.work)
            if left < self.limit:
                self.limit, self.named_work = left, outer.named_work
            if outer.deadline < self.deadline:
                self.deadline, self.named_seconds = outer.deadline, outer.named_seconds
        self.check_at = min(_CHECK_EVERY, self.limit)

    def over(self) -> None:
        """Called when `work` reached `check_at`: raise if over a limit, else move `check_at`."""
        if self.work > self.limit:
            raise PatternBudgetExceeded(
                f"the pattern computes more than {self.named_work} events and patterns"
                " (its query budget)",
                limit="events",
                budget=self.named_work,
            )
        if time.thread_time() > self.deadline:
            raise PatternBudgetExceeded(
                f"the pattern took longer than {self.named_seconds:g} s to compute"
                " (its query budget)",
                limit="seconds",
                budget=self.named_seconds,
            )
        self.check_at = min(self.work + _CHECK_EVERY, self.limit + 1)


class _State(threading.local):
    meter: Meter | None = None


_STATE: Final = _State()


def running_meter() -> Meter | None:
    """The meter of the block running on this thread (None: no budget is counting)."""
    return _STATE.meter


def reserve(units: int) -> None:
    """Count `units` of work about to be done (a list of that many items, say): refused
    before it is done, and not counted, when it would not fit the running meter."""
    meter = _STATE.meter
    if meter is not None:
        if meter.work + units > meter.limit:
            meter.work = meter.limit + 1  # over: the next check names the budget
            meter.over()
        charge(units)


def charge(units: int = 1) -> None:
    """Count `units` of work against the running query's meter (none: free)."""
    meter = _STATE.meter
    if meter is not None:
        meter.work += units
        if meter.work >= meter.check_at:
            meter.over()


@contextmanager
def metered(budget: QueryBudget | None) -> Iterator[Meter | None]:
    """Run the block under `budget` and yield its `Meter` (None: no budget of its own).

    Inside a running meter the block gets the tighter of its budget and what is left of
    the outer one, and its work counts towards the outer one too."""
    outer = _STATE.meter
    if budget is None:
        yield outer
        return
    meter = Meter(budget, outer)
    _STATE.meter = meter
    try:
        yield meter
    finally:
        _STATE.meter = outer
        if outer is not None:
            outer.work += meter.work
