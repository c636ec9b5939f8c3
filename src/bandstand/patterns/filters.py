"""A pattern's haps tested or mapped by a function of values: Strudel's `filterHaps`
(and its alias `filter`), `filterValues`, `filterWhen` and `withValue` (`fmap`) — and
`tag`, which marks haps for such a test (`hap.hasTag(name)`).

The function comes from code (the expression language's value functions, such as
`hap => hap.value.s === 'hh'`) and is called at query time, once per hap; what it
answers is read with JavaScript's truthiness, as Strudel reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bandstand.errors import PatternError
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.values import js_truthy

__all__ = ["filter_haps", "filter_values", "filter_when", "has_tag", "tag", "with_value"]


def filter_haps(test: Callable[[Hap], Any], pat: Pattern) -> Pattern:
    """The haps for which `test(hap)` is truthy (a new pattern: its steps are unknown)."""
    return pat.filter_haps(lambda hap: js_truthy(test(hap)))


def filter_values(test: Callable[[Any], Any], pat: Pattern) -> Pattern:
    """The haps whose value passes `test` (the steps are kept)."""
    return pat.filter_values(lambda value: js_truthy(test(value)))


def filter_when(test: Callable[[Any], Any], pat: Pattern) -> Pattern:
    """The haps whose onset (`whole.begin`, in cycles) passes `test`."""

    def passes(hap: Hap) -> bool:
        if hap.whole is None:  # Strudel reads `hap.whole.begin`: a continuous value has none
            raise PatternError("filterWhen: a continuous pattern (a signal) has no onsets to test; segment it first")
        return js_truthy(test(hap.whole.begin))

    return pat.filter_haps(passes)


def with_value(func: Callable[[Any], Any], pat: Pattern) -> Pattern:
    """Every hap's value mapped by `func` (the steps are kept)."""
    return pat.with_value(func)


def tag(pat: Pattern, name: Any) -> Pattern:
    """`pat.tag(name)`: every hap is marked with `name` (in its context: the sound does not change)."""
    mark = ("tag", name if isinstance(name, str) else str(name))
    return pat.with_context(lambda context: (*context, mark))


def has_tag(hap: Hap, name: Any) -> bool:
    """Whether `hap` was marked `name` by `tag` (a hap combined from two keeps both marks)."""
    return ("tag", name) in hap.context
