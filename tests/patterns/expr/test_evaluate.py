"""Evaluating code: the same events as the Python API, unknown names, errors at positions."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from bandstand.errors import PatternError, PatternParseError, UnknownFunctionError
from bandstand.patterns import evaluate, mini
from bandstand.patterns.methods import REGISTRY


def events(pat: Any, begin: Any = 0, end: Any = 2) -> list[tuple[Any, ...]]:
    out = []
    for h in pat.query_arc(begin, end):
        whole = None if h.whole is None else (Fraction(h.whole.begin), Fraction(h.whole.end))
        out.append((whole, Fraction(h.part.begin), Fraction(h.part.end), repr(h.value)))
    return sorted(out, key=repr)


def same(code: str, api: Any, begin: Any = 0, end: Any = 2) -> None:
    assert events(evaluate(code), begin, end) == events(api, begin, end)


def call(name: str, *args: Any) -> Any:
    return REGISTRY.call(name, *args)


def test_method_chain_equals_the_api() -> None:
    same("s('bd').fast(2)", call("s", "bd").fast(2))
    same("fast(2, s('bd'))", call("s", "bd").fast(2))
    same("note(60).s('sawtooth').lpf(600)", call("note", 60).s("sawtooth").lpf(600))


def test_arrow_functions_and_partial_application() -> None:
    base = call("s", "bd")
    expected = base.every(2, lambda p: p.fast(2))
    same("s('bd').every(2, x => x.fast(2))", expected, 0, 4)
    same("s('bd').every(2, (x) => x.fast(2))", expected, 0, 4)
    same("s('bd').every(2, fast(2))", expected, 0, 4)
    same("s('bd').every(2, rev)", base.every(2, lambda p: p.rev()), 0, 4)


def test_two_parameter_arrows_get_the_index_strudel_passes() -> None:
    base = mini("0 2")
    layers = [base.late(Fraction(i, 8)).add(i * 2) for i in range(3)]
    same('"0 2".echoWith(3, 1/8, (p, n) => p.add(n * 2))', call("stack", *layers), 0, 2)
    same('"0 2".stutWith(3, 1/8, (p, i, unused) => p)', base.echoWith(3, Fraction(1, 8), lambda p: p))
    for bad, words in [
        ("s('bd').every(2, (x, x) => x)", "named twice"),
        ("s('bd').every(2, (x, 1) => x)", "expected '\\)' to close"),
    ]:
        with pytest.raises(PatternParseError, match=words):
            evaluate(bad)


def test_mini_notation_constructors() -> None:
    same("mini('a [b c]', '<d e>')", call("seq", mini("a [b c]"), mini("<d e>")))
    same("m('a b', 4)", mini("a b"))
    same("h('\"a b\"')", mini("a b"))
    same("minify('a b')", mini("a b"))
    same('mini("a b")', mini("a b"))  # a "…" string is mini-notation already: it passes through
    hap = evaluate("m('a b', 10)").query_arc(0, 1)[0]
    assert hap.context == ((10, 11),)  # the offset moves where the haps point in the code
    with pytest.raises(PatternParseError, match="in its own quotes"):
        evaluate("h('a b')")
    with pytest.raises(PatternError, match="takes mini-notation strings"):
        evaluate("mini(true)")


def test_arrays_numbers_and_arithmetic() -> None:
    same(
        "stack(s('bd'), [s('sd'), s('hh')])",
        call("stack", call("s", "bd"), [call("s", "sd"), call("s", "hh")]),
    )
    same("s('bd').late(1/8)", call("s", "bd").late(0.125))
    same("s('bd').late(-1/8 + 0.25 * 2)", call("s", "bd").late(0.375))
    same("n(-1.5)", call("n", -1.5))


def test_string_kinds_follow_the_repl() -> None:
    same('s("bd sd").fast(2)', call("s", mini("bd sd")).fast(2))
    same("s(`bd sd`).fast(2)", call("s", mini("bd sd")).fast(2))
    same("s('bd sd')", call("s", "bd sd"))
    assert len(evaluate("s('bd sd')").query_arc(0, 1)) == 1
    same('"c3 e3".note()', mini("c3 e3").note())
    same('"<0 2>".add("10 20").n()', mini("<0 2>").add(mini("10 20")).n())
    with pytest.raises(PatternError, match=r"note\(\) needs a value"):
        evaluate("note()")


def test_haps_point_at_their_text_in_the_code() -> None:
    haps = evaluate('stack(s("bd sd"), note(`c3`))').query_arc(0, 1)
    assert sorted(h.context for h in haps) == [((9, 11),), ((12, 14),), ((24, 26),)]


def test_mini_errors_are_placed_in_the_code() -> None:
    with pytest.raises(PatternParseError) as info:
        evaluate('stack(s("bd"),\n  n("0 [1 2"))')
    assert "in mini-notation" in str(info.value)
    assert "line 2, column 12" in str(info.value)
    assert info.value.caret() == '  n("0 [1 2"))\n           ^'


def test_variants_and_constants() -> None:
    same("n(1).add.squeeze(seq(0, 10))", call("n", 1).add.squeeze(call("seq", 0, 10)))
    same("sine.range(1, 5).segment(4)", REGISTRY.get("sine").value.range(1, 5).segment(4))
    same("silence", REGISTRY.get("silence").value)


@pytest.mark.parametrize(
    ("code", "name", "column", "suggestion"),
    [
        ("s('bd').fsat(2)", "fsat", 9, "fast"),
        ("sond('bd')", "sond", 1, "sound"),
        ("n(1).add.sqeeze(2)", "add.sqeeze", 10, "add.squeeze"),
        ("stack(s('bd'), s('sd').revv2())", "revv2", 24, "revv"),
    ],
)
def test_unknown_functions_name_the_column_and_the_closest(
    code: str, name: str, column: int, suggestion: str
) -> None:
    with pytest.raises(UnknownFunctionError) as info:
        evaluate(code)
    err = info.value
    assert err.name == name
    assert err.column == column
    assert err.suggestion == suggestion
    assert f"'{name}'" in str(err) and f"column {column}" in str(err) and suggestion in str(err)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("'bd'.fast(2)", "needs a pattern before the dot"),
        ("s('bd').fast", "must be called"),
        ("sine(1)", "is a pattern, not a function"),
        ("1 + s('bd')", "works on numbers only"),
        ("s('bd').late(1/0)", "division by zero"),
        ("s('bd').fast(1e9)", "out of range"),
        ("42", "must make a pattern"),
        ("s('bd').every(2, x => 1)", "must return a pattern"),
        ("s('bd').every(2, (x, y) => x.fast(y))", "'y' is undefined here"),
    ],
)
def test_evaluation_errors(code: str, words: str) -> None:
    with pytest.raises(PatternError, match=words) as info:
        pat = evaluate(code)
        pat.query_arc(0, 4)
    assert info.value.column is not None


def test_contextual_words_are_names() -> None:
    same('s("bd").set(n(3))', call("s", mini("bd")).set(call("n", 3)))
    same('set(n(3), s("bd"))', call("s", mini("bd")).set(call("n", 3)))
