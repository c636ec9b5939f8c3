"""Exact pattern time: rational cycles and time spans.

Time is a `gmpy2.mpq` (an exact rational that `fractions.Fraction(...)` accepts and
that is ~10x faster than `Fraction`). `to_time` converts numbers the way Strudel's
fraction.js does, so a float such as 0.1 becomes 1/10 rather than its binary
expansion. A `TimeSpan` is a half-open arc [begin, end) of cycles.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Final, NamedTuple

from gmpy2 import mpq

from bandstand.patterns.budget import charge

__all__ = ["ONE", "ZERO", "Time", "TimeSpan", "sam", "to_time"]

Time = Any  # an mpq; typed loosely because gmpy2 ships no precise stubs
ZERO = mpq(0)
ONE = mpq(1)
_FAREY_LIMIT = 10_000_000


def _farey(p: float) -> tuple[int, int]:
    """fraction.js's Farey-sequence approximation of 0 < p < 1 (denominators ≤ 10^7).

    Runs of steps in one direction are taken at once (binary search over the run
    length, with the same float mediants), so near-rational inputs stay fast.
    """
    a, b, c, d = 0, 1, 1, 1
    n, dd = 0, 1
    limit = _FAREY_LIMIT
    while b <= limit and d <= limit:
        m = (a + c) / (b + d)
        if p == m:
            if b + d <= limit:
                return a + c, b + d
            if d > b:
                return c, d
            return a, b
        if p > m:
            # right moves: a += c, b += d while p > mediant and b stays within the limit
            lo, hi = 1, (limit - b) // d + 1  # hi moves would make b exceed the limit
            # find the largest k in [1, hi] such that the first k moves are all taken
            while lo < hi:
                mid = (lo + hi + 1) // 2
                # move number mid is taken iff the mediant before it is < p and b before it <= limit
                ak, bk = a + (mid - 1) * c, b + (mid - 1) * d
                if bk <= limit and p > (ak + c) / (bk + d):
                    lo = mid
                else:
                    hi = mid - 1
            a, b = a + lo * c, b + lo * d
        else:
            lo, hi = 1, (limit - d) // b + 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                ck, dk = c + (mid - 1) * a, d + (mid - 1) * b
                if dk <= limit and p < (a + ck) / (b + dk):
                    lo = mid
                else:
                    hi = mid - 1
            c, d = c + lo * a, d + lo * b
        if b > limit:
            n, dd = c, d
        else:
            n, dd = a, b
    return n, dd


def _from_float(x: float) -> Time:
    if math.isnan(x) or math.isinf(x):
        raise ValueError(f"not a finite time: {x!r}")
    if x == int(x):
        return mpq(int(x))
    sign = 1
    if x < 0:
        sign, x = -1, -x
    z = 1
    if x >= 1:
        z = 10 ** math.floor(1 + math.log10(x))
        x /= z
    n, d = _farey(x)
    return mpq(sign * n * z, d)


_float_cache: dict[float, Time] = {}
_MPQ: Final = type(ZERO)


def to_time(x: Any) -> Time:
    """Convert a number (int, float, Fraction, mpq, numeric string) to exact time."""
    t = type(x)
    if t is _MPQ:  # already exact time (immutable: the same value, not a copy)
        return x
    if t is int:
        return mpq(x)
    if t is float:
        cached = _float_cache.get(x)
        if cached is None:
            cached = _from_float(x)
            if len(_float_cache) < 100_000:
                _float_cache[x] = cached
        return cached
    if t is bool:
        return mpq(int(x))
    if isinstance(x, Fraction):
        return mpq(x.numerator, x.denominator)
    if isinstance(x, str):
        return mpq(Fraction(x))
    if hasattr(x, "numerator") and hasattr(x, "denominator"):
        return mpq(x)
    raise TypeError(f"not a time value: {x!r}")


def sam(t: Time) -> Time:
    """The start of the cycle that `t` lies in."""
    return mpq(math.floor(t))


class TimeSpan(NamedTuple):
    """A half-open arc of time [begin, end) in cycles (exact rationals).

    An immutable value object. It is a NamedTuple rather than a frozen
    dataclass because spans are made millions of times per second on the query
    path, and a tuple is built several times faster (the speed budget is
    measured against Strudel by benchmarks/patterns.py).
    """

    begin: Time
    end: Time

    @staticmethod
    def of(begin: Any, end: Any) -> TimeSpan:
        """A span from any numbers accepted by `to_time`."""
        return TimeSpan(to_time(begin), to_time(end))

    @property
    def duration(self) -> Time:
        return self.end - self.begin

    def span_cycles(self) -> list[TimeSpan]:
        """Split at cycle boundaries (a zero-width span stays one span)."""
        begin, end = self.begin, self.end
        if begin == end:
            return [self]
        end_sam = math.floor(end)
        spans = []
        while end > begin:
            charge()  # a span of a billion cycles is a billion pieces: the query's budget stops it
            bs = math.floor(begin)
            if bs == end_sam:
                spans.append(TimeSpan(begin, end))
                break
            nxt = mpq(bs + 1)
            spans.append(TimeSpan(begin, nxt))
            begin = nxt
        return spans

    def cycle_arc(self) -> TimeSpan:
        """The same duration shifted to start within cycle zero."""
        b = self.begin - math.floor(self.begin)
        return TimeSpan(b, b + (self.end - self.begin))

    def with_cycle(self, func: Any) -> TimeSpan:
        """Apply `func` to both ends relative to the cycle of `begin`."""
        s = mpq(math.floor(self.begin))
        return TimeSpan(s + func(self.begin - s), s + func(self.end - s))

    def intersection(self, other: TimeSpan) -> TimeSpan | None:
        """The overlap, or None (a point overlap at the end of a real span is none)."""
        b = self.begin if self.begin > other.begin else other.begin
        e = self.end if self.end < other.end else other.end
        if b > e:
            return None
        if b == e:
            if b == self.end and self.begin < self.end:
                return None
            if b == other.end and other.begin < other.end:
                return None
        return TimeSpan(b, e)

    def intersection_e(self, other: TimeSpan) -> TimeSpan:
        result = self.intersection(other)
        if result is None:
            raise ValueError("time spans do not intersect")
        return result

    def show(self) -> str:
        return f"{show_time(self.begin)} → {show_time(self.end)}"


def show_time(t: Time) -> str:
    """An exact rational as "n/d" (integers without a denominator)."""
    return str(t.numerator) if t.denominator == 1 else f"{t.numerator}/{t.denominator}"
