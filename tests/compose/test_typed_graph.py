"""The compose graph typed end to end: each node's edges are read off its handler's
inputs model when the graph is built; a node that reads what no earlier node makes, or
makes in another type, is refused then (not when the run gets there); the validation and
output nodes hand on a `ValidationReport` and `SessionFiles` and save the same JSON a
checkpoint held when they were dicts; `compose.api` is the engine's narrow face."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from bandstand.compose.api import (
    Pipeline,
    compose,
    part_seed,
    plan,
    reach,
    read_state,
    regenerate,
    resume,
)
from bandstand.compose.edges import Edge, Group, edges_of, typed_node
from bandstand.compose.graph import Artifacts, Fanout, Graph
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult
from bandstand.compose.models.reports import SessionFiles, ValidationReport
from bandstand.compose.node_inputs import OutputInputs
from bandstand.compose.nodes import Node, NodeContext, NodeResult
from bandstand.compose.recipe import Recipe
from bandstand.compose.stages import build_graph
from bandstand.score import Song

FAST = {"render_audio": False, "render_pianoroll": False}


def test_the_edges_come_from_the_annotations() -> None:
    graph = build_graph()
    output = graph.item("output")
    assert isinstance(output, Node)
    assert (output.inputs, output.optional) == (("intent", "harmony", "arrangement", "parts"),
                                                ("sound", "assembly", "validation"))
    assert output.output is SessionFiles and graph.item("validation").output is ValidationReport  # type: ignore[union-attr]
    assert edges_of(OutputInputs)[3] == Edge("parts", PartResult, group=True)
    assert edges_of(OutputInputs)[6] == Edge("validation", ValidationReport, optional=True)
    fan = graph.fanout("parts")
    assert fan is not None and fan.output is PartResult
    assert fan.node("bass").inputs == ("intent", "harmony", "arrangement") and fan.node("bass").takes == fan.takes


@dataclass(frozen=True)
class WantsSong:
    harmony: Song


@dataclass(frozen=True)
class WantsHarmony:
    harmony: HarmonyPlan


@dataclass(frozen=True)
class WantsGroup:
    harmony: Group[HarmonyPlan]


def wants_song(ctx: NodeContext, given: WantsSong) -> NodeResult[Song]:
    return NodeResult(given.harmony, {}, "")


def wants_harmony(ctx: NodeContext, given: WantsHarmony) -> NodeResult[Intent]:
    raise AssertionError("never run")


def wants_group(ctx: NodeContext, given: WantsGroup) -> NodeResult[Intent]:
    raise AssertionError("never run")


def plans() -> list[Node | Fanout]:
    return [i for i in build_graph().items if isinstance(i, Node) and i.name in ("intent", "harmony")]


def test_a_wrong_edge_is_refused_when_the_graph_is_built() -> None:
    with pytest.raises(ValueError, match=r"later reads harmony: Song, but harmony produces HarmonyPlan"):
        Graph([*plans(), typed_node("later", wants_song)])
    with pytest.raises(ValueError, match=r"later reads 'harmony' as a fan-out group"):
        Graph([*plans(), typed_node("later", wants_group)])
    with pytest.raises(ValueError, match=r"later reads 'harmony', which is not declared before it"):
        Graph([typed_node("later", wants_harmony), *plans()])
    Graph([*plans(), typed_node("later", wants_harmony)])  # the right type, declared before: built


def test_a_fan_outs_members_edges_are_checked_when_the_graph_is_built() -> None:
    fan = build_graph().fanout("parts")
    assert fan is not None
    with pytest.raises(ValueError, match=r"parts reads 'arrangement', which is not declared before it"):
        Graph([*plans(), dataclasses.replace(fan, after=("harmony",))])
    wrong = dataclasses.replace(fan, after=("harmony",), takes=(Edge("harmony", Song),))
    with pytest.raises(ValueError, match=r"parts reads harmony: Song, but harmony produces HarmonyPlan"):
        Graph([*plans(), wrong])
    drifted = dataclasses.replace(fan, takes=(Edge("intent", Intent),))
    with pytest.raises(ValueError, match="made parts:bass with other edges"):
        drifted.node("bass")


def test_a_handler_without_typed_inputs_is_refused() -> None:
    def bare(ctx: NodeContext) -> NodeResult[Intent]:
        raise AssertionError("never run")

    def untyped(ctx: NodeContext, given: WantsHarmony):  # type: ignore[no-untyped-def]
        raise AssertionError("never run")

    with pytest.raises(TypeError, match="not an annotated run"):
        typed_node("bare", bare)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not an annotated run"):
        typed_node("untyped", untyped)


def test_reports_are_models_and_the_checkpoint_keeps_the_old_json(tmp_path: Path) -> None:
    pipeline = Pipeline.create("trap beat in A minor", seed=4, bars=8, out_dir=str(tmp_path), **FAST)
    result = pipeline.run()
    made = pipeline.products()
    assert isinstance(made.validation, ValidationReport) and isinstance(made.files, SessionFiles)
    assert isinstance(made.song, Song) and list(made.parts) == result.state.song_state.parts
    saved = json.loads((result.session_dir / "state" / "pipeline-state.json").read_text(encoding="utf-8"))
    val, out = saved["nodes"]["validation"]["output"], saved["nodes"]["output"]["output"]
    assert set(val) == {"score", "gate"} and val == made.validation.model_dump(mode="json")
    assert out == {"files": list(made.files.files), "degraded": list(made.files.degraded)}
    manifest = json.loads((result.session_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["quality"] == val["score"]
    # read back as models, and a checkpoint from before `degraded` was kept reads too
    assert ValidationReport.model_validate(val) == made.validation
    assert SessionFiles.from_checkpoint({"files": ["a.mid"]}) == SessionFiles(("a.mid",))
    with pytest.raises(ValueError, match="not"):
        SessionFiles.from_checkpoint({"nope": 1})


def test_a_paused_run_restores_the_typed_artifacts_from_its_checkpoint(tmp_path: Path) -> None:
    paused = Pipeline.create("lofi beat", seed=2, bars=8, out_dir=str(tmp_path / "a"), approval_gates=["validation"],
                             **FAST).run()
    assert paused.status == "paused"
    again = Pipeline.load(paused.session_dir)
    again.restore()
    assert isinstance(again.products().validation, ValidationReport)
    resumed = resume(paused.session_dir, approve=True)
    straight = compose("lofi beat", seed=2, bars=8, out_dir=str(tmp_path / "b"), **FAST)
    for rel in ("midi/full-arrangement.mid", "notes/producer-notes.md"):
        assert (resumed.session_dir / rel).read_bytes() == (straight.session_dir / rel).read_bytes()
    assert read_state(resumed.session_dir).nodes["output"].output == read_state(straight.session_dir).nodes["output"].output


def test_artifacts_are_read_as_their_type() -> None:
    artifacts = Artifacts({"harmony": "not a plan"})
    assert artifacts.get_as("sound", Song) is None
    with pytest.raises(TypeError, match="harmony node's artifact is a str, not a HarmonyPlan"):
        artifacts.need("harmony", HarmonyPlan)
    with pytest.raises(KeyError):
        artifacts.need("intent", Intent)


def test_the_narrow_api_plans_and_regenerates_what_a_change_reaches(tmp_path: Path) -> None:
    pipeline = Pipeline.create("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), **FAST)
    pipeline.run()
    made = pipeline.products()
    planned = plan("funk groove in E minor", 3, {"bars": 8})
    assert (planned.intent, planned.harmony, planned.arrangement) == (made.intent, made.harmony, made.arrangement)
    recipe = pipeline.recipe({role: role for role in made.parts})
    keys = list(made.parts)
    # the drums hear no harmony and the sound is made from the genre: a new progression
    # regenerates the pitched parts only
    reached = reach(["harmony"], keys)
    assert reached == ["harmony", *(f"parts:{k}" for k in keys if k != "drums")]
    again = regenerate(recipe, ["harmony"], keys, frozen=["lead"])
    assert "parts:lead" not in again.reached and set(again.made.parts) == {k for k in keys
                                                                            if f"parts:{k}" in again.reached}
    for key, part in again.made.parts.items():  # the same recipe and seeds: the same parts
        assert part.track.notes == made.parts[key].track.notes
    assert part_seed(3, "bass") != part_seed(3, "drums")
    assert isinstance(recipe, Recipe)
