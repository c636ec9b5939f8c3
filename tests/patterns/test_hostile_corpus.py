"""The hostile corpus and random chains of density operations: every reply is refused or
answered within the validation budget — the engine's own meter counts the work, so this
states the budget holds, with no clock in the test."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.patterns.budget import QueryBudget, metered
from bandstand.patterns.cache import CompileCache
from bandstand.patterns.validate import VALIDATION_BUDGET, check_pattern
from tests.patterns.hostile_corpus import ALL, HOSTILE

# The meter checks after each charge, and one charge (a layer passing on the haps the
# layers below made and counted) is at most what was counted before it: a validation
# stops within twice its work budget.
_SLACK = VALIDATION_BUDGET.max_work
# A deadline no test machine reaches: only the work budget decides here.
_NO_CLOCK = QueryBudget(max_work=VALIDATION_BUDGET.max_work, max_seconds=3600)


def _validate_counted(code: str) -> tuple[bool, str, int]:
    with metered(QueryBudget(max_work=10**12, max_seconds=3600)) as outer:
        checked = check_pattern(code, cache=CompileCache(), work=_NO_CLOCK)
    assert outer is not None
    return checked.report.valid, checked.report.error or "", outer.work


def test_the_corpus_covers_every_kind_of_attack() -> None:
    assert set(HOSTILE) == {
        "chained fast",
        "patterned fast",
        "huge ply, segment, euclid",
        "deeply nested mini brackets",
        "giant numbers",
        "long strings",
        "recursion depth",
        "late cycles",
    }
    assert all(len(codes) >= 4 for codes in HOSTILE.values())


@pytest.mark.parametrize("code", ALL, ids=[f"{i}" for i in range(len(ALL))])
def test_every_hostile_reply_is_refused_within_the_budget(code: str) -> None:
    valid, _, work = _validate_counted(code)
    assert not valid
    assert work <= VALIDATION_BUDGET.max_work + _SLACK


_FACTOR = st.one_of(
    st.integers(1, 1_000_000).map(str),
    st.sampled_from(["0.001", "1/3", "2.5"]),
    st.integers(1, 1_000_000).map(lambda n: f'"<1 {n}>"'),
    st.integers(1, 1_000_000).map(lambda n: f'"{n} 2"'),
    st.just("sine.range(1, 1000)"),
)
_COUNT = st.integers(1, 1024).map(str)
_OP = st.one_of(
    st.tuples(st.sampled_from(["fast", "hurry", "slow", "density"]), _FACTOR).map(
        lambda t: f".{t[0]}({t[1]})"
    ),
    st.tuples(st.sampled_from(["ply", "segment", "chop", "striate"]), _COUNT).map(
        lambda t: f".{t[0]}({t[1]})"
    ),
    st.tuples(_COUNT, _COUNT).map(lambda t: f".euclid({t[0]}, {t[1]})"),
    st.sampled_from([".jux(rev)", ".off(0.125, x => x.fast(2))", ".every(2, x => x.ply(4))"]),
)
_START = st.sampled_from(['s("bd")', 's("bd*16, hh*8")', 'n("0 .. 7")', 'note("c3 e3 g3")'])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_START, st.lists(_OP, min_size=1, max_size=6))
def test_random_chains_of_density_operations_stay_within_the_budget(
    start: str, ops: list[str]
) -> None:
    code = start + "".join(ops)
    valid, error, work = _validate_counted(code)
    assert work <= VALIDATION_BUDGET.max_work + _SLACK, code
    assert not (valid and error), code  # a verdict: valid, or refused with its reasons
