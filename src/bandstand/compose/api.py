"""The Python API of compose, and the one face the producer sees it by.

- `compose(prompt, **config)`, `resume(session_dir)` and `Pipeline` for callers that need
  to cancel, pause, approve or reject.
- The narrow engine calls (from `compose.runs`): `plan`, `plans_for`, `replan`,
  `regenerate`, `reach`, `dependencies`, `lay_out`, `active_spans`, `products`,
  `part_seed`, `plan_seed`, `read_state`, `write_state`; and three made here for what
  the producer did by hand: `write_parts(recipe, keys, plans)` writes parts again over
  given plans, `midi_files(song)` makes a song's MIDI files as a session holds them, and
  `planned_state` is the checkpoint of a song planned beside the graph (an agent team's).
- What the producer names from compose beside the engine: the plans' models (`Intent`,
  `HarmonyPlan`, `ArrangementPlan`, `SoundPlan` …), the lexicon's tables, the song's
  files (`song_files`, `write_audio`, `read_session_song`, the lead sheet), the sessions
  folder (`list_sessions`, `plan_clean`, `clean`), the sound plan, the key map and a few
  planners' tables — each re-exported under its own name (see `_LAZY`).

`bandstand.producer` imports compose through this module alone
(`tests/test_import_contract.py`). Importing it is cheap: every name but the
pipeline's own is loaded on first use (PEP 562 `__getattr__`), so a caller that
reads the sessions folder does not load the graph, and the pipeline's methods
load the engine when they run.

Everything a person can get wrong (an empty prompt, bars out of range, an
unknown key, mode, part or step, an output folder that cannot be written)
is checked before the session folder is created, so a bad call leaves
nothing behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from bandstand.errors import InvalidInput, OutputNotWritable
from bandstand.files import TMP_SUFFIX
from bandstand.lazy import lazy_getattr

if TYPE_CHECKING:
    import threading

    from bandstand.agents import AgentBackend
    from bandstand.compose.arrangement import FORMS, Slot
    from bandstand.compose.engine import Approver, Decision, EventSink
    from bandstand.compose.harmony import build_harmony
    from bandstand.compose.intent import Overrides, decompose
    from bandstand.compose.key_map import (
        bar_chords,
        bar_keys,
        key_changes,
        layers,
        overlay,
        with_chords,
    )
    from bandstand.compose.leadsheet import chords_from_track, lead_sheet
    from bandstand.compose.lexicon import (
        GENRE_BY_NAME,
        INSTRUMENTS,
        MOOD_BY_LABEL,
        MOODS,
        primary_genre,
    )
    from bandstand.compose.lexicon.genres import ALIASES
    from bandstand.compose.models.arrangement import ArrangementPlan, SectionKind, SectionPlan
    from bandstand.compose.models.harmony import HarmonyPlan
    from bandstand.compose.models.intent import Constraint, Intent
    from bandstand.compose.models.key_map import KeySpan
    from bandstand.compose.models.parts import PartResult
    from bandstand.compose.models.sound import SoundPlan
    from bandstand.compose.notes import preset_name
    from bandstand.compose.options import make_config, node_names
    from bandstand.compose.output import chord_changes
    from bandstand.compose.parts import (
        DEFAULT_PROGRAMS,
        KEYS_PROGRAMS,
        TRACK_NAMES,
        build_situation,
        styles_for,
    )
    from bandstand.compose.parts.context import METRE_BARS
    from bandstand.compose.parts.remote import parse_generators
    from bandstand.compose.quality.takes import takes_for
    from bandstand.compose.recipe import GENERATOR, Recipe
    from bandstand.compose.runs import (
        PLAN_OPTIONS,
        PartFn,
        Plans,
        Regenerated,
        Rerun,
        RunProducts,
        active_spans,
        default_part,
        dependencies,
        lay_out,
        part_seed,
        plan,
        plan_seed,
        plans_for,
        products,
        reach,
        read_state,
        regenerate,
        replan,
        role_order,
        roles_for,
        supported_roles,
        write_state,
    )
    from bandstand.compose.sessions import (
        ACTIVE_SECONDS,
        SESSION_RE,
        CleanPlan,
        SessionInfo,
        clean,
        inspect,
        list_sessions,
        plan_clean,
    )
    from bandstand.compose.songfiles import (
        LEAD_SHEET,
        MANIFEST,
        RENDER_CACHE,
        lead_sheet_source,
        part_files,
        self_listed,
        song_files,
        write_audio,
    )
    from bandstand.compose.songjson import SONG_JSON, read_session_song
    from bandstand.compose.sound import apply_sound, build_sound
    from bandstand.compose.state import (
        STEPS,
        PipelineState,
        SongState,
        new_session_id,
        part_node,
        part_role,
    )
    from bandstand.compose.validation import evaluate_quality
    from bandstand.protocol.jsonvalue import JSONObject
    from bandstand.score import Song

_LAZY: dict[str, str] = {
    # name → the module of bandstand.compose that defines it (loaded on first use)
    **dict.fromkeys(("FORMS", "Slot"), "arrangement"),
    **dict.fromkeys(("Approver", "Decision", "EventSink"), "engine"),
    "build_harmony": "harmony",
    **dict.fromkeys(("Overrides", "decompose"), "intent"),
    **dict.fromkeys(("bar_chords", "bar_keys", "key_changes", "layers", "overlay", "with_chords"), "key_map"),
    **dict.fromkeys(("chords_from_track", "lead_sheet"), "leadsheet"),
    "ALIASES": "lexicon.genres",
    **dict.fromkeys(("GENRE_BY_NAME", "INSTRUMENTS", "MOOD_BY_LABEL", "MOODS", "primary_genre"), "lexicon"),
    **dict.fromkeys(("ArrangementPlan", "SectionKind", "SectionPlan"), "models.arrangement"),
    "HarmonyPlan": "models.harmony",
    **dict.fromkeys(("Constraint", "Intent"), "models.intent"),
    "KeySpan": "models.key_map",
    "PartResult": "models.parts",
    "SoundPlan": "models.sound",
    "preset_name": "notes",
    **dict.fromkeys(("make_config", "node_names"), "options"),
    "chord_changes": "output",
    **dict.fromkeys(("DEFAULT_PROGRAMS", "KEYS_PROGRAMS", "TRACK_NAMES", "build_situation", "styles_for"), "parts"),
    "METRE_BARS": "parts.context",
    "parse_generators": "parts.remote",
    "takes_for": "quality.takes",
    **dict.fromkeys(("GENERATOR", "Recipe"), "recipe"),
    **dict.fromkeys(("PLAN_OPTIONS", "PartFn", "Plans", "Regenerated", "Rerun", "RunProducts", "active_spans",
                     "default_part", "dependencies", "lay_out", "part_seed", "plan", "plan_seed", "plans_for",
                     "products", "reach", "read_state", "regenerate", "replan", "role_order", "roles_for",
                     "supported_roles", "write_state"), "runs"),
    **dict.fromkeys(("ACTIVE_SECONDS", "SESSION_RE", "CleanPlan", "SessionInfo", "clean", "inspect", "list_sessions",
                     "plan_clean"), "sessions"),
    **dict.fromkeys(("LEAD_SHEET", "MANIFEST", "RENDER_CACHE", "lead_sheet_source", "part_files", "self_listed",
                     "song_files", "write_audio"), "songfiles"),
    **dict.fromkeys(("SONG_JSON", "read_session_song"), "songjson"),
    **dict.fromkeys(("apply_sound", "build_sound"), "sound"),
    **dict.fromkeys(("STEPS", "PipelineState", "SongState", "new_session_id",
                     "part_node", "part_role"), "state"),
    "evaluate_quality": "validation",
}

__all__ = ["ACTIVE_SECONDS", "ALIASES", "DEFAULT_PROGRAMS", "FORMS", "GENERATOR", "GENRE_BY_NAME", "INSTRUMENTS",
           "KEYS_PROGRAMS", "LEAD_SHEET", "MANIFEST", "METRE_BARS", "MOODS", "MOOD_BY_LABEL", "PLAN_OPTIONS",
           "RENDER_CACHE", "SESSION_RE", "SONG_JSON", "STEPS", "TRACK_NAMES", "Approver", "ArrangementPlan",
           "CleanPlan", "ComposeResult", "Constraint", "Decision", "EventSink", "HarmonyPlan", "Intent", "KeySpan",
           "Overrides", "PartFn", "PartResult", "Pipeline", "PipelineState", "Plans", "Recipe", "Regenerated",
           "Rerun", "RunProducts", "SectionKind", "SectionPlan", "SessionInfo", "Slot", "SongState", "SoundPlan",
           "active_spans", "apply_sound", "bar_chords", "bar_keys", "build_harmony", "build_situation", "build_sound",
           "chord_changes", "chords_from_track", "clean", "compose", "decompose", "default_part", "dependencies",
           "evaluate_quality", "inspect", "key_changes", "lay_out", "layers", "lead_sheet", "lead_sheet_source",
           "list_sessions", "make_config", "midi_files", "new_session_id", "node_names", "overlay",
           "parse_generators", "part_files", "part_node", "part_role", "part_seed", "plan", "plan_clean", "plan_seed",
           "planned_state", "plans_for", "preset_name", "primary_genre", "products", "reach", "read_session_song",
           "read_state", "regenerate", "replan", "resume", "role_order", "roles_for", "self_listed", "song_files",
           "styles_for", "supported_roles", "takes_for", "with_chords", "write_audio", "write_parts", "write_state"]


__getattr__ = lazy_getattr("bandstand.compose.api", _LAZY, globals(), package="bandstand.compose")


Handlers = Mapping[str, Callable[..., object]]


def _create_session(out_dir: str, session_id: str) -> Path:
    root = Path(out_dir).expanduser()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputNotWritable(f"cannot create output folder {root}: {exc.strerror or exc}; choose another with --out") from exc
    if not root.is_dir() or not os.access(root, os.W_OK | os.X_OK):
        raise OutputNotWritable(f"output folder {root} is not writable; choose another with --out")
    session = root / session_id
    try:
        session.mkdir(parents=False, exist_ok=True)
    except OSError as exc:
        raise OutputNotWritable(f"cannot create {session}: {exc.strerror or exc}; choose another folder with --out") from exc
    return session


class IntentSummary(TypedDict):
    """What a run's summary says of the intent it read."""

    genre: list[str]
    sub_genre: list[str]
    tempo: float
    key: str
    mode: str
    half_time: bool
    perceived_bpm: float
    mood: list[str]
    influences: list[str]
    time_signature: list[int]
    ambiguities: list[JSONObject]
    summary: str


class SectionSummary(TypedDict):
    """One section of the arrangement, as a run's summary lists it."""

    name: str
    kind: str
    start_bar: int
    bars: int
    energy: float
    roles: list[str]


class QualitySummary(TypedDict):
    """The validation's verdict in a run's summary: the axes' scores, their mean, the gate."""

    axes: JSONObject
    mean: float | None
    passed: bool
    failing_axes: list[str]


class TakesOfPart(TypedDict):
    """A part made in several takes: the take kept and every take's score."""

    kept: int
    scores: list[float]


class TakesSummary(TypedDict):
    count: int
    parts: dict[str, TakesOfPart]


class RunSummary(TypedDict):
    """A compose run as one JSON object: what `bandstand compose --json` prints, key for key."""

    session_dir: str
    session_id: str
    status: str
    seed: int
    reproduce: str | None
    prompt: str
    intent: IntentSummary | None
    progression: list[str]
    sections: list[SectionSummary]
    total_bars: int
    parts: list[str]
    files: list[str]
    quality: QualitySummary | None
    takes: TakesSummary
    timings_ms: dict[str, float]
    total_ms: float
    nodes: dict[str, str]
    retries: int
    error: JSONObject | None


@dataclass(slots=True)
class ComposeResult:
    """What a run produced: the pipeline state, the song, the manifest and where it all is."""

    state: PipelineState
    session_dir: Path
    song: Song | None
    manifest: JSONObject | None  # the session's manifest.json as read

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def song_state(self) -> SongState:
        return self.state.song_state

    @property
    def intent(self) -> Intent | None:
        return self.state.intent

    @property
    def files(self) -> list[Path]:
        return [self.session_dir / f for f in self.state.song_state.files]

    def reproduce(self) -> str | None:
        """The options that give this song again with the same prompt (the seed, and a genre the
        person chose when asked), or None when a step was redone with a new seed variant at an
        approval gate: no seed gives that song again."""
        import shlex

        state = self.state
        if any(h.action == "rejected" for h in state.song_state.history):
            return None
        genre, takes = state.config.genre, state.config.takes
        return (f"--seed {state.seed}" + (f" --genre {shlex.quote(genre)}" if genre else "")
                + (f" --takes {takes}" if takes > 1 else ""))

    def _takes(self) -> dict[str, TakesOfPart]:
        """Per part made in several takes: the take kept and every take's score."""
        out: dict[str, TakesOfPart] = {}
        for rec in self.state.nodes.values():
            stats = rec.output.get("stats") if isinstance(rec.output, dict) else None
            if rec.node.startswith("parts:") and isinstance(stats, dict) and stats.get("takes"):
                out[rec.node.split(":", 1)[1]] = {"kept": stats.get("take", 0), "scores": stats["takes"]}
        return out

    def summary(self) -> RunSummary:
        """The run as one JSON-able object (what `bandstand compose --json` prints)."""
        state, intent = self.state, self.state.intent
        arr, val = state.nodes.get("arrangement"), state.nodes.get("validation")
        arrangement = arr.output if arr is not None and arr.status == "completed" else None
        quality = val.output if val is not None and isinstance(val.output, dict) else None
        return {
            "session_dir": str(self.session_dir),
            "session_id": state.session_id,
            "status": state.status,
            "seed": state.seed,
            "reproduce": self.reproduce(),
            "prompt": state.raw_prompt,
            "intent": None if intent is None else {
                "genre": intent.genre, "sub_genre": intent.sub_genre, "tempo": intent.tempo, "key": intent.key,
                "mode": intent.mode, "half_time": intent.tempo_analysis.half_time,
                "perceived_bpm": intent.tempo_analysis.perceived_bpm, "mood": intent.mood,
                "influences": intent.influences, "time_signature": list(intent.time_signature),
                "ambiguities": [a.model_dump(mode="json") for a in intent.ambiguities],
                "summary": intent.summary,
            },
            "progression": state.song_state.progression,
            "sections": [] if not arrangement else [
                {"name": s["name"], "kind": s["kind"], "start_bar": s["start_bar"], "bars": s["bars"],
                 "energy": s["energy"], "roles": s["roles"]} for s in arrangement["sections"]],
            "total_bars": state.song_state.total_bars,
            "parts": state.song_state.parts,
            "files": state.song_state.files,
            "quality": None if not quality else {
                "axes": quality["score"]["axes"], "mean": val.quality_score if val else None,
                "passed": quality["gate"]["passed"], "failing_axes": quality["gate"]["failing_axes"]},
            "takes": {"count": state.config.takes, "parts": self._takes()},
            "timings_ms": {rec.node: rec.duration_ms for rec in state.nodes.values()},
            "total_ms": state.total_duration_ms,
            "nodes": {rec.node: rec.status for rec in state.nodes.values()},
            "retries": state.recovery.total_retries,
            "error": None if state.error is None else state.error.model_dump(mode="json"),
        }


class Pipeline:
    """A compose run you can drive: `run()`, `cancel()`, `approve()`, `reject()`."""

    def __init__(self, state: PipelineState, *, handlers: Handlers | None = None,
                 on_event: EventSink | None = None, approver: Approver | None = None,
                 intent_backend: AgentBackend | None = None, cancel: threading.Event | None = None) -> None:
        from bandstand.compose.checkpoint import BackgroundCheckpoint, FileCheckpoint
        from bandstand.compose.engine import Engine
        from bandstand.compose.stages import build_graph

        self.state = state
        self.session_dir = Path(state.session_dir)
        intent = state.nodes.get("intent")
        if intent_backend is None and state.config.intent_backend and (intent is None or intent.status != "completed"):
            intent_backend = _backend(state.config.intent_backend)
        self.engine = Engine(state, build_graph(handlers, intent_backend),
                             checkpoint=BackgroundCheckpoint(FileCheckpoint.in_session(self.session_dir)),
                             on_event=on_event, approver=approver, cancel=cancel)

    @classmethod
    def create(cls, prompt: str, *, handlers: Handlers | None = None, on_event: EventSink | None = None,
               approver: Approver | None = None, intent_backend: AgentBackend | str | None = None,
               cancel: threading.Event | None = None, **options: object) -> Pipeline:
        import secrets

        from bandstand.compose.checkpoint import FileCheckpoint
        from bandstand.compose.options import make_config
        from bandstand.compose.state import PipelineState

        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidInput('the prompt is empty; describe the song, e.g. "dark trap, 140 BPM, key of Am"')
        if isinstance(intent_backend, str):  # a backend's name, kept in the config
            options["intent_backend"], intent_backend = intent_backend, None
        config = make_config(**options)
        seed = config.seed if config.seed is not None else secrets.randbelow(2**31)
        state = PipelineState.start(prompt, config, seed)
        if intent_backend is not None and config.intent_backend is None:
            state.config.intent_backend = str(getattr(intent_backend, "name", None) or type(intent_backend).__name__)
        elif config.intent_backend and intent_backend is None:
            intent_backend = _backend(config.intent_backend)
        state.session_dir = str(_create_session(config.out_dir, state.session_id))
        pipeline = cls(state, handlers=handlers, on_event=on_event, approver=approver, intent_backend=intent_backend,
                       cancel=cancel)
        FileCheckpoint.in_session(pipeline.session_dir).save(state)
        return pipeline

    @classmethod
    def load(cls, session_dir: str | Path, *, handlers: Handlers | None = None, on_event: EventSink | None = None,
             approver: Approver | None = None, intent_backend: AgentBackend | None = None,
             cancel: threading.Event | None = None) -> Pipeline:
        import uuid

        from bandstand.compose.checkpoint import FileCheckpoint

        root = Path(session_dir)
        if not root.is_dir():
            raise InvalidInput(f"no session folder at {root}; see 'bandstand sessions list'")
        state = FileCheckpoint.in_session(root).load()
        state.session_dir = str(root)
        for leftover in root.rglob(f".*{TMP_SUFFIX}"):  # half-written files of the run that crashed
            leftover.unlink(missing_ok=True)
        if state.status not in ("completed", "completed_partial", "paused"):
            for rec in state.nodes.values():
                if rec.status in ("running", "retrying") or (rec.status == "failed" and rec.critical):
                    rec.status, rec.retry_count, rec.error, rec.attempts = "pending", 0, None, []
            state.recovery.previous_pipeline_id = state.pipeline_id
            state.pipeline_id = str(uuid.uuid4())
            state.recovery.is_resumed = True
            state.recovery.resume_count += 1
            state.error = None
        pipeline = cls(state, handlers=handlers, on_event=on_event, approver=approver, intent_backend=intent_backend,
                       cancel=cancel)
        if state.status == "completed_partial" and pipeline.engine.retry_failures():
            state.recovery.previous_pipeline_id = state.pipeline_id
            state.pipeline_id = str(uuid.uuid4())
            state.recovery.is_resumed = True
            state.recovery.resume_count += 1
        return pipeline

    def run(self) -> ComposeResult:
        if self.state.config.render_audio and self.state.status not in ("completed", "completed_partial"):
            from bandstand.render.synth import warm

            warm()  # the synthesizer made ready while the parts are written (the WAV comes last)
        state = self.engine.run()
        return self.result(state)

    def result(self, state: PipelineState | None = None) -> ComposeResult:
        import json

        from bandstand.score import Song

        state = state or self.state
        manifest_path = self.session_dir / "manifest.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else None
        return ComposeResult(state=state, session_dir=self.session_dir,
                             song=self.engine.artifacts.get_as("assembly", Song), manifest=manifest)

    def products(self) -> RunProducts:
        """What the run made, typed (after `run`; KeyError when a plan is missing)."""
        from bandstand.compose.runs import products

        return products(self.engine.artifacts)

    def restore(self) -> None:
        """Rebuild what the checkpoint says is done (a finished session loaded to read its products)."""
        self.engine.restore()

    def recipe(self, track_names: Mapping[str, str]) -> Recipe:
        """The recipe that makes this run's song again, node by node (`track_names`: role →
        the track's name)."""
        from bandstand.compose.recipe import Recipe

        return Recipe.from_run(self.state, self.engine.artifacts, track_names)

    def cancel(self) -> None:
        self.engine.cancel()

    def approve(self) -> None:
        self.engine.approve()

    def reject(self) -> None:
        self.engine.reject()


def _backend(name: str) -> AgentBackend:
    """An agent backend by name (claude-code, anthropic, openai) from the agents config."""
    from bandstand.agents import load_config, make_backend

    return make_backend(name, load_config())


def compose(prompt: str, *, handlers: Handlers | None = None, on_event: EventSink | None = None,
            approver: Approver | None = None, intent_backend: AgentBackend | str | None = None,
            cancel: threading.Event | None = None, **config: object) -> ComposeResult:
    """Compose a song from `prompt` and return the result.

    `cancel`, when set, stops the run (as `Pipeline.cancel`). The other keywords are
    `PipelineConfig` fields (checked by `make_config`, hence typed `object` here): seed, bars, parts, tempo, key, mode, genre, out_dir,
    skip_stages, approval_gates, max_retries_per_stage, stall_timeout, stage_timeout, pipeline_timeout,
    parallel_parts, quality_gate, checkpoints, render_audio, render_pianoroll, intent_backend (a backend
    name). `intent_backend` may also be an `AgentBackend` object: a language model then reads the prompt
    alongside the rules in the intent node.
    """
    return Pipeline.create(prompt, handlers=handlers, on_event=on_event, approver=approver,
                           intent_backend=intent_backend, cancel=cancel, **config).run()


def resume(session_dir: str | Path, *, approve: bool | None = None, handlers: Handlers | None = None,
           on_event: EventSink | None = None, approver: Approver | None = None) -> ComposeResult:
    """Continue an interrupted, failed, cancelled or paused session where it stopped; a session
    that finished with problems (`completed_partial`) runs again what failed (a WAV a full disk
    refused). For a paused session `approve=True` continues and `approve=False` redoes the node it paused after."""
    pipeline = Pipeline.load(session_dir, handlers=handlers, on_event=on_event, approver=approver)
    if approve is True:
        pipeline.approve()
    elif approve is False:
        pipeline.reject()
    return pipeline.run()


def write_parts(recipe: Recipe, keys: Sequence[str], plans: Mapping[str, Intent | HarmonyPlan | ArrangementPlan], *,
                part_fn: PartFn | None = None) -> dict[str, PartResult]:
    """The parts `keys` (part keys: `bass`, `lead:2` …) written again from `recipe` over `plans`
    (intent, harmony, arrangement; the recipe's where one is not given), with the recipe's seeds
    and variants: a change the caller has already read the reach of (`regenerate` reads it
    itself). `part_fn` writes each part (default: the built-in musicians). `RuntimeFailure` when
    one fails."""
    from bandstand.compose.recipe import rerun
    from bandstand.compose.stages import default_part

    return rerun(recipe, keys, plans=plans, part_fn=part_fn or default_part).parts


def midi_files(song: Song) -> dict[str, bytes]:
    """The song's MIDI files as a session holds them, by file name: the full arrangement first,
    then one per part (each with the song's conductor data), the mix written as CC7/CC10."""
    from dataclasses import replace

    from bandstand.compose.songfiles import FULL, _single, mix_controls, part_files
    from bandstand.midi import song_to_midi_bytes

    out = {f"{FULL}.mid": song_to_midi_bytes(replace(song, tracks=[mix_controls(t) for t in song.tracks]))}
    out.update((name, song_to_midi_bytes(_single(song, mix_controls(track)))) for name, track in part_files(song).items())
    return out


def planned_state(session_dir: str | Path, prompt: str, seed: int, plans: Plans, sound: SoundPlan, *,
                  by: str) -> PipelineState:
    """The pipeline state of a session whose plans were made beside the graph (an agent team's
    coordinator), as a finished compose run leaves it: the plans and `sound` as completed nodes
    with their outputs (summarised as made `by`), the intent, the session's folder and id. Its
    song state is the caller's to fill; `write_state` keeps it where a resume finds it."""
    from bandstand.compose.state import NodeRecord, PipelineConfig, PipelineState

    root = Path(session_dir)
    state = PipelineState.start(prompt, PipelineConfig(seed=seed, out_dir=str(root.parent)), seed)
    state.session_dir, state.session_id, state.intent, state.status = str(root), root.name, plans.intent, "completed"
    for name, value in (*plans._asdict().items(), ("sound", sound)):
        state.nodes[name] = NodeRecord(node=name, status="completed", output=value.model_dump(mode="json"),
                                       summary=f"{name} ({by})")
    return state
