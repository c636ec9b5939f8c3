"""Mini-notation: errors with column and caret, seeds, weights, and exact structure."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bandstand.errors import PatternParseError
from bandstand.patterns import mini
from bandstand.patterns.mini_parse import Atom, Element, Seq, parse_mini


def spans(text: str, begin: int = 0, end: int = 1) -> list[tuple[Fraction, Fraction, object]]:
    haps = mini(text).query_arc(begin, end)
    return sorted(
        (Fraction(h.whole.begin), Fraction(h.whole.end), h.value)
        for h in haps
        if h.whole is not None
    )


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("a [b c", 7),
        ("a ]", 3),
        ("<a b", 5),
        ("a(3", 4),
        ("", 1),
        ("a b@", None),
        ("a, b | c", 6),
        ("{a b}%", 7),
        ('a "b"', 3),
    ],
)
def test_parse_errors_name_the_column(text: str, column: int | None) -> None:
    if column is None:
        assert spans(text)  # bare @ is allowed (weight + 1)
        return
    with pytest.raises(PatternParseError) as info:
        mini(text)
    err = info.value
    assert err.column == column, err.message
    assert f"column {column}" in err.message
    if text:
        caret = err.caret().split("\n")
        assert caret[0] == text and caret[1] == " " * (column - 1) + "^"


def test_seeds_are_taken_in_order_of_completed_parse() -> None:
    ast = parse_mini("a? | b?")
    assert ast.alignment == "rand" and ast.seed == 2
    first, second = (seq.source[0] for seq in ast.source)
    assert first.ops[0].args["seed"] == 0 and second.ops[0].args["seed"] == 1


def test_weights_and_replication() -> None:
    assert spans("a@3 b") == [(0, Fraction(3, 4), "a"), (Fraction(3, 4), 1, "b")]
    assert spans("a@3@2 b")[0][:2] == (0, Fraction(4, 5))
    assert spans("a _ _ b")[0][:2] == (0, Fraction(3, 4))
    assert [s[2] for s in spans("a! b")] == ["a", "a", "b"]
    assert [s[2] for s in spans("a!! b")] == ["a", "a", "a", "b"]
    assert [s[2] for s in spans("a ! ! b")] == ["a", "a", "a", "b"]


def test_alternation_and_polymeter() -> None:
    assert [s[2] for s in spans("<a b> c", 0, 2)] == ["a", "c", "b", "c"]
    assert spans("<a@3 b>", 0, 3) == [(0, 3, "a")]
    assert [s[2] for s in spans("<a b>*2")] == ["a", "b"]
    assert [s[2] for s in spans("{a b c}%4")] == ["a", "b", "c", "a"]
    assert [s[2] for s in spans("{a b, c d e}")] == ["a", "c", "b", "d"]


def test_atoms() -> None:
    assert [s[2] for s in spans("1e3 007 -0 -1.5 c3 eb4 f#2")] == [
        1000,
        7,
        0,
        -1.5,
        "c3",
        "eb4",
        "f#2",
    ]
    assert [s[2] for s in spans("bd:3 a:1:2")] == [["bd", 3], ["a", 1, 2]]
    assert spans("~ - a") == [(Fraction(2, 3), 1, "a")]
    assert [s[2] for s in spans("0 .. 3")] == [0, 1, 2, 3]


def test_euclid_rotation_goes_later() -> None:
    starts = [s[0] * 8 for s in spans("a(3,8,2)")]
    assert starts == [0, 2, 5]  # 10100100
    assert [s[0] * 8 for s in spans("a(3,8)")] == [0, 3, 6]
    assert [s[0] * 8 for s in spans("a(-3,8)")] == [1, 2, 4, 5, 7]


def test_ast_shape() -> None:
    ast = parse_mini("a [b, c]*2")
    assert isinstance(ast, Seq) and ast.alignment == "fastcat"
    first, second = ast.source
    assert (
        isinstance(first, Element) and isinstance(first.source, Atom) and first.source.source == "a"
    )
    assert isinstance(second.source, Seq) and second.source.alignment == "stack"
    assert second.ops[0].kind == "stretch" and second.ops[0].args["type"] == "fast"


def test_locations_point_into_the_text() -> None:
    text = "bd [sd hh]"
    haps = mini(text, offset=10).query_arc(0, 1)
    for h in haps:
        ((start, end),) = h.context
        assert text[start - 10 : end - 10] == h.value
