"""The compile cache: a bounded least-recently-used map one engine owns."""

from __future__ import annotations

import pytest

from bandstand.errors import PatternBudgetExceeded, PatternError
from bandstand.patterns.cache import CompileCache
from bandstand.patterns.validate import check_pattern


def test_least_recently_used_goes_first() -> None:
    cache = CompileCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2
    made: list[str] = []
    assert cache.get_or_make("d", lambda: made.append("d") or 4) == 4
    assert cache.get_or_make("d", lambda: made.append("again") or 5) == 4 and made == ["d"]
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(ValueError, match="at least one"):
        CompileCache(0)


def test_validation_uses_the_callers_cache_only() -> None:
    mine, theirs = CompileCache(), CompileCache()
    code = 's("bd sd").fast(2)'
    a = check_pattern(code, cache=mine)
    b = check_pattern(code, cache=theirs)
    assert len(mine) == len(theirs) == 1
    assert a.pattern is not b.pattern  # each cache evaluated the code itself
    assert check_pattern(code, scale="C major", cache=mine).pattern is a.pattern


def _haps(pattern: object, cycles: int = 4) -> list[tuple[object, ...]]:
    return [(h.whole, h.part, h.value, h.context) for h in pattern.query_arc(0, cycles)]  # type: ignore[attr-defined]


def test_mini_cache_keeps_strings_by_text_and_offset() -> None:
    from bandstand.patterns.mini import MiniCache, mini

    cache = MiniCache(4)
    text = "<[bd ~ ~ bd] [~ bd]> hh*2 [sd? cp|rim]"
    first = mini(text, offset=3, cache=cache)
    assert mini(text, offset=3, cache=cache) is first  # a value: shared as is
    moved = mini(text, offset=9, cache=cache)  # the same tree, its haps pointing elsewhere
    assert moved is not first and len(cache.trees) == 1 and len(cache.patterns) == 2
    for offset, pattern in ((3, first), (9, moved)):
        assert _haps(pattern) == _haps(mini(text, offset=offset))
    with pytest.raises(PatternError):
        mini("bd [sd", cache=cache)
    assert len(cache.trees) == 1  # a string that fails is not kept


def test_mini_cache_counts_the_same_work_under_a_budget() -> None:
    from bandstand.patterns.budget import QueryBudget, metered
    from bandstand.patterns.expr.evaluator import evaluate
    from bandstand.patterns.mini import MiniCache

    code = 'stack(s("<[bd ~ ~ bd] [~ bd]>").gain(0.8), n("0 [2 4]*2 <5 7>").scale("C:minor"))'
    cache = MiniCache()

    def work(**options: object) -> int:
        with metered(QueryBudget(max_work=10**9, max_seconds=1e6)) as meter:
            evaluate(code, **options)  # type: ignore[arg-type]
        assert meter is not None
        return meter.work

    unmade = work()
    assert work(minis=cache) == work(minis=cache) == unmade  # built, then taken from the cache
    evaluate(code)  # outside any budget: nothing to count, nothing changes
    assert _haps(evaluate(code, minis=cache)) == _haps(evaluate(code))
    tight = QueryBudget(max_work=unmade - 1, max_seconds=1e6)
    for minis in (None, cache):
        with pytest.raises(PatternBudgetExceeded), metered(tight):
            evaluate(code, minis=minis)


def test_validation_with_a_mini_cache_reports_the_same() -> None:
    from bandstand.patterns.mini import MiniCache

    minis = MiniCache(8)
    codes = ['s("bd*2 [~ sd]").gain(0.5)', 's("bd*2 [~ sd]").gain(0.6)', 'n("0 2").scale("C:major")']
    for code in codes * 2:
        with_cache = check_pattern(code, scale="C major", cache=CompileCache(), minis=minis)
        without = check_pattern(code, scale="C major", cache=CompileCache())
        assert with_cache.report == without.report
        assert [tuple(h) for h in with_cache.events] == [tuple(h) for h in without.events]
