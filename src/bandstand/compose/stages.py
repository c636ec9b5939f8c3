"""The compose graph: intent → harmony → arrangement → one node per part →
sound, assembly → validation → output.

Each node is a thin typed function `run(ctx, inputs: XInputs) -> NodeResult[X]`
(its inputs model in `compose.node_inputs`; `compose.edges` reads the edges
off the annotations) that calls the pipeline's functions (intent, harmony,
arrangement, parts, sound, assembly, validation, output), says what it did in
one line, and says how its artifact is saved in and restored from a checkpoint.
`build_graph(handlers)` returns the graph the engine runs; `handlers` may
replace any node by name (a bare `run(ctx)`: the node keeps its typed edges
and output) or the per-part generator (key "part"), which is how tests drive
the engine with slow, failing or flaky nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from bandstand.compose import codec
from bandstand.compose.edges import edges_of, typed_node
from bandstand.compose.graph import Artifacts, Fanout, Graph
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Ambiguity, Intent
from bandstand.compose.models.parts import PartResult, PartStats
from bandstand.compose.models.reports import SessionFiles, ValidationReport
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.node_inputs import (
    ArrangementInputs,
    AssemblyInputs,
    HarmonyInputs,
    IntentInputs,
    OutputInputs,
    PartInputs,
    SoundInputs,
    ValidationInputs,
)
from bandstand.compose.nodes import Node, NodeContext, NodeResult
from bandstand.compose.state import (
    PARTS,
    STEPS,
    ErrorCode,
    PipelineState,
    node_role,
    part_node,
    part_role,
)
from bandstand.craft.situation import ROLE_PARENT
from bandstand.craft.style import StyleOverride
from bandstand.errors import AgentError, StageFailed
from bandstand.score import Song, TimeSignature, Track

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend

__all__ = ["GATE_NODES", "ROLE_ORDER", "SEED_KEYS", "PartFn", "build_graph", "default_part", "part_fanout",
           "part_roles", "played_as", "role_order", "supported_roles"]

PM = TypeVar("PM", bound=BaseModel)
PartFn = Callable[[str, Intent, HarmonyPlan, ArrangementPlan, int, Sequence[StyleOverride]], PartResult]
# Seeds derive from these keys (the positions of the eight-stage pipeline), so a seed makes
# the same song it made before the pipeline became a graph.
SEED_KEYS: dict[str, str] = {"intent": "1", "harmony": "2", "arrangement": "3", PARTS: "4"}
# What a failed quality gate blames (validation names a step of the pipeline) → what to redo.
GATE_NODES: dict[int, tuple[str, ...]] = {2: ("harmony",), 3: ("arrangement",), 4: (PARTS,), 6: ("assembly",)}


def _plural(count: int, noun: str) -> str:
    """'1 section marker', '2 section markers'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


# ----------------------------------------------------------------------------- intent

def make_run_intent(backend: AgentBackend | None) -> Callable[[NodeContext, IntentInputs], NodeResult[Intent]]:
    """The rules read the prompt; with a language-model `backend` its reading is merged in
    first (and corrected by the same rules)."""
    def run_intent(ctx: NodeContext, given: IntentInputs) -> NodeResult[Intent]:
        from bandstand.compose.intent import Overrides, decompose, extract

        cfg = ctx.config
        overrides = Overrides(tempo=cfg.tempo, key=cfg.key, mode=cfg.mode, bars=cfg.bars, genre=cfg.genre)
        extraction = None
        unread = ""
        if backend is not None:
            try:
                extraction = ctx.tool("llm_extract", extract, backend, ctx.state.raw_prompt, ctx.seed())
            except (StageFailed, AgentError) as exc:  # the rules alone still read the prompt
                unread = str(exc)
        intent = ctx.tool("decompose", decompose, ctx.state.raw_prompt, seed=ctx.seed(), overrides=overrides,
                          extraction=extraction)
        if unread:
            warning = Ambiguity(field="extraction", reason=f"the language model's reading of the prompt could not "
                                f"be used ({unread[:300]}); the rules read it alone", options=[], default="rules",
                                severity="optional")
            intent = intent.model_copy(update={"ambiguities": [*intent.ambiguities, warning]})
        summary = intent.summary + (" (the rules alone: the model's reply was not usable)" if unread else "")
        return NodeResult(intent, intent.model_dump(mode="json"), summary)
    return run_intent


def apply_intent(state: PipelineState, intent: Intent) -> None:
    state.intent = intent
    song = state.song_state
    song.title, song.genre, song.key, song.mode = intent.summary, list(intent.genre), intent.key, intent.mode
    song.tempo, song.time_signature = intent.tempo, intent.time_signature


# ----------------------------------------------------------------------------- harmony

def played_as(intent: Intent, genre: str | None) -> Intent:
    """The intent as a node sees it when it plays as another genre (that genre's idiom alone)."""
    if not genre:
        return intent
    return intent.model_copy(update={"genre": [genre], "sub_genre": []})


def run_harmony(ctx: NodeContext, given: HarmonyInputs) -> NodeResult[HarmonyPlan]:
    from bandstand.compose.harmony import build_harmony

    intent = played_as(given.intent, ctx.config.node_genres.get("harmony"))
    plan = ctx.tool("build_harmony", build_harmony, intent, ctx.seed())
    return NodeResult(plan, plan.model_dump(mode="json"), plan.summary)


def apply_harmony(state: PipelineState, plan: HarmonyPlan) -> None:
    state.song_state.progression = [c.symbol for c in plan.main_loop]


# ----------------------------------------------------------------------------- arrangement

def supported_roles() -> tuple[str, ...]:
    from bandstand.compose.parts import ROLES

    return ROLES


def _roles(ctx: NodeContext, intent: Intent) -> list[str]:
    from bandstand.compose.arrangement import resolve_roles

    return resolve_roles(intent, ctx.config.parts, supported_roles())


def run_arrangement(ctx: NodeContext, given: ArrangementInputs) -> NodeResult[ArrangementPlan]:
    from bandstand.compose.arrangement import build_arrangement

    plan = ctx.tool("build_arrangement", build_arrangement, given.intent, given.harmony, _roles(ctx, given.intent),
                    ctx.seed(), ctx.config.form)
    flow = " → ".join(f"{s.name} {s.bars}" for s in plan.sections)
    return NodeResult(plan, plan.model_dump(mode="json"), f"{plan.form_name} form, {plan.total_bars} bars: {flow}")


def skipped_arrangement(ctx: NodeContext) -> ArrangementPlan:
    """With the arrangement skipped the song is one loop of the requested length, everyone playing."""
    from bandstand.compose.arrangement import loop_chords

    intent = ctx.input("intent", Intent)
    harmony = ctx.input("harmony", HarmonyPlan)
    bars = intent.duration.max_bars if "duration" not in intent.inferred_fields else 32
    roles = _roles(ctx, intent)
    energy = intent.energy if intent.energy is not None else 0.6
    section = SectionPlan(name="Loop", kind="loop", start_bar=1, bars=bars, energy=energy, roles=roles,
                          chord_indices=loop_chords(harmony, bars), transition="cut")
    return ArrangementPlan(form_name="loop", generic_fallback=True, total_bars=bars, sections=[section],
                           bar_energy=[energy] * bars)


def apply_arrangement(state: PipelineState, plan: ArrangementPlan) -> None:
    state.song_state.sections = [s.name for s in plan.sections]
    state.song_state.total_bars = plan.total_bars
    state.song_state.parts = sorted(plan.all_roles(), key=role_order)


# ----------------------------------------------------------------------------- parts

ROLE_ORDER = ("drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody")


def role_order(role: str) -> tuple[int, str]:
    return (ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER), role)


def part_roles(artifacts: Artifacts) -> list[str]:
    """Who plays: every role the arrangement names, in the usual order."""
    arrangement = artifacts.get("arrangement")
    return sorted(arrangement.all_roles(), key=role_order) if isinstance(arrangement, ArrangementPlan) else []


def default_part(role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan, seed: int,
                 style_overrides: Sequence[StyleOverride] = ()) -> PartResult:
    from bandstand.compose.parts import generate_part

    if style_overrides:
        return generate_part(role, intent, harmony, arrangement, seed, style_overrides=style_overrides)
    return generate_part(role, intent, harmony, arrangement, seed)


def make_run_part(part_fn: PartFn, key: str) -> Callable[[NodeContext, PartInputs], NodeResult[PartResult]]:
    """The node of part `key`: its role's generator (a second pad, `pad-2`, plays the pad's),
    with the style overrides for that role."""
    role = part_role(key)

    def run_part(ctx: NodeContext, given: PartInputs) -> NodeResult[PartResult]:
        overrides = [o if o.role != key else o.model_copy(update={"role": role})
                     for o in ctx.config.style_overrides if o.role in ("*", key)]
        intent = played_as(given.intent, ctx.config.node_genres.get(key))
        harmony, arrangement = given.harmony, given.arrangement
        url = ctx.config.generators.get(role)
        remote: PartResult | str | None = None
        if url and intent.section_metres:  # the protocol asks for a part in one metre
            remote = "the song changes metre between its sections, which the generator protocol cannot ask for"
        elif url:
            remote = _remote(ctx, key, url, role, intent, harmony, arrangement)
        result = remote if isinstance(remote, PartResult) else _takes(ctx, key, part_fn, role, intent, harmony,
                                                                      arrangement, overrides)
        output: dict[str, Any] = {"stats": result.stats.model_dump(mode="json"),
                                  "track": codec.encode_track(result.track)}
        summary = f"{_plural(len(result.track.notes), 'note')} ({result.stats.style})"
        if url:  # the generator configured for the role, and whether its part was taken
            output["generator"] = {"url": url, "used": remote is result, "refused": None if remote is result else remote}
            if remote is not result:
                summary += f"; the {role} generator at {url} was not used: {remote}, so the built-in {role} plays"
        return NodeResult(result, output, summary)
    return run_part


def _takes(ctx: NodeContext, key: str, part_fn: PartFn, role: str, intent: Intent, harmony: HarmonyPlan,
           arrangement: ArrangementPlan, overrides: Sequence[StyleOverride]) -> PartResult:
    """The part, or the best of `config.takes` takes of it (`compose.quality.takes`). A song whose
    sections have metres of their own has the part written once per metre and each bar taken
    from the writing in its metre (`compose.metres.on_map`)."""
    from bandstand.compose.metres import metre_map, on_map

    def take(k: int) -> PartResult:
        name = f"generate_part:{key}" + (f":take{k}" if k else "")
        if not intent.section_metres:
            part: PartResult = ctx.tool(name, part_fn, role, intent, harmony, arrangement, ctx.seed(k), overrides)
            return part
        written: list[PartResult] = []

        def write(there: Intent) -> Track:
            ts = "/".join(map(str, there.time_signature))
            made: PartResult = ctx.tool(f"{name}:{ts}", part_fn, role, there, harmony, arrangement, ctx.seed(k),
                                        overrides)
            written.append(made)
            return made.track

        track = on_map(write, intent, arrangement)
        notes = len(track.notes)
        stats = written[0].stats.model_copy(update={
            "note_count": notes, "control_count": len(track.controls),
            "notes_per_bar": round(notes / max(1, arrangement.total_bars), 3)})
        return PartResult(track=track, stats=stats)

    if ctx.config.takes <= 1:
        return take(0)
    from bandstand.compose.lexicon import primary_genre
    from bandstand.compose.quality.takes import best_take

    return best_take(take, ctx.config.takes, TimeSignature(*intent.time_signature).beats_per_bar, harmony,
                     arrangement, primary_genre(intent).bass_style, metres=metre_map(intent, arrangement))


def _remote(ctx: NodeContext, key: str, url: str, role: str, intent: Intent, harmony: HarmonyPlan,
            arrangement: ArrangementPlan) -> PartResult | str:
    """Part `role` from the generator at `url` (`compose.parts.remote`), or why it was refused."""
    from bandstand.compose.parts import program_for
    from bandstand.compose.parts.remote import RemoteRefused, remote_part

    try:
        part: PartResult = ctx.tool(f"remote_part:{key}", remote_part, url, role, intent, harmony, arrangement,
                                    ctx.seed(), program_for(intent, role), timeout=ctx.config.generator_timeout)
    except RemoteRefused as exc:
        return exc.reason
    return part


def restore_part(data: Any, artifacts: Artifacts) -> PartResult:
    return PartResult(track=codec.decode_track(data["track"]), stats=PartStats.model_validate(data["stats"]))


# What each core role's part is made from (an extra role, a second pad, reads like the core role
# it belongs with): the drums hear no chords, the pad and the chords no form, and no part reads
# another — the bass locks to the groove's kick, which the arrangement and the genre decide.
PART_READS: dict[str, tuple[str, ...]] = {
    "drums": ("tempo", "genre", "energy", "metre", "arrangement"),
    "bass": ("key", "tempo", "genre", "metre", "harmony"),
    "chords": ("key", "metre", "harmony"),
    "pad": ("key", "metre", "harmony"),
    "lead": ("key", "metre", "harmony", "arrangement"),
}


def part_reads(key: str) -> tuple[str, ...]:
    """What part `key` (a role, or `pad-2`) is made from: its role's reads, or its parent role's."""
    role = part_role(key)
    return PART_READS.get(role) or PART_READS[ROLE_PARENT.get(role, "lead")]


def part_fanout(part_fn: PartFn) -> Fanout:
    def make(key: str) -> Node:
        return typed_node(part_node(key), make_run_part(part_fn, key), reads=part_reads(key), critical=True,
                          seed_key=SEED_KEYS[PARTS], member=key, restore=restore_part)
    return Fanout(PARTS, after=("arrangement",), members=part_roles, make=make, critical=True, output=PartResult,
                  takes=edges_of(PartInputs))


# ----------------------------------------------------------------------------- sound

def run_sound(ctx: NodeContext, given: SoundInputs) -> NodeResult[SoundPlan]:
    from bandstand.compose.sound import build_sound

    plan = ctx.tool("build_sound", build_sound, given.intent, {r: p.track.program for r, p in given.parts.items()},
                    {r: p.track for r, p in given.parts.items()})
    return NodeResult(plan, plan.model_dump(mode="json"), plan.summary)


# ----------------------------------------------------------------------------- assembly

def _assemble(parts: Mapping[str, PartResult], intent: Intent, harmony: HarmonyPlan,
              arrangement: ArrangementPlan) -> Song:
    from bandstand.compose.assembly import assemble

    return assemble([p.track for p in parts.values()], intent, harmony, arrangement)


def run_assembly(ctx: NodeContext, given: AssemblyInputs) -> NodeResult[Song]:
    song = ctx.tool("assemble", _assemble, given.parts, given.intent, given.harmony, given.arrangement)
    notes = sum(len(t.notes) for t in song.tracks)
    markers = len(song.markers) or len(song.sections)
    output = {"tracks": len(song.tracks), "notes": notes, "markers": markers}
    return NodeResult(song, output, f"{_plural(len(song.tracks), 'track')} + conductor, {_plural(notes, 'note')}, "
                            f"{_plural(markers, 'section marker')}")


def restore_song(data: Any, artifacts: Artifacts) -> Song:
    """Assembly is a pure function of the plans and the parts, so its checkpoint holds only a
    summary and the song is assembled again from the restored parts (the same bytes)."""
    return _assemble(artifacts.members_as(PARTS, PartResult), artifacts.need("intent", Intent),
                     artifacts.need("harmony", HarmonyPlan), artifacts.need("arrangement", ArrangementPlan))


# ----------------------------------------------------------------------------- validation

def run_validation(ctx: NodeContext, given: ValidationInputs) -> NodeResult[ValidationReport]:
    from bandstand.compose.validation import evaluate_quality, gate

    score = ctx.tool("evaluate_quality", evaluate_quality, given.assembly, given.intent, given.harmony,
                     given.arrangement)
    verdict = ctx.tool("gate", gate, score)
    axes = " ".join(f"{k} {v:.2f}" for k, v in score.axes.items())
    report = ValidationReport(score=score, gate=verdict)
    summary = f"quality {score.mean:.2f} ({axes}) — {'passed' if verdict.passed else 'gate failed: ' + verdict.reason}"
    regenerate: tuple[str, ...] = ()
    if not verdict.passed:  # the parts the weakest number is about, when the song has them; else the stage
        blamed = tuple(n for n in ctx.state.nodes if node_role(n) is not None
                       and part_role(node_role(n) or "") in verdict.responsible_parts)
        regenerate = blamed or GATE_NODES.get(verdict.responsible_stage, ())
    return NodeResult(report, report.model_dump(mode="json"), summary, quality_score=round(score.mean, 4), regenerate=regenerate,
                      failing_axes=tuple(verdict.failing_axes), failing=verdict.weakest or verdict.reason)


# ----------------------------------------------------------------------------- output

def run_output(ctx: NodeContext, given: OutputInputs) -> NodeResult[SessionFiles]:
    from bandstand.compose.harmony import progression_file
    from bandstand.compose.output import write_session

    harmony, quality = given.harmony, given.validation

    def time_up() -> str | None:
        up = ctx.time_up()
        return None if up is None else up.message

    out = ctx.tool("write_session", write_session, Path(ctx.state.session_dir), ctx.state, given.intent,
                   harmony, given.arrangement, given.parts, given.sound, given.assembly,
                   quality.score.model_dump(mode="json") if quality else None, progression_file(harmony),
                   cancelled=ctx.stopping, time_up=time_up, progress=lambda words: ctx.say(f"rendering: {words}"))
    files = [f.path for f in out.files]
    degraded = "; ".join(out.degraded) or None
    shown = [f for f in files if not f.startswith("state/")]
    summary = f"{_plural(len(shown), 'file')} (and the state) in {ctx.state.session_dir}"
    code: ErrorCode = "FILE_WRITE_FAILED" if out.write_failed else "TOOL_EXECUTION_FAILED"
    hint: str | None = None
    up = ctx.out_of_time
    if out.out_of_time and up is not None:
        folder = ctx.state.session_dir
        summary += "; no WAV: its time was up"
        code = "TIMEOUT"
        hint = (f"everything else is written; render the WAV into the session later with bandstand resume {folder} "
                f"{up.option} SECONDS, or into {folder}/export with bandstand export {folder} --format wav")
    # the live artifact also names the song the piano roll was drawn from (not checkpointed: a
    # resumed run does not know what an earlier process drew), so revision 1 need not draw it again
    made = SessionFiles(files=tuple(files), degraded=tuple(out.degraded), pianoroll_of=out.pianoroll_of,
                        lead_sheet_source=out.lead_sheet_source)
    return NodeResult(made, made.checkpoint(), summary, degraded=degraded, degraded_code=code, degraded_hint=hint)


def apply_output(state: PipelineState, result: SessionFiles) -> None:
    state.song_state.files = list(result.files)


def restore_output(data: Any, artifacts: Artifacts) -> SessionFiles:
    return SessionFiles.from_checkpoint(data)


def _model(kind: type[PM]) -> Callable[[Any, Artifacts], PM]:
    def restore(data: Any, artifacts: Artifacts) -> PM:
        return kind.model_validate(data)
    return restore


def build_graph(handlers: Mapping[str, Callable[..., Any]] | None = None,
                intent_backend: AgentBackend | None = None) -> Graph:
    """The compose graph; `handlers` replaces nodes by name or the part generator by "part";
    `intent_backend` (an `AgentBackend`) reads the prompt alongside the rules."""
    handlers = dict(handlers or {})
    part_fn: PartFn = handlers.pop("part", default_part)
    items: list[Node | Fanout] = [
        typed_node("intent", make_run_intent(intent_backend), critical=True, seed_key=SEED_KEYS["intent"],
                   restore=_model(Intent), apply=apply_intent, deterministic=intent_backend is None),
        typed_node("harmony", run_harmony, reads=("key", "mode", "genre", "dials"), critical=True,
                   seed_key=SEED_KEYS["harmony"], restore=_model(HarmonyPlan), apply=apply_harmony),
        typed_node("arrangement", run_arrangement, reads=("genre", "energy", "form", "metre"), critical=True,
                   seed_key=SEED_KEYS["arrangement"], restore=_model(ArrangementPlan), on_skip=skipped_arrangement,
                   apply=apply_arrangement),
        part_fanout(part_fn),
        typed_node("sound", run_sound, reads=("genre", "instrument"), restore=_model(SoundPlan)),
        typed_node("assembly", run_assembly, restore=restore_song),
        typed_node("validation", run_validation, restore=_model(ValidationReport)),
        typed_node("output", run_output, restore=restore_output, apply=apply_output, stops_short=True),
    ]
    graph_names = [i.name if isinstance(i, Node) else i.group for i in items]
    assert tuple(graph_names) == STEPS, graph_names
    for key, fn in handlers.items():
        if key not in graph_names or key == PARTS:
            raise ValueError(f"unknown node handler key {key!r}; use a node name ({', '.join(STEPS)}) or 'part'")
        i = graph_names.index(key)
        node = items[i]
        assert isinstance(node, Node)
        items[i] = node.with_handler(fn)
    return Graph(items)
