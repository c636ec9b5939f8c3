"""Query budgets: every query stops, with `PatternBudgetExceeded` naming the limit, once it
has done more work or taken longer than its budget — however the code multiplies density."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bandstand.errors import PatternBudgetExceeded, PatternError
from bandstand.patterns import evaluate
from bandstand.patterns.budget import QueryBudget, charge, metered
from bandstand.patterns.validate import check_pattern_async, validate_async, validate_pattern

CHAINED = 's("bd").fast(1000).fast(1000).fast(1000).fast(1000)'
PATTERNED = 's("bd").fast("<1000000>").fast("<1000000>")'


@pytest.mark.parametrize("code", [CHAINED, PATTERNED, 's("bd").segment(1000).ply(1000).fast(1000)'])
def test_a_query_past_its_work_budget_stops_and_names_the_limit(code: str) -> None:
    pattern = evaluate(code)
    with pytest.raises(PatternBudgetExceeded) as info:
        pattern.query_arc(0, 1, budget=QueryBudget(max_work=10_000))
    assert info.value.limit == "events" and info.value.budget == 10_000
    assert "10000" in str(info.value) and isinstance(info.value, PatternError)
    with pytest.raises(PatternBudgetExceeded):
        pattern.query_arc(0, 1)  # the default budget stops it too


def test_the_time_limit_is_a_budget_too() -> None:
    pattern = evaluate(CHAINED)
    with pytest.raises(PatternBudgetExceeded) as info:
        pattern.query_arc(0, 1, budget=QueryBudget(max_work=10**12, max_seconds=0.01))
    assert info.value.limit == "seconds" and "0.01 s" in str(info.value)


def test_ordinary_queries_fit_and_nested_meters_take_the_tighter_budget() -> None:
    assert len(evaluate('s("bd*4, hh*8")').query_arc(0, 16, budget=QueryBudget(max_work=2_000))) == 192
    with metered(QueryBudget(max_work=100)), pytest.raises(PatternBudgetExceeded):
        evaluate('s("bd*64")').query_arc(0, 4)  # the query's default budget is looser: 100 wins
    with metered(QueryBudget(max_work=10**6)) as outer:
        with metered(QueryBudget(max_work=50)), pytest.raises(PatternBudgetExceeded):
            evaluate('s("bd*64")').query_arc(0, 4, budget=None)  # the inner 50 wins
        assert outer is not None and 50 < outer.work < 100  # the inner work counted outside too
    charge(10**9)  # no meter running: free
    with pytest.raises(ValueError, match="positive"):
        QueryBudget(max_work=0)


def test_meters_belong_to_their_thread() -> None:
    errors: list[BaseException] = []

    def other() -> None:
        try:
            evaluate('s("bd*64")').query_arc(0, 4)  # its own default budget, not the tiny one below
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with metered(QueryBudget(max_work=5)):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert errors == []


@pytest.mark.parametrize("code", [CHAINED, PATTERNED])
def test_validation_refuses_the_issue_16_patterns(code: str) -> None:
    report = validate_pattern(code)
    assert not report.valid and report.error is not None
    assert report.error.startswith("too dense") and "budget" in report.error


async def test_validation_off_the_event_loop_keeps_the_loop_free() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        reports = await asyncio.gather(
            validate_async(CHAINED), validate_async(PATTERNED), validate_async('s("bd sd")')
        )
    finally:
        task.cancel()
    assert [r.valid for r in reports] == [False, False, True]
    assert ticks > 1  # the loop ran while the workers validated
    checked = await check_pattern_async('note("c3 e3")', scale="C major")
    assert checked.report.valid and checked.pattern is not None and len(checked.events) == 8


def test_large_lists_are_refused_before_they_are_built() -> None:
    with metered(QueryBudget(max_work=10**6)) as outer:
        with metered(QueryBudget(max_work=100)), pytest.raises(PatternBudgetExceeded) as info:
            evaluate('n("0 .. 1000")').query_arc(0, 1, budget=None)
        assert outer is not None and outer.work <= 101  # reserved, refused, never built
    assert info.value.budget == 100
