"""Step counts (Strudel's "tactus") must match, since take/drop/pace/polymeter use them."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bandstand.patterns import evaluate
from tests.patterns.corpus import CORPUS
from tests.patterns.generate import random_program
from tests.patterns.reference import node_ready, strudel_steps

pytestmark = pytest.mark.node


def test_step_counts_match_strudel() -> None:
    assert node_ready() is None, node_ready()
    rng = random.Random(31)
    codes = [code for code, _ in CORPUS] + [random_program(rng) for _ in range(200)]
    mismatches = []
    for code, theirs in zip(codes, strudel_steps(codes), strict=True):
        if theirs == "error":
            continue
        steps = evaluate(code).steps
        ours = None if steps is None else Fraction(steps)
        if ours != (None if theirs is None else Fraction(theirs)):
            mismatches.append(f"{code}: {ours} here, {theirs} in Strudel")
    assert not mismatches, "\n".join(mismatches[:10])
