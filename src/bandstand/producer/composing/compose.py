"""Composing a song, as a use case every client shares.

`compose_song` and `resume_song` run the compose graph and ask their
questions through one gate: a `Question` (an ambiguous prompt, an approval
gate) with its options and default, which any client answers — the CLI on a
terminal, an HTTP client, an MCP tool. With `assume_defaults` every question
takes its default; with no one to answer, an ambiguity stops before anything
is written (one clear error naming the options) and an approval gate pauses
the run, resumable later. A finished run becomes revision 1 of the session as
a studio project, its recipe (plans, seeds, variants, style overrides) kept
in the provenance so `bandstand edit` can regenerate exactly what a request
reaches. The agent backend that reads the prompt is named
in the options (`intent_backend`) and built when the run starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bandstand.compose.api import (
    ALIASES,
    GENERATOR,
    STEPS,
    Approver,
    ComposeResult,
    Decision,
    EventSink,
    Overrides,
    Pipeline,
    PipelineState,
    Recipe,
    decompose,
    lay_out,
    make_config,
    part_node,
    plans_for,
    read_state,
    regenerate,
    takes_for,
)
from bandstand.craft.edits import StyleEdit
from bandstand.craft.requests import parse_request
from bandstand.errors import ConfigError, Conflict, InvalidInput
from bandstand.files import config_path
from bandstand.producer.execution.running import Control
from bandstand.protocol import compose as ev

if TYPE_CHECKING:
    from bandstand.craft.style import StyleOverride
    from bandstand.studio import Project
    from bandstand.studio.tools import GeneratedPart, PartRequest

__all__ = ["APPROVAL_OPTIONS", "STEPS", "Answer", "Composed", "Question", "ambiguity_questions", "approver", "compose_song",
           "part_generator", "resume_song", "style_words"]

APPROVAL_OPTIONS: tuple[str, ...] = ("approve", "reject", "pause")
ASK_AGAIN = 3  # answers to one question that do not fit before the run is refused


@dataclass(frozen=True, slots=True)
class Question:
    """Something only the person can decide: `kind` ambiguity (about a prompt `topic` such
    as genre) or approval (of the node `topic` just finished), with the options and the
    default a client offers."""

    kind: Literal["ambiguity", "approval"]
    topic: str
    text: str
    options: tuple[str, ...]
    default: str


# A client's answer to a question: one of the options (or, for an ambiguity, any value the
# field accepts), or None when there is no one to ask.
Answer = Callable[[Question], str | None]


@dataclass(slots=True)
class Composed:
    """A compose run and the decisions taken on the person's behalf (defaults assumed)."""

    result: ComposeResult
    decisions: list[str] = field(default_factory=list)


def ambiguity_questions(prompt: str, options: dict[str, Any]) -> list[Question]:
    """The blocking ambiguities of `prompt` (read by the rules alone) as questions."""
    intent = decompose(prompt, overrides=Overrides(tempo=options.get("tempo"), key=options.get("key"),
                                                   mode=options.get("mode"), bars=options.get("bars"),
                                                   genre=options.get("genre")))
    return [Question("ambiguity", a.field, f"{a.reason}. Which {a.field}?", tuple(a.options), a.default)
            for a in intent.ambiguities if a.severity == "blocking"]


def _settle_ambiguities(prompt: str, options: dict[str, Any], answer: Answer | None, assume_defaults: bool,
                        decisions: list[str]) -> None:
    for question in ambiguity_questions(prompt, options):
        if assume_defaults:
            options[question.topic] = question.default
            decisions.append(f"{question.text.split('. Which')[0]}; using {question.topic} '{question.default}'")
            continue
        asked = question
        for _ in range(ASK_AGAIN):
            reply = answer(asked) if answer is not None else None
            if reply is None or not reply.strip():
                raise InvalidInput(f"the prompt is ambiguous: {question.text.split('. Which')[0]}; name a "
                                   f"{question.topic} ({', '.join(question.options)}), pass --{question.topic} NAME, "
                                   f"or --yes to use '{question.default}'")
            try:  # a typo is asked again, not the end of the run
                make_config(**{**options, question.topic: reply.strip()})
            except InvalidInput as exc:
                asked = replace(question, text=f"{exc}. {question.text}")
                last = exc
                continue
            options[question.topic] = reply.strip()
            break
        else:
            raise last


def approver(answer: Answer | None, assume_defaults: bool) -> Approver:
    """The engine's approval gate, asked through `answer` (approve by default with
    `assume_defaults`; pause when there is no one to ask)."""
    def ask(state: PipelineState, node: str, summary: str) -> Decision:
        if assume_defaults:
            return "approve"
        if answer is None:
            return "pause"
        reply = answer(Question("approval", node, f"Approve {node}: {summary}", APPROVAL_OPTIONS, "approve"))
        return reply if reply in APPROVAL_OPTIONS else "pause"  # type: ignore[return-value]
    return ask


class _Reporter:
    """Compose events told as progress to a `Control`: nodes finished out of the nodes known so
    far (the parts become known as they start, so the total grows; `done` only ever grows)."""

    def __init__(self, control: Control, on_event: EventSink | None) -> None:
        self.control, self.on_event = control, on_event
        self.known: set[str] = set()
        self.finished: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        if self.on_event is not None:
            self.on_event(event)
        node = getattr(event, "node", None)
        if node is None:
            return
        with self.lock:
            self.known.add(node)
            telling = isinstance(event, ev.NodeProgress)  # what a long node does now: the same count, new words
            if not telling and (not isinstance(event, ev.NodeCompleted | ev.NodeSkipped | ev.NodeFailed)
                                or node in self.finished):
                return
            if not telling:
                self.finished.add(node)
            parts = sum(1 for n in self.known if n.startswith("parts:"))
            total = len(STEPS) - 1 + max(1, parts)
            self.control.report(len(self.finished), max(total, len(self.finished)), event.line())


def compose_song(prompt: str, *, answer: Answer | None = None, assume_defaults: bool = False,
                 on_event: EventSink | None = None, control: Control | None = None, **options: Any) -> Composed:
    """Compose a song from `prompt`. `options` are `PipelineConfig` fields (seed, bars, parts,
    tempo, key, mode, genre, out_dir, approval_gates, skip_stages, intent_backend, takes, …)
    and `quality` (a preset of takes: fast, balanced, best; `compose.quality.takes`).
    Everything a person can get wrong is refused before the session folder exists. With a
    `control`, the nodes finished are reported as progress and a cancel stops the run at the next
    safe point (its status is then `cancelled`, resumable)."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInput('the prompt is empty; describe the song, e.g. "dark trap, 140 BPM, key of Am"')
    options = dict(options)
    options["generators"] = part_generators(options.get("generators"))
    options["takes"] = takes_for(options.pop("takes", None), options.pop("quality", None))
    make_config(**options)
    if isinstance(options.get("intent_backend"), str):
        _check_intent_backend(options["intent_backend"])
    decisions: list[str] = []
    _settle_ambiguities(prompt, options, answer, assume_defaults, decisions)
    if decisions:
        options["assumed"] = [*options.get("assumed", ()), *decisions]
    sink = _Reporter(control, on_event) if control is not None else on_event
    pipeline = Pipeline.create(prompt, on_event=_ImportingAhead(sink), approver=approver(answer, assume_defaults),
                               cancel=control.cancel if control is not None else None, **options)
    return Composed(_first_take(pipeline, pipeline.run()), decisions)


class _ImportingAhead:
    """Passes every event on to `sink`; when the output node starts, imports on a thread of its
    own the modules `_first_take` will need (the studio's models, the project's head files): the
    render's threads spend most of that node in compiled code without the interpreter lock, so
    the imports come nearly free there instead of after it, where the command waited for them
    (about 25 ms of a cold compose)."""

    MODULES = ("bandstand.producer.sessions.projects", "bandstand.producer.sessions.head_files", "bandstand.studio")

    def __init__(self, sink: EventSink | None) -> None:
        self.sink, self.started = sink, False

    def __call__(self, event: Any) -> None:
        if not self.started and isinstance(event, ev.NodeStarted) and event.node == "output":
            self.started = True
            threading.Thread(target=self._import, name="bandstand-import-ahead", daemon=True).start()
        if self.sink is not None:
            self.sink(event)

    def _import(self) -> None:
        import importlib

        for name in self.MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # raised again where it is imported for real, on the command's thread
                return


def part_generators(given: Any = None) -> dict[str, str]:
    """The part generators over HTTP, by role: `given` (a {role: url} mapping, or `ROLE=URL`
    items as the CLI's `--generator` takes them), else the `[generators]` table of the config
    file (bandstand.toml, or `$BANDSTAND_CONFIG`). A wrong item is one `InvalidInput`."""
    import os

    if isinstance(given, dict):
        return _parsed([f"{role}={url}" for role, url in given.items()])
    if given:
        return _parsed([str(item) for item in given])
    source = config_path(None, os.environ)
    if source is None:
        return {}
    import tomllib

    try:
        table = tomllib.loads(source.read_text(encoding="utf-8")).get("generators", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{source}: cannot read its [generators]: {exc}") from exc
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f'{source}: [generators] maps a role to a URL, e.g. bass = "http://127.0.0.1:8000/part"')
    return _parsed([f"{role}={url}" for role, url in table.items()])


def _parsed(items: list[str]) -> dict[str, str]:
    # the HTTP generator's module (urllib, http.client) loads only when some generator is named
    from bandstand.compose.api import parse_generators

    return parse_generators(items)


def _check_intent_backend(name: str) -> None:
    """A backend that cannot work here (no key, no binary, no client) is refused before the
    session folder exists, as `jam --backend` is."""
    from bandstand.agents import load_config
    from bandstand.agents.registry import check_backends

    status = next((s for s in check_backends(load_config()) if s.name == name), None)
    if status is not None and not status.usable:
        raise ConfigError(f"--intent-backend {name} cannot be used here: {status.detail}; see 'bandstand agents check'")


def resume_song(session_dir: str | Path, *, decision: Decision | None = None, answer: Answer | None = None,
                assume_defaults: bool = False, on_event: EventSink | None = None,
                limits: dict[str, float] | None = None) -> Composed:
    """Continue an interrupted, failed, cancelled or paused session where it stopped;
    `decision` answers the gate a paused session waits at (approve or reject). A session that
    finished with problems runs again what failed — unless it was changed since (edits, undo):
    its files then show a later revision, which `bandstand export` writes. `limits` raise the
    run's `stall_timeout` / `stage_timeout` / `pipeline_timeout` (a run that timed out)."""
    _refuse_rewriting_a_changed_song(Path(session_dir))
    pipeline = Pipeline.load(session_dir, on_event=on_event, approver=approver(answer, assume_defaults))
    if limits:
        config = pipeline.state.config.model_dump()
        config.update({k: v for k, v in limits.items() if k in ("stall_timeout", "stage_timeout", "pipeline_timeout")})
        pipeline.state.config = type(pipeline.state.config).model_validate(config)
    if decision == "approve":
        pipeline.approve()
    elif decision == "reject":
        pipeline.reject()
    return Composed(_first_take(pipeline, pipeline.run()))


def _refuse_rewriting_a_changed_song(root: Path) -> None:
    from bandstand.studio import RevisionStore

    store = RevisionStore(root)
    if not root.is_dir() or not store.exists() or store.pointer().latest <= 1:
        return
    if read_state(root).status == "completed_partial":
        raise Conflict(f"{root} was changed since it was composed (revision {store.pointer().head}); resuming would "
                       f"write the first take over it: write what is missing with 'bandstand export {root} "
                       "--format wav' instead")


def _first_take(pipeline: Pipeline, result: ComposeResult) -> ComposeResult:
    """A finished run becomes revision 1 of the session as a studio project, with the recipe
    that regenerates any of its nodes in its provenance (once: a session that is already a
    project keeps its history)."""
    from bandstand.compose.api import apply_sound
    from bandstand.producer.sessions.head_files import pianoroll_source
    from bandstand.producer.sessions.projects import create_from_song
    from bandstand.studio import Provenance, RevisionStore

    if result.status not in ("completed", "completed_partial") or result.song is None:
        return result
    if RevisionStore(result.session_dir).exists():
        return result
    made = pipeline.products()
    song = apply_sound(result.song, made.sound) if made.sound is not None else result.song
    recipe = pipeline.recipe({t.role: t.name for t in song.tracks})
    provenance = Provenance(prompt=result.state.raw_prompt, seeds={"song": result.state.seed}, generator=GENERATOR,
                            recipe=recipe.model_dump(mode="json"))
    drawn = made.files.pianoroll_of if made.files else None  # the piano roll this run drew, of this song
    create_from_song(result.session_dir, song, provenance, request=result.state.raw_prompt,
                     pianoroll_source=pianoroll_source(drawn) if drawn is not None else None,
                     lead_sheet_source=made.files.lead_sheet_source if made.files else None)
    return pipeline.result(result.state)


# --------------------------------------------------------------------------- the studio's generate_part


def style_words(role: str, style: str | None) -> tuple[list[Any], str | None]:
    """Style words as the request parser reads them: knob turns for `role`, and a genre the
    part is played as when one is named ("funk", "walking jazz")."""
    from bandstand.producer.requests.iteration import vocabulary

    if not style or not style.strip():
        return [], None
    words = style.lower()
    genre = next((ALIASES[a] for a in sorted(ALIASES, key=len, reverse=True)
                  if f" {a} " in f" {words} "), None)
    try:
        edits = parse_request(style, vocabulary()).edits
    except InvalidInput:
        edits = ()
    overrides = [e.override.model_copy(update={"role": role}) for e in edits if isinstance(e, StyleEdit)]
    return overrides, genre


def _recipe_for(project: Project, bars: int) -> Recipe:
    """The project's compose recipe, or one made for it (a project that was not composed here:
    its tempo, key and metre, a generic song of the length asked for)."""
    if project.provenance.recipe:
        return Recipe.model_validate(project.provenance.recipe)
    tonic, _, mode = (project.key or "C major").partition(" ")
    ts = project.time_signature
    length = max(4, bars, sum(s.bars for s in project.sections))
    prompt = project.provenance.prompt or project.name or "a song"
    intent, harmony, arrangement = plans_for(
        prompt, Overrides(tempo=min(300.0, max(30.0, project.tempo)), key=tonic, mode=mode or "major",
                          bars=min(512, length)),
        ["drums", "bass", "chords", "lead", "pad"], time_signature=(ts.numerator, ts.denominator))
    return Recipe(prompt=prompt, seed=0, intent=intent, harmony=harmony, arrangement=arrangement)


def part_generator(project: Project, request: PartRequest, *, overrides: Sequence[StyleOverride] = ()) -> GeneratedPart:
    """The compose graph as the studio's `PartGenerator`: the part node for `request.role` runs
    from the project's recipe (its own derived seed, a fresh variant), with the style words read
    by the request parser and any further `overrides` (`craft.style.StyleOverride`s: a request's
    emotion), laid out as compose lays parts out, and cut to the bars asked for."""
    from bandstand.studio.tools import GeneratedPart

    role = request.role
    recipe = _recipe_for(project, request.start_bar - 1 + request.bars)
    words, genre = style_words(role, request.style)
    overrides = [*overrides, *words]
    key = role if role not in recipe.parts or request.track_id else f"{role}-gen"
    changes: dict[str, Any] = {"style_overrides": [*recipe.style_overrides, *overrides]}
    if genre:
        changes["node_genres"] = {**recipe.node_genres, key: genre}
    recipe = recipe.model_copy(update=changes).bumped([part_node(key)])
    arrangement = recipe.arrangement
    if role not in arrangement.all_roles():  # a role the song does not name plays everywhere it is asked to
        sections = [s.model_copy(update={"roles": [*s.roles, role]}) for s in arrangement.sections]
        arrangement = arrangement.model_copy(update={"sections": sections})
    made = regenerate(recipe, [part_node(key)], [key], plans={"arrangement": arrangement}).made
    track = lay_out(made.parts[key].track, made.intent, made.harmony, arrangement)
    bpb = project.beats_per_bar
    start, end = (request.start_bar - 1) * bpb, (request.start_bar - 1 + request.bars) * bpb
    return GeneratedPart(
        notes=[replace(n, start=n.start - start) for n in track.notes if start <= n.start < end],
        controls=[replace(c, time=c.time - start) for c in track.controls if start <= c.time < end],
        pitch_bends=[replace(b, time=b.time - start) for b in track.pitch_bends if start <= b.time < end],
        program=track.program, is_drum=track.is_drum,
        description=f"{role}: {made.parts[key].stats.style}" + (f", played as {genre}" if genre else ""))
