"""A recipe's key map (`compose.key_map`): a recipe saved before key maps existed is one key
throughout; overlaying a key change on some bars moves those bars only, keeps bar 1's key as the
recipe's own, and an overlay of every bar is the new recipe's key throughout."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.compose.key_map import bar_chords, bar_keys, key_changes, layers, overlay
from bandstand.compose.recipe import Recipe, rerun
from bandstand.producer.composing.compose import compose_song
from bandstand.producer.requests.proposal import recipe_of
from bandstand.producer.sessions.projects import open_project


@pytest.fixture(scope="module")
def recipes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Recipe, Recipe]:
    out = tmp_path_factory.mktemp("keymap")
    result = compose_song("pop song in Bb major", seed=3, bars=16, out_dir=str(out), render_audio=False,
                          render_pianoroll=False).result
    base = recipe_of(open_project(Path(result.session_dir)).head)
    intent = base.intent.model_copy(update={"key": "F#", "mode": "minor"})
    made = rerun(base.model_copy(update={"intent": intent}), [], run=["harmony", "arrangement"])
    return base, base.model_copy(update={"intent": made.intent, "harmony": made.harmony,
                                         "arrangement": made.arrangement})


def test_a_recipe_saved_before_key_maps_is_one_key(recipes: tuple[Recipe, Recipe]) -> None:
    base, _ = recipes
    data = base.model_dump(mode="json")
    del data["key_map"]
    old = Recipe.model_validate(data)
    assert set(bar_keys(old)) == {"Bb major"} and key_changes(old) == []
    (only,) = layers(old)
    assert only.bars == ((1, 16),)


def test_an_overlay_moves_only_the_bars_accepted(recipes: tuple[Recipe, Recipe]) -> None:
    base, new = recipes
    moved = overlay(base, new, set(range(5, 9)))
    assert bar_keys(moved) == ["Bb major"] * 4 + ["F# minor"] * 4 + ["Bb major"] * 8
    assert key_changes(moved) == [(5, "F# minor"), (9, "Bb major")]
    assert moved.harmony == base.harmony and [layer.bars for layer in layers(moved)] == [((1, 4), (9, 16)), ((5, 8),)]
    chords = bar_chords(moved)
    assert all(c in new.harmony.chords for c in chords[4:8])  # each bar's chord from its own key's harmony
    assert all(c in base.harmony.chords for c in chords[:4] + chords[8:])
    # the same again, then every bar: one key again, the new one
    assert overlay(base, moved, set(range(5, 9))).key_map == moved.key_map
    everywhere = overlay(base, new, set(range(1, 17)))
    assert set(bar_keys(everywhere)) == {"F# minor"} and everywhere.key_map == []
