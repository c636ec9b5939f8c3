"""The compile cache: a bounded least-recently-used map one engine owns."""

from __future__ import annotations

import pytest

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
