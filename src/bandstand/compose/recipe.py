"""A song's recipe, and re-running part of the graph from it.

The `Recipe` is what regenerating any node of a composed song needs: the
prompt and seed, the intent, harmony and arrangement plans, the sound plan,
the seed variant of every node that has one, the style overrides in force,
the parts the person froze, which part plays which role, the bars in other
keys (the key map) and the generator that made it. Compose puts it in revision 1's provenance; every accepted
edit carries the recipe of its result, so undo and redo move it too.

`rerun(recipe, keys, run=…)` runs exactly the named nodes through the same
engine and the same node functions as compose (in process, no checkpoint,
no files): the plans not named come from the recipe, each part node gets
its own derived seed and variant, so a part that is not asked for is never
touched and one that is asked for with nothing changed comes out the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bandstand.compose.engine import Engine
from bandstand.compose.graph import Artifacts, Graph
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.key_map import KeySpan
from bandstand.compose.models.parts import PartResult
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.nodes import Node
from bandstand.compose.stages import PartFn, build_graph, default_part, part_fanout
from bandstand.compose.state import NodeRecord, PipelineConfig, PipelineState, part_node, part_role
from bandstand.craft.style import StyleOverride
from bandstand.errors import RuntimeFailure
from bandstand.version import __version__

__all__ = ["GENERATOR", "PLAN_NODES", "PlanArtifact", "Recipe", "Rerun", "part_role", "rerun"]

GENERATOR = f"bandstand {__version__} compose graph, algorithmic parts"
PLAN_NODES: tuple[str, ...] = ("intent", "harmony", "arrangement")

PlanArtifact = Intent | HarmonyPlan | ArrangementPlan
"""What a plan node makes: the plans a partial run is given in place of the recipe's."""


class Recipe(BaseModel):
    """Everything regenerating a node of a song needs (see the module docstring). `parts`
    maps each part key (a role, or `role-N` for a second part of a role) to the name of the
    track that holds it."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    generator: str = GENERATOR
    prompt: str
    seed: int = Field(ge=0)
    parts_asked: list[str] | None = None
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    sound: SoundPlan | None = None
    variants: dict[str, int] = {}
    style_overrides: list[StyleOverride] = []
    node_genres: dict[str, str] = {}
    form: str | None = None
    frozen: list[str] = []
    parts: dict[str, str] = {}
    # where a part plays when it was added to some bars only ("add strings to the chorus"):
    # 1-based inclusive bar ranges, kept when the part is made again
    spans: dict[str, list[tuple[int, int]]] = {}
    # bars in another key than the recipe's own (see `compose.key_map`); none: one key throughout
    key_map: list[KeySpan] = []

    @classmethod
    def from_run(cls, state: PipelineState, artifacts: Artifacts, track_names: Mapping[str, str]) -> Recipe:
        """The recipe of a finished compose run (`track_names`: role → the track's name)."""
        # a part kept from a later take (`--takes`) is the part its node makes that many variants on
        variants = {name: rec.variant + _take(artifacts.get(name)) for name, rec in state.nodes.items()}
        variants = {name: v for name, v in variants.items() if v}
        cfg = state.config
        return cls(prompt=state.raw_prompt, seed=state.seed, parts_asked=cfg.parts,
                   intent=artifacts.need("intent", Intent), harmony=artifacts.need("harmony", HarmonyPlan),
                   arrangement=artifacts.need("arrangement", ArrangementPlan),
                   sound=artifacts.get_as("sound", SoundPlan), variants=variants, style_overrides=list(cfg.style_overrides),
                   node_genres=dict(cfg.node_genres), form=cfg.form, parts=dict(track_names))

    def variant(self, node: str) -> int:
        return self.variants.get(node, 0)

    def bumped(self, nodes: Iterable[str]) -> Recipe:
        """The same recipe with the named nodes' seed variants moved on by one."""
        variants = dict(self.variants)
        for node in nodes:
            variants[node] = variants.get(node, 0) + 1
        return self.model_copy(update={"variants": variants})

    def config(self, **overrides: Any) -> PipelineConfig:
        """A run config that makes what this recipe made (no files, no checkpoints)."""
        base: dict[str, Any] = {"seed": self.seed, "parts": self.parts_asked, "style_overrides": self.style_overrides,
                                "node_genres": self.node_genres, "form": self.form, "checkpoints": False, "quality_gate": False, "render_audio": False,
                                "render_pianoroll": False}
        return PipelineConfig(**{**base, **overrides})


def _take(artifact: Any) -> int:
    return artifact.stats.take if isinstance(artifact, PartResult) else 0


class Rerun(BaseModel):
    """What a partial run made: the plans (given or run again) and the parts asked for."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    parts: dict[str, PartResult]


def _graph(keys: Sequence[str], part_fn: PartFn) -> Graph:
    plans = [item for item in build_graph().items if isinstance(item, Node) and item.name in PLAN_NODES]
    fan = part_fanout(part_fn)
    chosen = list(keys)
    members = dataclasses.replace(fan, members=lambda artifacts: chosen)
    return Graph([*plans, members])


def rerun(recipe: Recipe, keys: Sequence[str], *, run: Iterable[str] = (), plans: Mapping[str, PlanArtifact] | None = None,
          config: Mapping[str, object] | None = None, part_fn: PartFn = default_part) -> Rerun:
    """Run the part nodes `keys` (and the plan nodes in `run`) from `recipe`; the plans come from
    `plans` when given there, else from the recipe. `config` overrides run settings (genre,
    tempo, key … for an intent run again). Raises `RuntimeFailure` when a node fails."""
    given: dict[str, PlanArtifact] = {"intent": recipe.intent, "harmony": recipe.harmony, "arrangement": recipe.arrangement}
    given.update(plans or {})
    rerun_plans = [n for n in PLAN_NODES if n in set(run)]
    state = PipelineState.start(recipe.prompt, recipe.config(**dict(config or {})), recipe.seed)
    artifacts = Artifacts({name: given[name] for name in PLAN_NODES if name not in rerun_plans})
    for name in PLAN_NODES:
        state.nodes[name] = NodeRecord(node=name, critical=True, variant=recipe.variant(name),
                                       status="pending" if name in rerun_plans else "completed")
    for key in keys:
        name = part_node(key)
        state.nodes[name] = NodeRecord(node=name, critical=True, variant=recipe.variant(name))
    engine = Engine(state, _graph(keys, part_fn), artifacts=artifacts)
    done = engine.run()
    if done.status not in ("completed", "completed_partial"):
        message = done.error.message if done.error else done.status
        raise RuntimeFailure(f"regenerating {', '.join([*rerun_plans, *keys]) or 'nothing'} failed: {message}")
    out = engine.artifacts
    return Rerun(intent=out.need("intent", Intent), harmony=out.need("harmony", HarmonyPlan),
                 arrangement=out.need("arrangement", ArrangementPlan),
                 parts={key: out.need(part_node(key), PartResult) for key in keys})

