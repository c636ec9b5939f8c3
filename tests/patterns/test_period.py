"""The static period and validation over it (#24): a pattern is checked against the per-cycle cap
in every cycle of its period (a bounded, fixed sample when the period is unknown or long), and
the per-layer cap thins or mutes a cycle at play time."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.patterns import evaluate
from bandstand.patterns.budget import QueryBudget
from bandstand.patterns.cycle_cap import CYCLE_BUDGET, MAX_EVENTS_PER_CYCLE, play_cycle, thin
from bandstand.patterns.density import walk
from bandstand.patterns.expr.parser import parse
from bandstand.patterns.methods import get_registry
from bandstand.patterns.period import MAX_PERIOD, mini_period, static_period
from bandstand.patterns.validate import (
    PERIOD_CYCLES,
    SAMPLED_FIRST,
    SAMPLED_LATER,
    validate_pattern,
)

_NO_CLOCK = QueryBudget(max_work=CYCLE_BUDGET.max_work, max_seconds=3600)  # only the work decides here


def _period(code: str) -> int | None:
    return static_period(list(walk(parse(code))), get_registry())


def _cycle(pattern: Any, cycle: int) -> list[tuple[Fraction, str]]:
    """The onsets of `cycle`, relative to its start, with their values."""
    return sorted((Fraction(h.whole.begin) - cycle, repr(h.value)) for h in pattern.query_arc(cycle, cycle + 1)
                  if h.has_onset())


@pytest.mark.parametrize(("code", "period"), [
    ('s("<bd bd bd bd [bd*1024]>")', 5),
    ('s("bd sd")', 1),
    ('s("<a <b c>>")', 4),  # the inner alternation moves on once per turn of the outer
    ('s("<a@3 b>")', 4),
    ('s("<a b>, <c d e>")', 6),
    ('s("bd").slow(3)', 3),
    ('s("<a b c>").fast(1.5)', 6),
    ('s("a/2 b")', 2),
    ('s("{a b, c d e}")', 3),
    ('s("<a b>").every(3, x => x.fast(2))', 6),
    ('s("a b c d").iter(4)', 4),
    ('s("<a b>").iter(4)', 8),  # iter's copies move on once per 4 cycles
    ('s("<a b>").chunk(4, x => x.fast(2))', 8),
    ('cat(s("<a b>"), s("c"))', 4),
    ('note("c3 e3".add("<0 3 5>")).s("piano").jux(rev).lpf(800)', 3),
    ('s("bd(<3 5>,8)")', 2),
    ('note(sine.range(40, 60).segment(4)).slow(2)', 2),
])
def test_the_period_of_known_structures(code: str, period: int) -> None:
    assert _period(code) == period


@pytest.mark.parametrize("code", [
    's("bd? sd")', 's("[bd|sd]")', 's("bd").sometimes(x => x.fast(2))', 's("bd").chooseCycles(s("sd"))',
    'n(irand(8)).s("piano")', 's("bd").degradeBy(0.5)',
])
def test_random_choices_have_no_period(code: str) -> None:
    assert _period(code) is None


def test_a_period_too_long_to_mean_anything_is_none() -> None:
    code = 's("<a b c>").slow(99991).slow(99989).every(9973, x => x.rev())'
    assert _period(code) is None and MAX_PERIOD < 3 * 99991 * 99989 * 9973
    assert mini_period("<a b>/997 <c d>/991") == 2 * 997 * 991  # side by side: the least common multiple


_ATOM = st.sampled_from(["bd", "sd", "hh", "~"])
_SUFFIX = st.sampled_from(["", "", "*2", "*3", "/2", "/3", "*1.5", "@2", "!2", "(3,8)"])


def _group(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    items = st.lists(st.tuples(children, _SUFFIX).map("".join), min_size=1, max_size=4).map(" ".join)
    return st.one_of(items.map(lambda s: f"[{s}]"), items.map(lambda s: f"<{s}>"),
                     st.lists(items, min_size=2, max_size=3).map(lambda ls: "{" + ", ".join(ls) + "}"))


_MINI = st.recursive(_ATOM, _group, max_leaves=8)
_METHOD = st.sampled_from(["", ".slow(2)", ".slow(3)", ".fast(2)", ".fast(1.5)", ".every(3, x => x.fast(2))",
                           ".iter(4)", ".rev()", ".palindrome()", ".late(0.25)", ".ply(2)"])


@settings(max_examples=60, deadline=None)
@given(mini=_MINI, methods=st.lists(_METHOD, max_size=3))
def test_a_pattern_plays_the_same_again_after_its_period(mini: str, methods: list[str]) -> None:
    code = f's("{mini}")' + "".join(methods)
    period = _period(code)
    assert period is not None  # nothing random in this grammar
    if period > 48:
        return  # too long to compare here; the law is the same
    pattern = evaluate(code)
    # from cycle 1 on: a pattern shifted later reads cycle -1 at its start, where alternations
    # count as in JavaScript (-1 % 2 is -1); validation checks the first cycles one by one anyway
    for cycle in range(1, min(period, 6) + 1):
        assert _cycle(pattern, cycle) == _cycle(pattern, cycle + period), (code, period, cycle)


# --------------------------------------------------------------------------- validation over the period


def test_a_pattern_dense_only_in_a_late_cycle_is_refused_naming_the_cycle() -> None:
    report = validate_pattern('s("<bd bd bd bd [bd*1024]>")')
    assert not report.valid and report.period == 5 and report.cycles_checked == 5
    assert (report.busiest_cycle, report.busiest_cycle_events) == (4, 1024)
    assert "too dense: 1024 events in cycle 4 (the limit is 64 per cycle; the pattern repeats every 5 cycles)" in report.warnings


def test_every_cycle_of_a_period_up_to_64_is_checked() -> None:
    report = validate_pattern('s("<' + "bd " * 39 + '[bd*100]>")')
    assert not report.valid and report.period == 40 and report.busiest_cycle == 39
    fine = validate_pattern('s("<' + "bd " * 39 + '[bd*64]>")')
    assert fine.valid and fine.cycles_checked == 40 and fine.busiest_cycle_events == 64


def test_the_cap_holds_for_each_cycle_not_on_average() -> None:
    report = validate_pattern('s("<bd*100 ~ ~ ~>")')  # 25 a cycle on average over four cycles
    assert not report.valid and (report.busiest_cycle, report.busiest_cycle_events) == (0, 100)


def test_a_pattern_of_unknown_or_long_period_is_checked_on_a_fixed_sample() -> None:
    code = 's("<bd [bd*100]?>")'
    report = validate_pattern(code)
    assert report.period is None
    assert 4 < report.cycles_checked <= SAMPLED_FIRST + SAMPLED_LATER
    assert validate_pattern(code) == report  # the same cycles every time
    long = validate_pattern('s("bd").lastOf(1000, x => x.ply(100))')
    assert long.valid and long.period == 1000 and PERIOD_CYCLES < 1000
    assert 4 < long.cycles_checked <= SAMPLED_FIRST + SAMPLED_LATER


def test_a_pattern_whose_static_bound_fits_the_cap_needs_no_scan() -> None:
    report = validate_pattern('note("<c3 e3 g3 b3 d4 f4 a4 c5>").s("piano")')
    assert report.valid and report.period is None and report.cycles_checked == 4


def test_a_cycle_that_cannot_be_computed_within_its_budget_is_refused() -> None:
    report = validate_pattern('s("<bd bd bd bd bd [bd*1024]>").ply(32)')
    assert not report.valid
    assert any(w.startswith("too dense: cycle 5:") and "budget" in w for w in report.warnings), report.warnings


# --------------------------------------------------------------------------- the cap at play time


def test_thinning_keeps_the_cap_spread_through_the_cycle() -> None:
    haps = list(range(1024))
    kept = thin(haps, 64)
    assert len(kept) == 64 and kept[0] == 0 and kept[-1] == 1008 and kept == sorted(set(kept))
    assert thin(haps[:10], 64) == haps[:10]


def test_play_cycle_thins_to_the_cap_and_mutes_past_the_budget() -> None:
    pattern = evaluate('s("<bd [bd*1024]>")')
    assert play_cycle(pattern, 0).found == 1
    busy = play_cycle(pattern, 1, budget=_NO_CLOCK)
    assert busy.thinned and busy.found == 1024 and len(busy.haps) == MAX_EVENTS_PER_CYCLE and not busy.muted
    heavy = play_cycle(pattern, 1, budget=QueryBudget(max_work=500, max_seconds=3600))
    assert heavy.haps == () and "500" in heavy.muted and not heavy.thinned
