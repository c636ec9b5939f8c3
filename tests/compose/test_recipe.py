"""The recipe of a composed song and `rerun`: exactly the named nodes run again, through
the same engine and node functions as compose, from the recipe's plans and seeds."""

from __future__ import annotations

import pytest

from bandstand.compose import ComposeResult, compose
from bandstand.compose.api import Pipeline
from bandstand.compose.graph import Artifacts
from bandstand.compose.recipe import Recipe, rerun
from bandstand.craft.style import StyleOverride
from bandstand.errors import RuntimeFailure

FAST = {"render_audio": False, "render_pianoroll": False}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[ComposeResult, Artifacts, Recipe]:
    result = compose("funk groove with a pad", seed=9, bars=32, out_dir=str(tmp_path_factory.mktemp("out")), **FAST)
    pipeline = Pipeline.load(result.session_dir)
    pipeline.engine.restore()
    artifacts = pipeline.engine.artifacts
    recipe = Recipe.from_run(result.state, artifacts, {t.role: t.name for t in result.song.tracks})  # type: ignore[union-attr]
    return result, artifacts, recipe


def test_a_rerun_with_nothing_changed_makes_the_same_parts(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    again = rerun(recipe, ["drums", "bass", "lead"])
    for role in ("drums", "bass", "lead"):
        assert again.parts[role].track.notes == artifacts[f"parts:{role}"].track.notes
    assert again.harmony == artifacts["harmony"] and again.arrangement == artifacts["arrangement"]


def test_a_new_variant_moves_that_part_alone(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    again = rerun(recipe.bumped(["parts:bass"]), ["drums", "bass"])
    assert again.parts["bass"].track.notes != artifacts["parts:bass"].track.notes
    assert again.parts["drums"].track.notes == artifacts["parts:drums"].track.notes


def test_style_overrides_reach_their_part(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    busier = recipe.model_copy(update={"style_overrides": [StyleOverride(role="bass", knobs={"density": 0.3})]})
    again = rerun(busier, ["bass", "lead"])
    assert len(again.parts["bass"].track.notes) > len(artifacts["parts:bass"].track.notes)
    assert again.parts["lead"].track.notes == artifacts["parts:lead"].track.notes


def test_a_second_part_of_a_role_has_its_own_seed(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    again = rerun(recipe, ["pad", "pad-2"])
    assert again.parts["pad"].track.notes == artifacts["parts:pad"].track.notes
    assert again.parts["pad-2"].track.notes != again.parts["pad"].track.notes
    assert again.parts["pad-2"].track.role == "pad"


def test_plan_nodes_run_again_when_named(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    same = rerun(recipe, [], run=["harmony"])
    assert same.harmony == artifacts["harmony"]
    other = rerun(recipe.bumped(["harmony"]), [], run=["harmony"])
    assert [c.symbol for c in other.harmony.chords] != [c.symbol for c in artifacts["harmony"].chords]
    retuned = recipe.model_copy(update={"intent": recipe.intent.model_copy(update={"key": "F#"})})
    moved = rerun(retuned, [], run=["harmony"])
    assert moved.harmony.key == "F#"
    assert [c.roman for c in moved.harmony.chords] == [c.roman for c in artifacts["harmony"].chords]


def test_a_part_played_as_another_genre(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, artifacts, recipe = made
    jazz = recipe.model_copy(update={"node_genres": {"bass": "jazz"}})
    again = rerun(jazz, ["bass", "drums"])
    assert again.parts["bass"].stats.style != artifacts["parts:bass"].stats.style
    assert again.parts["drums"].track.notes == artifacts["parts:drums"].track.notes


def test_the_recipe_round_trips_through_json(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    result, _, recipe = made
    assert Recipe.model_validate_json(recipe.model_dump_json()) == recipe
    assert (recipe.seed == 9 and recipe.parts == {"drums": "Drums", "bass": "Bass", "chords": "Chords",
                                                 "lead": "Lead", "pad": "Pad"}) or set(recipe.parts) == set(
        result.song_state.parts)


def test_a_failing_node_is_a_runtime_failure(made: tuple[ComposeResult, Artifacts, Recipe]) -> None:
    _, _, recipe = made

    def broken(*args: object) -> object:
        raise RuntimeError("the bassist left")

    with pytest.raises(RuntimeFailure, match="the bassist left"):
        rerun(recipe.model_copy(update={"variants": {}}), ["bass"], part_fn=broken,  # type: ignore[arg-type]
              config={"max_retries_per_stage": 0})
