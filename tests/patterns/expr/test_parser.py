"""The expression parser: tree shapes, errors with columns and carets, limits, fuzzing."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import PatternError, PatternParseError
from bandstand.patterns.expr import ast
from bandstand.patterns.expr.limits import Limits
from bandstand.patterns.expr.parser import parse


def test_call_chain_and_string_kinds() -> None:
    tree = parse('s("bd sd").fast(2)')
    assert tree == ast.Call(
        ast.Member(ast.Call(ast.Name("s", 0), (ast.Str("bd sd", True, 2),), 0), "fast", 11),
        (ast.Num(2, 16),),
        11,
    )
    assert parse("'bd sd'") == ast.Str("bd sd", False, 0)
    assert parse("`bd sd`") == ast.Str("bd sd", True, 0)


@pytest.mark.parametrize(
    ("code", "value"),
    [
        ("1", 1),
        ("-1", -1),
        ("0.25", 0.25),
        ("-.5", -0.5),
        ("1e3", 1000),
        ("2.5e-1", 0.25),
        ("+3", 3),
    ],
)
def test_numbers(code: str, value: float) -> None:
    tree = parse(code)
    assert isinstance(tree, ast.Num)
    assert tree.value == value


def test_arrow_functions_as_arguments() -> None:
    for code in ("p.every(4, x => x.fast(2))", "p.every(4, (x) => x.fast(2))"):
        tree = parse(code)
        assert isinstance(tree, ast.Call)
        arrow = tree.args[1]
        assert isinstance(arrow, ast.Arrow)
        assert arrow.param == "x"
        assert isinstance(arrow.body, ast.Call)


def test_variant_member_arrays_objects_and_arithmetic() -> None:
    tree = parse('n("0 2").add.squeeze("<0 3>")')
    assert isinstance(tree, ast.Call)
    assert isinstance(tree.callee, ast.Member) and tree.callee.name == "squeeze"
    assert isinstance(tree.callee.target, ast.Member) and tree.callee.target.name == "add"
    arr = parse("[1, 'a', [2],]")
    assert isinstance(arr, ast.Array) and len(arr.items) == 3
    obj = parse('{a: "x", "b c": 2, 3: true}')
    assert isinstance(obj, ast.Object)
    assert [k for k, _ in obj.entries] == ["a", "b c", "3"]
    expr = parse("1/8 + 2*3")
    assert isinstance(expr, ast.Binary) and expr.op == "+"


def test_comments_and_trailing_semicolons() -> None:
    code = '// the beat\ns("bd*4") /* four on the floor */ ;;'
    tree = parse(code)
    assert isinstance(tree, ast.Call)


@pytest.mark.parametrize(
    ("code", "column", "words"),
    [
        ('s("bd"', 7, "expected ')'"),
        ("s(\"bd\").fast(2) s('x')", 17, "on its own line"),
        ("a = 1", 3, "assignment"),
        ("new Pattern()", 1, "'new' is JavaScript"),
        ("this.x", 1, "'this' is JavaScript"),
        ("x => x", 1, "only allowed as an argument"),
        ("a[0", 4, "to close '['"),
        ('"abc', 1, "unterminated string"),
        ("`a${b}`", 3, "template interpolation"),
        ("a\u200bb", 2, "zero width space"),
        ("s('bd').", 9, "expected a method name"),
        ("1.2.3", 4, "unexpected"),
        ("12abc", 3, "malformed number"),
        ("{__proto__: 1}", 2, "not allowed"),
        ("p ? a b", 7, "expected ':'"),
        ("/* open", 1, "unterminated comment"),
        ("'\\x41'", 2, "unsupported escape"),
    ],
)
def test_errors_name_the_column_and_draw_a_caret(code: str, column: int, words: str) -> None:
    with pytest.raises(PatternParseError) as info:
        parse(code)
    err = info.value
    assert words in str(err)
    assert err.column == column
    assert f"column {column}" in str(err)
    caret = err.caret()
    line, marker = caret.split("\n")
    assert marker == " " * (column - 1) + "^"
    assert line == code.split("\n")[0] or "\n" in code


def test_empty_code() -> None:
    for code in ("", "  // nothing\n", ";"):
        with pytest.raises(PatternParseError, match=r"empty code|unexpected"):
            parse(code)


def test_errors_on_a_later_line_name_the_line() -> None:
    with pytest.raises(PatternParseError) as info:
        parse('stack(\n  s("bd"),\n  s("hh") s("sd"))')
    assert "line 3, column 11" in str(info.value)
    assert info.value.caret() == '  s("hh") s("sd"))\n          ^'


def test_limits_are_enforced() -> None:
    small = Limits(
        max_source_length=50, max_depth=5, max_arguments=3, max_tokens=30, max_string_length=4
    )
    with pytest.raises(PatternParseError, match="code too long"):
        parse("s('bd')" * 10, small)
    with pytest.raises(PatternParseError, match="nested too deeply"):
        parse("f(f(f(f(f(f(1))))))", small)
    with pytest.raises(PatternParseError, match="nested too deeply"):
        parse("p.a().b().c().d().e().f()", small)
    with pytest.raises(PatternParseError, match="too many items"):
        parse("f(1,2,3,4)", small)
    with pytest.raises(PatternParseError, match="too many tokens"):
        parse("f(1,2).a(1).b(1).c(1).d(1).e(1).f(1)", Limits(max_tokens=30))
    with pytest.raises(PatternParseError, match="string too long"):
        parse('"abcde"', small)


def test_default_limits_bound_deep_nesting_without_recursion_errors() -> None:
    for code in (
        "(" * 5000 + "1" + ")" * 5000,
        "[" * 3000,
        "-" * 3000 + "1",
        "f(" * 2000,
        "x.f()" * 1500,
    ):
        with pytest.raises(PatternParseError):
            parse(code)


_ALPHABET = st.sampled_from(
    [
        *"()[]{}.,;:=>+-*/'\"`$_ \n\\!?%<>|&~@#",
        "s",
        "fast",
        "x",
        "=>",
        "1",
        "0.5",
        "e",
        "//",
        "/*",
        "${",
    ]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join))
def test_fuzz_only_our_errors_come_out(code: str) -> None:
    with contextlib.suppress(PatternError):
        parse(code)


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_arbitrary_text(code: str) -> None:
    with contextlib.suppress(PatternError):
        parse(code)


# --------------------------------------------------------------------------- round trip


def _show(node: ast.Node) -> str:
    """Source text for a tree (fully parenthesized where precedence could matter)."""
    if isinstance(node, ast.Num):
        return repr(node.value) if node.value >= 0 else f"({node.value!r})"
    if isinstance(node, ast.Str):
        quote = '"' if node.mini else "'"
        return quote + node.value + quote
    if isinstance(node, ast.Bool):
        return "true" if node.value else "false"
    if isinstance(node, ast.Name):
        return node.name
    if isinstance(node, ast.Array):
        return "[" + ", ".join(_show(i) for i in node.items) + "]"
    if isinstance(node, ast.Object):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in node.entries) + "}"
    if isinstance(node, ast.Member):
        return f"{_operand(node.target)}.{node.name}"
    if isinstance(node, ast.Call):
        return f"{_operand(node.callee)}(" + ", ".join(_show(a) for a in node.args) + ")"
    if isinstance(node, ast.Arrow):
        return f"{node.param} => {_show(node.body)}"
    if isinstance(node, ast.Binary):
        return f"({_show(node.left)} {node.op} {_show(node.right)})"
    raise AssertionError(node)


def _operand(node: ast.Node) -> str:
    """A callee or member target: `1.x` would lex as a number, so numbers get parentheses."""
    return f"({_show(node)})" if isinstance(node, ast.Num) else _show(node)


def _strip(node: ast.Node) -> object:
    """The tree without positions."""
    if isinstance(node, ast.Num | ast.Str | ast.Bool | ast.Name):
        return (type(node).__name__, *(getattr(node, f) for f in node.__slots__ if f != "pos"))  # type: ignore[union-attr]
    if isinstance(node, ast.Array):
        return ("Array", tuple(_strip(i) for i in node.items))
    if isinstance(node, ast.Object):
        return ("Object", tuple((k, _strip(v)) for k, v in node.entries))
    if isinstance(node, ast.Member):
        return ("Member", _strip(node.target), node.name)
    if isinstance(node, ast.Call):
        return ("Call", _strip(node.callee), tuple(_strip(a) for a in node.args))
    if isinstance(node, ast.Arrow):
        return ("Arrow", node.param, _strip(node.body))
    if isinstance(node, ast.Binary):
        return ("Binary", node.op, _strip(node.left), _strip(node.right))
    raise AssertionError(node)


_IDENT = st.from_regex(r"[a-zA-Z_$][a-zA-Z0-9_$]{0,6}", fullmatch=True).filter(
    lambda s: s not in {"true", "false", "new", "this", "function", "return", "in", "of", "if", "do", "for",
                        "var", "let", "const", "void", "with", "try", "case", "else", "get", "set"}
    and s not in {"typeof", "delete", "await", "async", "yield", "class", "super", "throw", "while"}
)  # fmt: skip
_LEAF = st.one_of(
    st.integers(0, 10**6).map(lambda n: ast.Num(n, 0)),
    st.sampled_from([0.5, 0.25, 1.5, 3.75]).map(lambda f: ast.Num(f, 0)),
    st.integers(-1000, -1).map(lambda n: ast.Num(n, 0)),
    st.tuples(st.text(st.sampled_from("abc d~*[]<>:0123"), max_size=8), st.booleans()).map(
        lambda t: ast.Str(t[0], t[1], 0)
    ),
    st.booleans().map(lambda b: ast.Bool(b, 0)),
    _IDENT.map(lambda n: ast.Name(n, 0)),
)


def _branches(inner: st.SearchStrategy[ast.Node]) -> st.SearchStrategy[ast.Node]:
    arg = st.one_of(inner, st.tuples(_IDENT, inner).map(lambda t: ast.Arrow(t[0], t[1], 0)))
    return st.one_of(
        st.lists(arg, max_size=3).map(lambda xs: ast.Array(tuple(xs), 0)),
        st.dictionaries(
            _IDENT.filter(lambda k: k not in ("__proto__", "constructor", "prototype")),
            arg,
            max_size=2,
        ).map(lambda d: ast.Object(tuple(d.items()), 0)),
        st.tuples(inner, _IDENT).map(lambda t: ast.Member(t[0], t[1], 0)),
        st.tuples(inner, st.lists(arg, max_size=3)).map(lambda t: ast.Call(t[0], tuple(t[1]), 0)),
        st.tuples(inner, st.sampled_from("+-*/"), inner).map(
            lambda t: ast.Binary(t[1], t[0], t[2], 0)
        ),
    )


@settings(max_examples=1000, deadline=None)
@given(st.recursive(_LEAF, _branches, max_leaves=12))
def test_printed_trees_parse_back_to_themselves(tree: ast.Node) -> None:
    code = _show(tree)
    assert _strip(parse(code)) == _strip(tree), code


def test_a_method_in_a_chain_is_one_level() -> None:
    parse("s('bd')" + ".fast(1)" * 63)  # s(...) is the 64th level
    with pytest.raises(PatternParseError, match="nested too deeply"):
        parse("s('bd')" + ".fast(1)" * 64)
