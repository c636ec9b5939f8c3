"""Exact time: fraction.js's float conversion, spans, cycles."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.patterns.time import TimeSpan, _farey, show_time, to_time


def naive_farey(
    p: float, limit: int = 10_000_000, max_steps: int = 30_000
) -> tuple[int, int] | None:
    """fraction.js's loop step by step (None when it would take too long to run here)."""
    a, b, c, d = 0, 1, 1, 1
    n, dd = 0, 1
    steps = 0
    while b <= limit and d <= limit:
        steps += 1
        if steps > max_steps:
            return None
        m = (a + c) / (b + d)
        if p == m:
            if b + d <= limit:
                return a + c, b + d
            if d > b:
                return c, d
            return a, b
        if p > m:
            a, b = a + c, b + d
        else:
            c, d = c + a, d + b
        n, dd = (c, d) if b > limit else (a, b)
    return n, dd


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1 - 1e-9, allow_nan=False))
def test_batched_farey_equals_the_step_by_step_loop(p: float) -> None:
    expected = naive_farey(p)
    if expected is not None:
        assert _farey(p) == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10_000), st.integers(1, 10_000))
def test_simple_ratios_come_back_exactly(n: int, d: int) -> None:
    f = Fraction(n, d)
    if f.denominator <= 10_000:
        assert Fraction(to_time(n / d)) == f


def test_span_cycles_and_intersection() -> None:
    span = TimeSpan(to_time(Fraction(1, 2)), to_time(Fraction(5, 2)))
    assert [(show_time(s.begin), show_time(s.end)) for s in span.span_cycles()] == [
        ("1/2", "1"),
        ("1", "2"),
        ("2", "5/2"),
    ]
    zero = TimeSpan(to_time(1), to_time(1))
    assert zero.span_cycles() == [zero]
    a = TimeSpan(to_time(0), to_time(1))
    assert a.intersection(TimeSpan(to_time(1), to_time(2))) is None
    assert a.intersection(TimeSpan(to_time(0), to_time(0))) == TimeSpan(to_time(0), to_time(0))
    assert a.intersection(TimeSpan(to_time(Fraction(1, 2)), to_time(3))) == TimeSpan(
        to_time(Fraction(1, 2)), to_time(1)
    )
    assert Fraction(span.begin) == Fraction(1, 2)  # spans convert with fractions.Fraction
