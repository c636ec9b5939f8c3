"""The engine as the producer sees it: a few typed calls instead of the graph's parts.

`plan(prompt, seed, options)` runs the plan nodes (intent, harmony,
arrangement) with compose's own seeds; `plans_for(prompt, facts, roles)`
plans a song known by its facts (a project not composed here, a kept jam); `regenerate(recipe, changed, keys)`
reads the blast radius of a change off the graph (`reach`) and makes again
the parts it reaches; `replan(recipe, nodes)` makes plan nodes again from a
recipe; `lay_out(track, intent, harmony, arrangement)` lays a written part out
as compose does, and `active_spans` says where a role plays; `products(artifacts)` reads a finished run's artifacts
as one typed `RunProducts`; `part_seed` is a part's seed as the parts node
derives it (`plan_seed` a plan node's); `dependencies(parts)` says what each
component is made from; `read_state`/`write_state` keep a session's pipeline
state where a resume finds it.
Clients and the producer reach the graph, its nodes and its engine only
through these (re-exported by `compose.api`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bandstand.compose.arrangement import Slot, build_arrangement, resolve_roles
from bandstand.compose.assembly import active_spans, assemble
from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.compose.engine import Engine
from bandstand.compose.graph import Artifacts, Graph
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import Overrides, decompose
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult
from bandstand.compose.models.reports import SessionFiles, ValidationReport
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.nodes import Node, derive_seed
from bandstand.compose.options import make_config
from bandstand.compose.recipe import PLAN_NODES, PlanArtifact, Recipe, Rerun, rerun
from bandstand.compose.stages import (
    SEED_KEYS,
    PartFn,
    build_graph,
    default_part,
    role_order,
    supported_roles,
)
from bandstand.compose.state import PARTS, PipelineState, part_node
from bandstand.errors import RuntimeFailure
from bandstand.score import Song, Track

__all__ = ["PLAN_OPTIONS", "PartFn", "Plans", "Recipe", "Regenerated", "Rerun", "RunProducts", "active_spans",
           "default_part", "dependencies", "lay_out", "part_seed", "plan", "plan_seed", "plans_for", "products", "reach",
           "read_state", "regenerate", "replan", "role_order", "roles_for", "supported_roles", "write_state"]

PLAN_OPTIONS: tuple[str, ...] = ("bars", "parts", "tempo", "key", "mode", "genre", "form")
"""Options of a compose run the plan nodes read (the rest concern parts, files and audio)."""


class Plans(NamedTuple):
    """The three plans every part is written from."""

    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan


@dataclass(frozen=True, slots=True)
class RunProducts:
    """What a compose run made, typed: the plans, the parts by key in graph order, and what the
    later nodes made when they ran (None when skipped or failed)."""

    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    parts: dict[str, PartResult]
    sound: SoundPlan | None
    song: Song | None
    validation: ValidationReport | None
    files: SessionFiles | None


def products(artifacts: Artifacts) -> RunProducts:
    """A run's artifacts as `RunProducts` (KeyError when a plan is missing)."""
    return RunProducts(intent=artifacts.need("intent", Intent), harmony=artifacts.need("harmony", HarmonyPlan),
                       arrangement=artifacts.need("arrangement", ArrangementPlan),
                       parts=artifacts.members_as(PARTS, PartResult), sound=artifacts.get_as("sound", SoundPlan),
                       song=artifacts.get_as("assembly", Song),
                       validation=artifacts.get_as("validation", ValidationReport),
                       files=artifacts.get_as("output", SessionFiles))


def part_seed(seed: int, key: str, variant: int = 0) -> int:
    """Part `key`'s seed in a run of `seed`, derived as the parts node derives it."""
    return derive_seed(seed, SEED_KEYS[PARTS], key, variant)


def plan_seed(seed: int, node: str) -> int:
    """The seed plan node `node` (intent, harmony or arrangement) runs with in a run of `seed`."""
    return derive_seed(seed, SEED_KEYS[node])


def read_state(session_dir: str | Path) -> PipelineState:
    """A session's pipeline state, from its checkpoint (`InvalidInput` when there is none)."""
    return FileCheckpoint.in_session(session_dir).load()


def write_state(session_dir: str | Path, state: PipelineState) -> None:
    """Keep `state` as the session's checkpoint (written atomically)."""
    FileCheckpoint.in_session(session_dir).save(state)


def plan(prompt: str, seed: int, options: Mapping[str, object] | None = None) -> Plans:
    """The intent, harmony and arrangement `prompt` and `seed` give, from the compose graph's
    own plan nodes and seeds (only `PLAN_OPTIONS` of `options` count). `RuntimeFailure` when a
    plan node fails."""
    chosen = {k: v for k, v in (options or {}).items() if k in PLAN_OPTIONS and v is not None}
    config = make_config(**chosen, seed=seed, checkpoints=False, quality_gate=False, render_audio=False,
                         render_pianoroll=False)
    state = PipelineState.start(prompt, config, seed)
    engine = Engine(state, Graph([item for item in build_graph().items
                                  if isinstance(item, Node) and item.name in PLAN_NODES]))
    done = engine.run()
    if done.status not in ("completed", "completed_partial"):
        raise RuntimeFailure(f"setting the song up failed: {done.error.message if done.error else done.status}")
    a = engine.artifacts
    return Plans(a.need("intent", Intent), a.need("harmony", HarmonyPlan), a.need("arrangement", ArrangementPlan))


def _nodes(parts: Sequence[str]) -> list[Node]:
    graph = build_graph()
    known = {n.name: n for n in graph.expand(Artifacts())}  # the nodes before the parts are known
    return [known["harmony"], known["arrangement"], *graph.with_members(PARTS, parts), known["sound"]]


def dependencies(parts: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(node, what it is made from: facts and nodes) for the harmony, the arrangement, each of
    `parts` and the sound, in graph order, as the nodes declare it (`Node.reads`)."""
    return [(n.name, n.reads) for n in _nodes(parts)]


def reach(changed: Iterable[str], parts: Sequence[str], held: Iterable[str] = ()) -> list[str]:
    """The nodes (harmony, arrangement, `parts:KEY` for `parts`, sound) a change of `changed`
    (facts and node names) reaches through what they read, transitively, in graph order; a
    node in `held` (a frozen part) is neither reached nor passes the change on."""
    return build_graph().reached(changed, _nodes(parts), held)


class Regenerated(NamedTuple):
    """What `regenerate` made: the nodes it reached, and the plans and parts made again."""

    reached: tuple[str, ...]
    made: Rerun


def regenerate(recipe: Recipe, changed: Iterable[str], keys: Sequence[str], *, frozen: Iterable[str] = (),
               plans: Mapping[str, PlanArtifact] | None = None, part_fn: PartFn = default_part) -> Regenerated:
    """The parts among `keys` that a change of `changed` (facts: key, tempo …; nodes: harmony,
    parts:bass …) reaches, made again from `recipe` (with `plans` in place of its plans when
    given); a part in `frozen` (part keys) stays as it is."""
    reached = reach(changed, keys, [part_node(k) for k in frozen])
    again = [k for k in keys if part_node(k) in reached]
    return Regenerated(tuple(reached), rerun(recipe, again, plans=plans, part_fn=part_fn))


def replan(recipe: Recipe, nodes: Iterable[str], config: Mapping[str, object] | None = None) -> Rerun:
    """The plan nodes among `nodes` (intent, harmony, arrangement) made again from `recipe`, with
    its seeds and variants; `config` overrides run settings (genre, tempo, key … for an intent
    made again). The plans not named are the recipe's; no part is written."""
    return rerun(recipe, [], run=nodes, config=config)


def lay_out(track: Track, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> Track:
    """A written part laid out over the song as compose lays it out: silent where the
    arrangement rests it, with its transition ramps."""
    return assemble([track], intent, harmony, arrangement).tracks[0]


def roles_for(intent: Intent) -> list[str]:
    """The roles compose has play for `intent` when no parts are asked for (an ensemble's
    players, or the core five and what the genre and the instrument requests bring)."""
    return resolve_roles(intent, None, supported_roles())


def plans_for(prompt: str, facts: Overrides, roles: Sequence[str] | None = None, *, seed: int | None = None,
              time_signature: tuple[int, int] | None = None, form: Sequence[Slot] | None = None) -> Plans:
    """The plans of a song known by its facts rather than composed here (a project imported or
    made in the studio, a jam kept as a song, a compose plan): the intent `prompt` and `facts`
    give (in `time_signature` when the song has its own metre), its harmony, and its
    arrangement for `roles` (None: the roles compose would choose) over `form` when given.
    With `seed`, each plan gets the seed the compose graph gives it (`plan_seed`); without,
    every plan's seed is 0."""
    seeds = {name: plan_seed(seed, name) if seed is not None else 0 for name in PLAN_NODES}
    intent = decompose(prompt, seed=seeds["intent"], overrides=facts)
    if time_signature is not None:
        intent = intent.model_copy(update={"time_signature": time_signature, "section_metres": {}})
    harmony = build_harmony(intent, seeds["harmony"])
    chosen = list(roles) if roles is not None else roles_for(intent)
    return Plans(intent, harmony, build_arrangement(intent, harmony, chosen, seeds["arrangement"], form))
