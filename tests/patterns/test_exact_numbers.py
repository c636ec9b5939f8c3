"""Numbers exactly as Strudel has them: float → fraction (fraction.js) and seeded random.

Checked against Strudel under node: time offsets given as floats must become
the same rationals, and `rand`/`irand`/`perlin` the same values at every
sampled time, with and without `.seed(n)`, over more than one 300-cycle period.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bandstand.patterns import evaluate
from bandstand.patterns.time import to_time
from tests.patterns.reference import haps_json, node_ready, same_haps, strudel_query

FLOATS = [
    0.1,
    0.2,
    0.3,
    1 / 3,
    2 / 3,
    0.0003,
    0.0009,
    0.1 + 0.2,
    0.125,
    1.1,
    2.75,
    123.456,
    1e-7,
    0.999999,
]


def test_known_conversions() -> None:
    assert Fraction(to_time(0.1)) == Fraction(1, 10)
    assert Fraction(to_time(1 / 3)) == Fraction(1, 3)
    assert Fraction(to_time(0.0003)) == Fraction(3, 10000)
    assert Fraction(to_time(-0.25)) == Fraction(-1, 4)
    assert Fraction(to_time(7)) == 7
    assert Fraction(to_time("3/8")) == Fraction(3, 8)


@pytest.mark.node
def test_float_offsets_become_the_same_fractions_as_in_strudel() -> None:
    assert node_ready() is None, node_ready()
    rng = random.Random(7)
    values = FLOATS + [rng.random() * 10 ** rng.randint(-5, 3) for _ in range(200)]
    jobs = [{"code": f"pure(1).late({v!r})", "begin": "0", "end": "2"} for v in values]
    for job, answer in zip(jobs, strudel_query(jobs), strict=True):
        ours = haps_json(evaluate(job["code"]).query_arc(0, 2))
        assert same_haps(ours, answer["haps"]), job["code"]


@pytest.mark.node
@pytest.mark.parametrize(
    "code",
    [
        "rand.segment(16)",
        "rand.segment(16).seed(5)",
        'rand.segment(4).seed("<1 2.5 -3>")',
        "irand(100).segment(8)",
        "perlin.segment(8)",
        "rand2.segment(4)",
        '"a*16".degradeBy(0.5)',
        '"a*8?"',
        '"[a|b|c|d]*8"',
        'n("0 1 2 3 4 5 6 7").shuffle(8)',
        'n("0 1 2 3").scramble(4).seed(9)',
    ],
)
def test_randomness_is_bit_exact(code: str) -> None:
    assert node_ready() is None, node_ready()
    spans = [("0", "8"), ("296", "304"), ("-3", "-1"), ("1/3", "5/2")]
    jobs = [{"code": code, "begin": b, "end": e} for b, e in spans]
    pattern = evaluate(code)
    for job, answer in zip(jobs, strudel_query(jobs), strict=True):
        ours = haps_json(pattern.query_arc(job["begin"], job["end"]))
        assert same_haps(ours, answer["haps"]), job
