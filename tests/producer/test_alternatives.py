"""`producer.requests.alternatives`: N takes of a part, the progression or the arrangement — defaults,
dials raised, a structural change — scored by the quality model and ranked by it (A the best),
described, never twice the same, kept in the session and offered in turn by "try something
different"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.alternatives import MAX_COUNT, alternatives
from bandstand.producer.requests.iteration import edit
from bandstand.producer.sessions.projects import open_project

Session = Callable[..., Path]


@pytest.mark.parametrize("target", ["bass", "drums", "progression", "arrangement"])
def test_three_takes_scored_described_and_distinct(composed_copy: Session, target: str) -> None:
    root = composed_copy("funk groove", 3, 32)
    made = alternatives(root, target)
    assert made.target == target and [a.label for a in made.alternatives] == ["A", "B", "C"]
    assert sorted(a.kind.split(":")[0] for a in made.alternatives) == ["defaults", "dials raised", "structural"]
    assert len({a.fingerprint for a in made.alternatives}) == 3
    for a in made.alternatives:
        assert set(a.score) == {"harmony", "rhythm", "arrangement", "vibe", "mean"}
        assert all(0 <= v <= 1 for v in a.score.values())
        assert a.variation.state == "ready" and a.variation.base_revision == made.base_revision
        assert any(text != "unchanged" for text in a.variation.diff.values())
    kept = json.loads((root / "state" / "alternatives.json").read_text(encoding="utf-8"))
    assert kept["sets"][-1]["variations"] == [a.variation.id for a in made.alternatives]


@pytest.mark.parametrize("target", ["lead", "progression"])
def test_takes_are_ranked_best_first_by_the_quality_model(composed_copy: Session, target: str) -> None:
    """A is the take stage 7's score rates highest; the score travels with the variation, and the
    takes do not all score alike (the calibrated figures tell them apart)."""
    from bandstand.compose.recipe import Recipe
    from bandstand.compose.validation import evaluate_quality
    from bandstand.studio import to_song

    root = composed_copy("funk groove", 3, 32)
    made = alternatives(root, target, count=4)
    means = [a.score["mean"] for a in made.alternatives]
    assert means == sorted(means, reverse=True) and len(set(means)) > 1
    project = open_project(root)
    for a in made.alternatives:
        assert a.variation.details["alternative"]["score"] == a.score
        recipe = Recipe.model_validate(a.variation.recipe)
        proposal = project.variation(a.variation.id).proposal
        assert proposal is not None
        song = to_song(proposal)
        again = evaluate_quality(song, recipe.intent, recipe.harmony, recipe.arrangement)
        assert abs(again.mean - a.score["mean"]) < 0.02


def test_a_part_alternative_changes_that_part_only(composed_copy: Session) -> None:
    root = composed_copy("funk groove", 3, 32)
    made = alternatives(root, "lead", count=2)
    for a in made.alternatives:
        changed = {part for part, text in a.variation.diff.items() if text != "unchanged"}
        assert changed == {"lead"}


def test_the_structural_take_plays_the_part_another_way(composed_copy: Session) -> None:
    root = composed_copy("funk groove", 3, 32)
    c = next(a for a in alternatives(root, "bass").alternatives if a.kind.startswith("structural"))
    assert c.kind.startswith("structural: bass style") and "as " in c.kind
    assert c.variation.recipe is not None and "bass" in c.variation.recipe["node_genres"]


def test_try_something_different_offers_the_takes_in_turn_then_new_ones(composed_copy: Session) -> None:
    root = composed_copy("funk groove", 3, 32)
    made = alternatives(root, "bass", count=2)
    first = edit(root, "try something different")
    second = edit(root, "try something different")
    assert [first.variation.id, second.variation.id] == [a.variation.id for a in made.alternatives]  # type: ignore[union-attr]
    third = edit(root, "try something different")  # used up: a new set against the same HEAD
    assert third.variation is not None and third.variation.id not in {a.variation.id for a in made.alternatives}
    sets = json.loads((root / "state" / "alternatives.json").read_text(encoding="utf-8"))["sets"]
    fingerprints = [fp for s in sets for fp in s["fingerprints"]]
    assert len(fingerprints) == len(set(fingerprints))  # never the same take twice


def test_try_a_different_part_names_its_target(composed_copy: Session) -> None:
    root = composed_copy("funk groove", 3, 32)
    outcome = edit(root, "try a different bassline")
    assert outcome.variation is not None and outcome.affected == ("bass",)


def test_an_accepted_take_moves_head_and_the_next_set_is_new(composed_copy: Session) -> None:
    root = composed_copy("funk groove", 3, 32)
    made = alternatives(root, "lead", count=2)
    project = open_project(root)
    project.accept(made.alternatives[1].variation.id)
    again = alternatives(root, "lead", count=1)
    assert again.base_revision == 2 and again.alternatives[0].variation.base_revision == 2


@pytest.mark.parametrize(("target", "count", "match"), [
    ("bass", 0, "1 to 5"), ("bass", MAX_COUNT + 1, "1 to 5"), ("kazoo", 3, "no 'kazoo'"),
])
def test_bad_requests_are_one_line(composed_copy: Session, target: str, count: int, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        alternatives(composed_copy(), target, count=count)


def test_without_a_target_or_history_it_offers_the_whole_arrangement(composed_copy: Session) -> None:
    """'try something different' always works: nothing discussed yet, it is the arrangement's turn."""
    outcome = edit(composed_copy(), "try something different")
    assert outcome.variation is not None and outcome.variation.intent.startswith("arrangement: alternative A")


def test_a_frozen_part_has_no_alternatives(composed_copy: Session) -> None:
    root = composed_copy()
    edit(root, "keep the bass")
    with pytest.raises(InvalidInput, match="frozen"):
        alternatives(root, "bass")
