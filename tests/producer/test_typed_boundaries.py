"""The typed shapes at the compose/producer boundaries (#29): each TypedDict a boundary answers
names exactly the keys of the real answer (so the types cannot drift from the JSON the clients
print), and a typed node's `apply` is held to its handler's output type. Real runs, real files,
no mocks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bandstand.compose.api import (
    IntentSummary,
    Pipeline,
    QualitySummary,
    RunSummary,
    SectionSummary,
    TakesSummary,
)
from bandstand.compose.edges import typed_node
from bandstand.compose.nodes import NodeContext, NodeResult
from bandstand.compose.state import PipelineConfig, PipelineState
from bandstand.producer import App
from bandstand.producer.app import BranchRequest
from bandstand.producer.live.strudel_desk import ScratchNote, ScratchSong, ScratchTrack
from bandstand.producer.sessions.branches import BranchesListing, BranchJSON, GraphLineJSON


def _keys(kind: type) -> set[str]:
    """A TypedDict's keys, its own and those it inherits."""
    return set(kind.__annotations__)


def test_a_runs_summary_has_the_keys_its_types_name(composed_copy: Callable[..., Path]) -> None:
    result = Pipeline.load(composed_copy("funk groove in E minor", 3, 8)).result()
    data = result.summary()
    assert set(data) == _keys(RunSummary)
    assert data["intent"] is not None and set(data["intent"]) == _keys(IntentSummary)
    assert data["sections"] and all(set(s) == _keys(SectionSummary) for s in data["sections"])
    assert data["quality"] is not None and set(data["quality"]) == _keys(QualitySummary)
    assert set(data["takes"]) == _keys(TakesSummary)
    assert result.manifest is not None and isinstance(result.manifest["sections"], list)


def test_the_branches_listing_has_the_keys_its_types_name(composed_copy: Callable[..., Path]) -> None:
    folder = composed_copy("funk groove in E minor", 3, 8)
    app, song = App(folder.parent), folder.name
    app.branch(BranchRequest(song, "darker"))
    plain, drawn = app.branches(song), app.branches(song, graph=True)
    assert set(plain) | {"graph"} == set(drawn) == _keys(BranchesListing)  # the graph only when asked
    assert all(set(b) == _keys(BranchJSON) for b in drawn["branches"])
    assert drawn["graph"] and all(set(g) == _keys(GraphLineJSON) for g in drawn["graph"])


def test_a_scratch_song_has_the_keys_its_types_name() -> None:
    song = App().live().scratch('note("c3 e3 g3").s("sawtooth")', cycles=2, key="C major", tempo=90).song
    assert set(song) == _keys(ScratchSong)
    assert song["tracks"] and all(set(t) == _keys(ScratchTrack) for t in song["tracks"])
    assert all(set(n) == _keys(ScratchNote) for t in song["tracks"] for n in t["notes"])


@dataclass(frozen=True)
class NoInputs:
    pass


def count(ctx: NodeContext, inputs: NoInputs) -> NodeResult[int]:
    return NodeResult(3, 3, "three")


def test_a_typed_nodes_apply_takes_its_handlers_output_type_only() -> None:
    applied: list[int] = []

    def restore(data: object, artifacts: object) -> int:
        return 3

    node = typed_node("count", count, apply=lambda state, value: applied.append(value), restore=restore)
    assert node.output is int and node.restore is restore and node.apply is not None
    state = PipelineState.start("a count", PipelineConfig(), 1)
    node.apply(state, 3)
    assert applied == [3]
    with pytest.raises(TypeError, match="count applies a int, not a str"):
        node.apply(state, "three")
    assert applied == [3]
    assert typed_node("count", count).restore is not restore  # the checkpoint's value itself
