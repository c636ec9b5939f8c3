"""The Python API of compose: `compose(prompt, **config)`, `resume(session_dir)` and
`Pipeline` for callers that need to cancel, pause, approve or reject; and the
narrow engine calls the producer uses instead of the graph's own modules
(`plan`, `regenerate`, `reach`, `dependencies`, `products`, `part_seed`, from
`compose.runs`).

Everything a person can get wrong (an empty prompt, bars out of range, an
unknown key, mode, part or step, an output folder that cannot be written)
is checked before the session folder is created, so a bad call leaves
nothing behind.
"""

from __future__ import annotations

import os
import secrets
import shlex
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.compose.checkpoint import BackgroundCheckpoint, FileCheckpoint
from bandstand.compose.engine import Approver, Decision, Engine, EventSink
from bandstand.compose.intent import Overrides, decompose
from bandstand.compose.options import make_config, node_names
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
from bandstand.compose.stages import build_graph
from bandstand.compose.state import (
    STEPS,
    PipelineState,
    SongState,
    new_session_id,
    part_node,
    part_role,
)
from bandstand.errors import InvalidInput, OutputNotWritable
from bandstand.files import TMP_SUFFIX
from bandstand.score import Song

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend
    from bandstand.compose.models.intent import Intent

__all__ = ["GENERATOR", "PLAN_OPTIONS", "STEPS", "Approver", "ComposeResult", "Decision", "EventSink", "Overrides",
           "PartFn", "Pipeline", "PipelineState", "Plans", "Recipe", "Regenerated", "Rerun", "RunProducts",
           "active_spans", "compose", "decompose", "default_part", "dependencies", "lay_out", "make_config",
           "new_session_id", "node_names", "part_node", "part_role", "part_seed", "plan", "plan_seed", "plans_for",
           "products", "reach", "read_state", "regenerate", "replan", "resume", "role_order", "roles_for", "supported_roles",
           "write_state"]

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


@dataclass(slots=True)
class ComposeResult:
    """What a run produced: the pipeline state, the song, the manifest and where it all is."""

    state: PipelineState
    session_dir: Path
    song: Song | None
    manifest: dict[str, Any] | None

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
        state = self.state
        if any(h.action == "rejected" for h in state.song_state.history):
            return None
        genre, takes = state.config.genre, state.config.takes
        return (f"--seed {state.seed}" + (f" --genre {shlex.quote(genre)}" if genre else "")
                + (f" --takes {takes}" if takes > 1 else ""))

    def _takes(self) -> dict[str, dict[str, Any]]:
        """Per part made in several takes: the take kept and every take's score."""
        out: dict[str, dict[str, Any]] = {}
        for rec in self.state.nodes.values():
            stats = rec.output.get("stats") if isinstance(rec.output, dict) else None
            if rec.node.startswith("parts:") and isinstance(stats, dict) and stats.get("takes"):
                out[rec.node.split(":", 1)[1]] = {"kept": stats.get("take", 0), "scores": stats["takes"]}
        return out

    def summary(self) -> dict[str, Any]:
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
               cancel: threading.Event | None = None, **options: Any) -> Pipeline:
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

        state = state or self.state
        manifest_path = self.session_dir / "manifest.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else None
        return ComposeResult(state=state, session_dir=self.session_dir,
                             song=self.engine.artifacts.get_as("assembly", Song), manifest=manifest)

    def products(self) -> RunProducts:
        """What the run made, typed (after `run`; KeyError when a plan is missing)."""
        return products(self.engine.artifacts)

    def restore(self) -> None:
        """Rebuild what the checkpoint says is done (a finished session loaded to read its products)."""
        self.engine.restore()

    def recipe(self, track_names: Mapping[str, str]) -> Recipe:
        """The recipe that makes this run's song again, node by node (`track_names`: role →
        the track's name)."""
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
            **config: Any) -> ComposeResult:
    """Compose a song from `prompt` and return the result.

    Keywords are `PipelineConfig` fields: seed, bars, parts, tempo, key, mode, genre, out_dir,
    skip_stages, approval_gates, max_retries_per_stage, stall_timeout, stage_timeout, pipeline_timeout,
    parallel_parts, quality_gate, checkpoints, render_audio, render_pianoroll, intent_backend (a backend
    name). `intent_backend` may also be an `AgentBackend` object: a language model then reads the prompt
    alongside the rules in the intent node.
    """
    return Pipeline.create(prompt, handlers=handlers, on_event=on_event, approver=approver,
                           intent_backend=intent_backend, **config).run()


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
