"""Code that tries to do anything but build patterns is rejected with our own errors,
and random code (fuzzed) only ever produces our errors, within bounded time and memory."""

from __future__ import annotations

import contextlib
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.errors import PatternError, PatternParseError, UnknownFunctionError
from bandstand.patterns import evaluate, validate_pattern
from bandstand.patterns.expr import Limits, parse
from bandstand.patterns.methods import REGISTRY

HOSTILE = [
    'constructor.constructor("return process")()',
    's("bd").constructor.constructor("return this")()',
    "this",
    "globalThis",
    "globalThis.process.exit()",
    "process.exit()",
    "require('fs')",
    "import('fs')",
    "eval('1')",
    "Function('return 1')()",
    "new Function('x')",
    "__import__('os').system('true')",
    "exec('x')",
    "open('/etc/passwd')",
    "getattr(s('bd'), 'query')",
    "s('bd').__class__",
    "s('bd').__class__.__mro__",
    "'a'.__class__",
    '"a".__class__',
    "s('bd').__proto__",
    "s('bd').prototype",
    "Object.prototype",
    "s('bd')['constructor']",
    "s('bd').query(0)",
    "s('bd').query_arc(0, 1)",
    "s('bd').with_value(print)",
    "s('bd').fast.call(null, 2)",
    "s('bd').add.__globals__",
    "s('bd').add.squeeze.__code__",
    "s('bd').every(2, x => x.__class__)",
    "s('bd').every(2, x => x.query_arc(0, 1))",
    "fast(2).__class__",
    "fast(2).args",
    "x = 1",
    "s('bd'); process.exit()",
    "s('bd') && process",
    "s('bd').filter(h => h.value.constructor.constructor)",
    "s(`${process.exit()}`)",
    "(() => 1)()",
    "s('bd').every(2, function (x) { return x })",
    "s('bd').every(2, async x => x)",
    "{a: 1}.constructor",
    "{__proto__: null}",
    "{constructor: 1}",
    "[].constructor",
    "[1, 2].map(eval)",
    "s('bd').fast(2)\n.__init__()",
    "delete s",
    "typeof s",
    "void 0",
    "s?.('bd')",
    "s('bd')#x",
    "\\u0073('bd')",
    "s\\u0028'bd')",
    "ｓ('bd')",  # fullwidth s
    "ѕ('bd')",  # Cyrillic dze, looks like s
    "s('bd')\u202e",  # right-to-left override
    "s\u200d('bd')",  # zero-width joiner
    "s('bd')\x00",
    "s('bd')\u2028.fast(2)",
    "s('bd').fast(2e400)",
    "s('bd').fast(1/0)",
    "s('bd').fast(-1e999)",
    "s('bd').fast(99999999999)",
    's("bd*99999999999")',
    's("bd!1000000")',
    's("' + "[" * 5000 + '")',
    "stack(" * 1000,
    "s('bd')" + ".fast(2)" * 2000,
    "s('bd').echo(1000000, 0.1, 0.5)",
    "s('bd').chop(\"<2 1000000>\")",
    "s('bd').plyWith(100000, x => x)",
    "s('x'.repeat(1000000000))",
    "s('bd').fast(2" + ", 1" * 300 + ")",
    "-" * 5000 + "1",
    "'" + "a" * 20000 + "'",
]


@pytest.mark.parametrize("code", HOSTILE)
def test_hostile_code_is_rejected_with_our_errors(code: str) -> None:
    with pytest.raises(PatternError):
        evaluate(code).query_arc(0, 1)  # a value function runs when the pattern is queried
    report = validate_pattern(code, cycles=1)
    assert not report.valid
    assert report.error


def test_names_outside_the_registry_are_unknown_with_a_position() -> None:
    for code, name, column in [
        ("process.exit()", "process", 1),
        ("s('bd').query_arc(0, 1)", "query_arc", 9),
        ("s('bd').every(2, x => x.__class__)", "__class__", 25),
    ]:
        with pytest.raises(UnknownFunctionError) as info:
            evaluate(code)
        assert info.value.name == name
        assert info.value.column == column


def test_huge_inputs_stay_within_bounded_memory() -> None:
    inputs = [
        "(" * 9000,
        "s('bd')" + ".fast(2)" * 1200,
        "[" + "1," * 4000 + "]",
        "'" + "a" * 9990 + "'",
    ]
    tracemalloc.start()
    try:
        for code in inputs:
            with contextlib.suppress(PatternError):
                parse(code)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024


_NAMES = st.sampled_from(sorted(REGISTRY.names()))
_COMMON = st.sampled_from(
    ["s", "n", "note", "fast", "slow", "stack", "cat", "seq", "every", "add", "rev", "sometimes", "gain",
     "off", "jux", "ply", "struct", "mask", "range", "segment", "scale", "lpf", "chunk", "superimpose"]
)  # fmt: skip
_ATOMS = st.one_of(
    st.integers(-8, 16).map(str),
    st.sampled_from(["0.25", "1/8", "-0.5", "1e3", "3"]),
    st.sampled_from(
        ['"bd sd"', '"<0 2> [4 7]"', '"c3 e3 g3"', '"1 2 3"', '"t f"', "'x'", '"~ hh*2"']
    ),
    st.sampled_from(["x", "sine", "rand", "silence", "true"]),
)


def _calls(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    args = st.lists(st.one_of(inner, inner.map(lambda body: f"x => {body}")), max_size=3).map(
        ", ".join
    )
    name = st.one_of(_COMMON, _NAMES)
    return st.one_of(
        st.tuples(name, args).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(inner, name, args).map(lambda t: f"{t[0]}.{t[1]}({t[2]})"),
        st.tuples(
            inner,
            st.sampled_from(["add", "sub", "mul"]),
            st.sampled_from(["in", "out", "mix", "squeeze", "x"]),
            args,
        ).map(lambda t: f"{t[0]}.{t[1]}.{t[2]}({t[3]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(" ".join),
    )


_CODE = st.recursive(_ATOMS, _calls, max_leaves=10)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CODE)
def test_fuzz_evaluate_and_validate_only_produce_our_errors(code: str) -> None:
    with contextlib.suppress(PatternError):
        evaluate(code, limits=Limits())
    report = validate_pattern(code, cycles=1)
    assert report.valid in (True, False)
    if not report.parses:
        with pytest.raises(PatternParseError):
            parse(code)
