"""Helpers for stating pattern equivalences in tests.

`assert_same_events(span, p, q)` queries both patterns over `span` and
requires the same haps (whole and part spans exact, equal values) as
multisets, like Tidal's `compareP`. `patterns()` and `spans()` are hypothesis
strategies for random patterns of integers and random fractional spans.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from bandstand.patterns import Hap, Pattern, pure, sequence, silence, slowcat, stack, stepcat
from bandstand.patterns.time import TimeSpan, to_time


def _key(h: Hap) -> tuple[Any, ...]:
    whole = None if h.whole is None else (Fraction(h.whole.begin), Fraction(h.whole.end))
    return (
        Fraction(h.part.begin),
        Fraction(h.part.end),
        whole is None,
        whole or (0, 0),
        repr(h.value),
    )


def events(pattern: Pattern, span: TimeSpan | tuple[Any, Any]) -> list[tuple[Any, ...]]:
    """The haps of `pattern` over `span` as sorted comparable tuples."""
    if not isinstance(span, TimeSpan):
        span = TimeSpan(to_time(span[0]), to_time(span[1]))
    return sorted(_key(h) for h in pattern.query_arc(span.begin, span.end))


def assert_same_events(span: TimeSpan | tuple[Any, Any], p: Pattern, q: Pattern) -> None:
    """`p` and `q` give the same haps over `span` (exact spans, equal values)."""
    a, b = events(p, span), events(q, span)
    if a != b:
        only_p = [e for e in a if e not in b][:5]
        only_q = [e for e in b if e not in a][:5]
        raise AssertionError(
            f"different events over {span}:\n  only in p: {only_p}\n  only in q: {only_q}"
        )


FACTORS = [Fraction(1, 2), Fraction(2), Fraction(3), Fraction(3, 2), Fraction(2, 3), Fraction(1)]


def _leaf() -> st.SearchStrategy[Pattern]:
    return st.one_of(st.integers(0, 9).map(pure), st.just(silence))


def _extend(children: st.SearchStrategy[Pattern]) -> st.SearchStrategy[Pattern]:
    lists = st.lists(children, min_size=1, max_size=4)
    return st.one_of(
        lists.map(lambda ps: sequence(*ps)),
        lists.map(lambda ps: stack(*ps)),
        lists.map(lambda ps: slowcat(*ps)),
        st.lists(st.tuples(st.integers(1, 3), children), min_size=1, max_size=3).map(
            lambda pairs: stepcat(*[[w, p] for w, p in pairs])
        ),
        st.tuples(children, st.sampled_from(FACTORS)).map(lambda t: t[0]._fast(t[1])),
        st.tuples(children, st.sampled_from([Fraction(1, 4), Fraction(1, 3), Fraction(3, 2)])).map(
            lambda t: t[0]._early(t[1])
        ),
    )


def patterns() -> st.SearchStrategy[Pattern]:
    """Random patterns of small integers: sequences, stacks, alternations, speed and shifts."""
    return st.recursive(_leaf(), _extend, max_leaves=10)


@st.composite
def spans(draw: Any, within_cycle: bool = False) -> TimeSpan:
    """A random span with small denominators; `within_cycle` keeps it inside one cycle."""
    d = draw(st.sampled_from([1, 2, 3, 4, 8]))
    begin = Fraction(draw(st.integers(0, 6 * d)), d)
    if within_cycle:
        cycle_end = int(begin) + 1
        length = Fraction(draw(st.integers(1, d)), d)
        end = min(begin + length, Fraction(cycle_end))
    else:
        end = begin + Fraction(draw(st.integers(1, 3 * d)), d)
    return TimeSpan(to_time(begin), to_time(end))
