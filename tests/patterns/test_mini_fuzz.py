"""Mini-notation fuzzing: whatever the text, only PatternParseError comes out, quickly.

Thousands of random strings over the notation's alphabet (and any unicode),
plus deep nesting and huge counts: parsing either fails with our own
PatternParseError (with a column and a caret) or gives a pattern that can be
queried; the documented limits (`bandstand.patterns.mini_parse.LIMITS`) keep
every accepted pattern cheap.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.errors import PatternError, PatternParseError
from bandstand.patterns.budget import QueryBudget
from bandstand.patterns.mini import mini
from bandstand.patterns.mini_parse import LIMITS

ALPHABET = "abc0123456789~-_.^#@!?*/%:,|<>[]{}() \t\n'\"e"
TOKENS = [
    "a",
    "bd",
    "3",
    "-1",
    "0.5",
    "1e3",
    "~",
    "-",
    " ",
    " ",
    "[",
    "]",
    "<",
    ">",
    "{",
    "}",
    "}%3",
    "(3,8)",
    "(3,8,2)",
    "(",
    ")",
    ",",
    "|",
    " . ",
    ".",
    "..",
    " .. ",
    "*2",
    "/2",
    "*<2 3>",
    "!",
    "!3",
    "@",
    "@2",
    "_",
    "?",
    "?0.3",
    ":",
    ":2",
    "^",
    "#",
    "%",
]


def check(text: str) -> None:
    try:
        pat = mini(text)
    except PatternParseError as exc:
        assert exc.column is not None and exc.column >= 1
        assert exc.caret().endswith("^") or exc.caret() == ""
        return
    try:
        haps = pat.query_arc(0, 2)
    except PatternError as exc:  # a value the pattern cannot use, e.g. "{a}%x" steps
        assert exc.message.startswith("cannot query")
        return
    assert len(haps) <= 2 * LIMITS.max_events + 16


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_random_characters(text: str) -> None:
    check(text)


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join))
def test_random_tokens(text: str) -> None:
    check(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_unicode(text: str) -> None:
    check(text)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=400), st.sampled_from(["[", "<", "{"]))
def test_deep_nesting_is_bounded(depth: int, bracket: str) -> None:
    close = {"[": "]", "<": ">", "{": "}"}[bracket]
    text = bracket * depth + "a" + close * depth
    if depth <= LIMITS.max_depth:
        assert mini(text).query_arc(0, 1)
    else:
        try:
            mini(text)
        except PatternParseError as exc:
            assert "nest" in exc.message
        else:
            raise AssertionError("deep nesting was accepted")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        ["a*{}", "a!{}", "a@{}", "a({},8)", "a(3,{})", "{{a b}}%{}", "0 .. {}", "a/{}", "[a*{}]*{}"]
    ),
    st.integers(min_value=0, max_value=10**12),
)
def test_huge_counts_are_bounded(template: str, count: int) -> None:
    text = template.format(count, count)
    try:
        pat = mini(text)
    except PatternParseError:
        return
    # within the notation's own event limit, one cycle costs at most a few units of query
    # work per event (the default query budget is lower and would refuse the densest)
    budget = QueryBudget(max_work=8 * LIMITS.max_events, max_seconds=3600)
    assert len(pat.query_arc(0, 1, budget=budget)) <= LIMITS.max_events


def test_long_input_is_refused() -> None:
    try:
        mini("a " * LIMITS.max_length)
    except PatternParseError as exc:
        assert "longer" in exc.message
    else:
        raise AssertionError("a very long pattern was accepted")
