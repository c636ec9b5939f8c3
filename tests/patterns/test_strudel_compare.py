"""bandstand and Strudel (under node) must give identical haps for every corpus pattern."""

from __future__ import annotations

import pytest

from bandstand.patterns import evaluate
from tests.patterns.corpus import CORPUS
from tests.patterns.reference import (
    describe_difference,
    haps_json,
    node_ready,
    same_haps,
    strudel_query,
)

pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def reference() -> dict[tuple[str, str, str], dict]:
    problem = node_ready()
    assert problem is None, problem
    jobs = [{"code": code, "begin": b, "end": e} for code, spans in CORPUS for b, e in spans]
    answers = strudel_query(jobs)
    return {(j["code"], j["begin"], j["end"]): a for j, a in zip(jobs, answers, strict=True)}


def test_corpus_is_large_enough() -> None:
    assert len({code for code, _ in CORPUS}) >= 150


@pytest.mark.parametrize(("code", "spans"), CORPUS, ids=[c for c, _ in CORPUS])
def test_same_events_as_strudel(
    code: str, spans: tuple[tuple[str, str], ...], reference: dict
) -> None:
    pattern = evaluate(code)
    for begin, end in spans:
        theirs = reference[(code, begin, end)]
        assert "error" not in theirs, f"Strudel could not run {code}: {theirs['error']}"
        ours = haps_json(pattern.query_arc(begin, end))
        assert same_haps(ours, theirs["haps"]), (
            f"{code} over [{begin}, {end}]: " + describe_difference(ours, theirs["haps"])
        )
