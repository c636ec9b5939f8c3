"""The expression language's own features give Strudel's events (Strudel under node).

The corpus of the engine (tests/patterns/corpus.py) covers the functions; these
programs exercise what the evaluator adds: partial application, functions as
values, variants, several method arguments, arrays and objects, number
arithmetic, comments, plain strings, constants with methods.
"""

from __future__ import annotations

import pytest

from bandstand.patterns import evaluate
from tests.patterns.reference import (
    describe_difference,
    haps_json,
    node_ready,
    same_haps,
    strudel_query,
)

pytestmark = pytest.mark.node

PROGRAMS = [
    's("bd sd").every(2, fast(2))',
    'every(3, rev, s("bd sd hh"))',
    's("bd sd hh").every(2, rev)',
    'fast(2)(s("bd sd"))',
    'n("0 1 2 3").add.squeeze("0 10")',
    'n("0 1 2 3").add.out("<0 12>")',
    'n("0 1 2 3").sub.mix("<0 1> 2")',
    'n("0 [1 2]").mul.in("2 3")',
    's("bd").fast(1, 2)',
    'stack(s("bd"), [s("sd"), s("hh")])',
    'cat(s("bd"), [s("sd"), s("hh")])',
    's("bd sd").late(1/8)',
    's("bd sd").late(-1/8 + 0.25 * 2)',
    's("bd sd hh").fast(3/2)',
    'note("c3 e3").off(1/3, x => x.add(note(7)))',
    'n("0 2").superimpose(x => x.add(12), (x) => x.fast(2))',
    's("bd*4").sometimesBy(0.3, x => x.speed(2))',
    's("bd*8").chunk(4, x => x.hurry(2))',
    's("bd sd") // the kick and the snare\n  .fast(2)',
    's("bd sd") /* comment */ .fast(2)',
    "s('bd sd')",
    's("bd:3 sd")',
    '"c3 e3".note()',
    '"<0 2> 4".add("<10 20>").n()',
    "sine.range(1, 5).segment(4)",
    "rand.mul(8).floor().segment(4)",
    'arrange([2, s("bd sd")], [1, s("hh*4")])',
    'n("0 1 2 3").inside(2, rev)',
    's("bd*2").echoWith(3, 1/8, x => x.gain(0.5))',
    'n("0 .. 3").layer(x => x.add(10), x => x.fast(2))',
    's("bd*4").mask("1 0 1 1").struct("x(3,8)")',
    'note("c3 eb3 g3").s("sawtooth").lpf(600).room(0.3)',
    'n("0 2 4 6").scale("C:minor")',
    'stack(\n  s("bd*2"),\n  s("~ sd"),\n).fast(2)',
    # Strudel's constructors that take mini-notation, given plain strings
    "mini('a b')",
    "mini('a [b c]', '<d e>*2')",
    "m('bd*2 sd')",
    "h('\"a <b c>\"')",
    "minify('a [b c]')",
    "minify(3)",
    "mini(3)",
    "s(mini('bd sd')).fast(2)",
    "n(mini('0 2', '4')).scale('C:minor')",
    # two-parameter arrow functions, where Strudel passes an index
    '"0 [2 4]".echoWith(4, 1/8, (p, n) => p.add(n * 2))',
    '"0 2".stutWith(3, 1/8, (p, i) => p.add(i))',
    '"0 2".echoWith(2, 1/8, (p) => p.add(10))',
    '"0 2".plyForEach(3, (p, n) => p.add(n * 2))',
    'n("0 2").plyforeach(2, (x, i) => x.add(n(i)))',
]
SPANS = (("0", "2"), ("1/3", "7/3"))
# The harness wraps code as `return (CODE);`, so a trailing `;` or `// …` cannot be sent to it;
# test_evaluate covers those forms on our side.


@pytest.fixture(scope="module")
def reference() -> dict[tuple[str, str, str], dict]:
    problem = node_ready()
    assert problem is None, problem
    jobs = [{"code": code, "begin": b, "end": e} for code in PROGRAMS for b, e in SPANS]
    answers = strudel_query(jobs)
    return {(j["code"], j["begin"], j["end"]): a for j, a in zip(jobs, answers, strict=True)}


@pytest.mark.parametrize("code", PROGRAMS)
def test_same_events_as_strudel(code: str, reference: dict) -> None:
    pattern = evaluate(code)
    for begin, end in SPANS:
        theirs = reference[(code, begin, end)]
        assert "error" not in theirs, f"Strudel could not run {code}: {theirs['error']}"
        ours = haps_json(pattern.query_arc(begin, end))
        assert same_haps(ours, theirs["haps"]), (
            f"{code} over [{begin}, {end}]: " + describe_difference(ours, theirs["haps"])
        )
