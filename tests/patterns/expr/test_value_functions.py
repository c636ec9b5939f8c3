"""Value functions: what `.filterHaps`, `.filterValues`, `.filterWhen`, `.withValue` and
`.arpWith` are given sees haps and values, with JavaScript's operators on them — checked
against Strudel under node on generated code, and closed to everything but the members
`js_values` lists."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.errors import PatternError
from bandstand.patterns.expr import js_values
from bandstand.patterns.expr.evaluator import evaluate, run_program
from tests.patterns.reference import (
    describe_difference,
    haps_json,
    node_ready,
    same_haps,
    strudel_query,
)

# values a value function compares, in both languages' spelling
_LITERALS = ("0", "1", "2", "3.5", "-1", "'3'", "'bd'", "'hh'", "''", "true", "false")
_ORDER = ("<", "<=", ">", ">=")
_EQUAL = ("===", "!==", "==", "!=")
_SOURCES = (
    # (pattern, what the function's parameter reads as a number, as a string)
    ('"0 1 2 3 4 5 6 7"', "v", "v"),
    ('"<0 2 4> [1 3]*2 5 -2"', "v", "v"),
    ('s("bd hh sd oh bd*2 hh")', "v.n", "v.s"),
    ('s("bd hh sd oh").n("0 1 2 <3 4>")', "v.n", "v.s"),
)


def _atom(rng: random.Random, number: str, text: str) -> str:
    return rng.choice([number, number, text, rng.choice(_LITERALS), f"({number} % 3)", f"({number} + 1)"])


def _test(rng: random.Random, number: str, text: str, depth: int = 0) -> str:
    """A random boolean-ish expression over the parameter."""
    roll = rng.random()
    if depth < 2 and roll < 0.25:
        op = rng.choice(("&&", "||", "??"))
        return f"({_test(rng, number, text, depth + 1)} {op} {_test(rng, number, text, depth + 1)})"
    if depth < 2 and roll < 0.35:
        return f"!{_test(rng, number, text, depth + 1)}"
    if depth < 2 and roll < 0.45:
        return (
            f"({_test(rng, number, text, depth + 1)} ? {_test(rng, number, text, depth + 1)}"
            f" : {_test(rng, number, text, depth + 1)})"
        )
    op = rng.choice(_ORDER + _EQUAL)
    return f"{_atom(rng, number, text)} {op} {_atom(rng, number, text)}"


def _program(rng: random.Random) -> str:
    pattern, number, text = rng.choice(_SOURCES)
    param = "v"
    kind = rng.choice(("filterValues", "filterHaps", "withValue", "filterWhen"))
    if kind == "filterHaps":
        param = "h"
        number, text = number.replace("v", "h.value", 1), text.replace("v", "h.value", 1)
        test = _test(rng, number, text)
        if rng.random() < 0.3:
            test = f"(h.whole.begin % 1) < 0.5 && {test}"
        return f"{pattern}.filterHaps({param} => {test})"
    if kind == "filterWhen":
        t = rng.choice(("t", "(t % 1)", "t.cyclePos()"))
        bound = rng.choice(("1", "0.5", "2", "'1'"))
        return f"{pattern}.filterWhen(t => {t} {rng.choice(_ORDER)} {bound} || t == {rng.choice(('0', '1.5', '3'))})"
    if kind == "withValue" and pattern.startswith('"'):
        return f"{pattern}.withValue(v => {_test(rng, number, text)} ? v * 2 : v % 3)"
    return f"{pattern}.filterValues(v => {_test(rng, number, text)})"


@pytest.mark.node
@pytest.mark.parametrize("seed", [1, 2])
def test_generated_value_functions_play_as_in_strudel(seed: int) -> None:
    problem = node_ready()
    assert problem is None, problem
    rng = random.Random(seed)
    jobs = [{"code": _program(rng), "begin": "0", "end": "3"} for _ in range(150)]
    answers = strudel_query(jobs)
    compared, failures = 0, []
    for job, answer in zip(jobs, answers, strict=True):
        assert "error" not in answer, (job, answer)  # the generator writes code Strudel runs
        ours = haps_json(evaluate(job["code"]).query_arc(0, 3))
        compared += 1
        if not same_haps(ours, answer["haps"]):
            failures.append(f"{job['code']}: {describe_difference(ours, answer['haps'], 3)}")
    assert compared == len(jobs)
    assert not failures, "\n".join(failures[:5])


def _values(code: str, end: int = 1) -> list[Any]:
    haps = evaluate(code).query_arc(0, end)
    return [h.value for h in sorted(haps, key=lambda h: h.part.begin)]


def test_the_documented_examples() -> None:
    assert _values("s(\"hh!3 oh\").filter(hap => hap.value.s === 'hh')") == [{"s": "hh"}] * 3
    assert len(_values('s("bd*4").filterWhen((t) => t < 1)', end=2)) == 4
    assert _values('"0 1 2".withValue(v => v + 10).log()') == [10, 11, 12]
    assert _values('note("[c,eb,g]").arpWith(haps => haps[2])') == [{"note": "g"}]
    with pytest.raises(PatternError, match="one of the haps it is given"):  # Strudel fails too
        _values('note("[c,eb,g]").arpWith(haps => haps[7])')
    tagged = "s(\"a b\").tag('x').filter(h => h.hasTag('x') && !h.hasTag('y'))"
    assert len(_values(tagged)) == 2
    assert _values('"0 1 2 3".filterValues(v => v % 2 === 1 ? true : false)') == [1, 3]
    assert _values('"0 1".withValue(v => v || 7)') == [7, 1]
    assert _values('s("a").withValue(v => v.n ?? 4)') == [4]
    assert _values("\"1 2\".withValue(v => v.s + 'x' + v / 0)") == ["undefinedxInfinity"] * 2  # JavaScript's numbers


def test_program_statements_that_only_print() -> None:
    program = run_program("const haps = sequence('a', ['b', 'c']).queryArc(0, 1)\nconsole.log(haps)\nsilence")
    assert program.pattern.query_arc(0, 1) == []
    with pytest.raises(PatternError, match="queryArc"):
        run_program('s("a").queryArc(1)')


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("s(\"a\").filter(h => h.constructor)", "'.constructor' is not allowed"),
        ("s(\"a\").filter(h => h.__class__)", "a hap has whole, part, value, duration here"),
        ("s(\"a\").filter(h => h.count)", "a hap has whole, part, value, duration here"),
        ("s(\"a\").filter(h => h.whole.__class__)", "a time span has begin, end, duration"),
        ("s(\"a\").filter(h => h.value.__proto__)", "'.__proto__' is not allowed"),
        ("s(\"a\").filter(h => h.value['constructor'])", "the key 'constructor' is not allowed"),
        ("s(\"a\").filter(h => h.value.n.x)", "cannot read '.x' of undefined"),
        ("s(\"a\").filter(h => h.whole.begin.numerator)", None),  # a time has no members: undefined
        ("s(\"a\").filter(h => h.format())", "'.format()' is not a method of a hap here"),
        ('s("a").filter(h => s("b") < 1)', "for patterns use .lt()"),
        ('"1 2".withValue(v => [v] + 1)', "'+' works on numbers or strings, not an array"),
        ('s("a")\n  == 2', "the code must make a pattern, not a boolean"),
    ],
)
def test_what_a_value_function_cannot_reach(code: str, words: str | None) -> None:
    if words is None:
        assert _values(code) == []  # undefined is falsy: the hap is dropped
        return
    with pytest.raises(PatternError) as caught:
        evaluate(code).query_arc(0, 1)
    assert words in caught.value.message and "\n" not in caught.value.message


_PRIMITIVES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(-5, 5), st.just(float("nan")), st.sampled_from(["", "1", "bd", "2.5"])
)


@given(_PRIMITIVES, _PRIMITIVES)
def test_equality_and_order_obey_javascripts_laws(a: Any, b: Any) -> None:
    assert js_values.strict_equal(a, b) == js_values.strict_equal(b, a)
    assert js_values.loose_equal(a, b) == js_values.loose_equal(b, a)
    if js_values.strict_equal(a, b):
        assert js_values.loose_equal(a, b)  # === implies ==
    lt, gt = js_values.compare("<", a, b), js_values.compare(">", b, a)
    assert lt == gt  # a < b exactly when b > a
    if lt:
        assert not js_values.compare(">=", a, b) and js_values.compare("<=", a, b)
