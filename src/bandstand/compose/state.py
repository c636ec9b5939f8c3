"""The pipeline state: one pydantic object owns a run and is the checkpoint.

It records the prompt, the config, the status of the run and of each node
of the graph (attempts, retries, errors with their codes, tool calls,
timings, the node's output, its seed variant), the song as built so far and
the recovery information used by resume. Node records are keyed by node
name (`harmony`, `parts:bass`) in graph order. It round-trips through JSON
and carries a schema version that resume checks.

How long a node may take is watched two ways (`PipelineConfig`): by default an
attempt is stopped only once it has shown no progress for `stall_timeout`
seconds — a slow machine makes a node slower, not stuck — and a wall limit per
attempt (`stage_timeout`) applies only when a person sets one; the whole run
keeps its wall limit (`pipeline_timeout`).
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bandstand.compose.models.intent import Intent
from bandstand.craft.style import StyleOverride

__all__ = ["CRITICAL", "PARTS", "SCHEMA_VERSION", "SKIPPABLE", "STEPS", "HistoryEntry", "JudgedTake", "NodeRecord",
           "PipelineConfig", "PipelineState", "Recovery", "SongState", "StageError", "ToolCall", "new_session_id",
           "node_group", "node_role", "now", "part_node", "part_role"]

SCHEMA_VERSION = "2.1.0"
# Before 2.1 every run carried a 60 s wall limit per node, chosen or not; a resumed run of then
# is held to the stall limit instead (a limit chosen on `resume` still applies).
_OLD_DEFAULT_STAGE_TIMEOUT = 60.0

# The steps of the pipeline in graph order; `parts` is a group of one node per part
# (`parts:drums`, `parts:bass`, …). Users name steps by these names (or by their
# position, 1–8, which the CLI's `--approve 2` keeps meaning "after harmony").
STEPS: tuple[str, ...] = ("intent", "harmony", "arrangement", "parts", "sound", "assembly", "validation", "output")
PARTS = "parts"
# Nodes whose failure fails the run (every part node is critical); the rest end it partial.
CRITICAL: frozenset[str] = frozenset({"intent", "harmony", "arrangement", PARTS})
# Nodes a run may skip (something stands in for them, or nothing needs them).
SKIPPABLE: tuple[str, ...] = ("arrangement", "sound", "assembly", "validation", "output")


def part_node(role: str) -> str:
    """The node name of a part: `parts:bass`."""
    return f"{PARTS}:{role}"


def part_role(key: str) -> str:
    """The role a part key plays: `bass` → bass; `pad-2` (a second pad added later) → pad."""
    return key.split("-", 1)[0]


def node_group(name: str) -> str:
    """The step a node belongs to: `parts:bass` → `parts`, `harmony` → `harmony`."""
    return name.split(":", 1)[0]


def node_role(name: str) -> str | None:
    """The role of a part node (`parts:bass` → `bass`), None for other nodes."""
    group, _, role = name.partition(":")
    return role if group == PARTS and role else None

PipelineStatus = Literal["pending", "running", "paused", "recovering", "completed", "completed_partial",
                         "failed", "cancelled"]
StageStatus = Literal["pending", "running", "completed", "failed", "retrying", "skipped"]
ErrorCode = Literal["TOOL_EXECUTION_FAILED", "QUALITY_GATE_FAILED", "TIMEOUT", "INVALID_INPUT",
                    "DEPENDENCY_MISSING", "USER_CANCELLED", "FILE_WRITE_FAILED", "LLM_PARSE_FAILED", "UNKNOWN"]
TERMINAL: frozenset[str] = frozenset({"completed", "completed_partial", "failed", "cancelled"})


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_session_id(when: dt.datetime | None = None) -> str:
    """`session-YYYYMMDD-xxxxxx` with six random hex digits."""
    return f"session-{(when or now()):%Y%m%d}-{uuid.uuid4().hex[:6]}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_Model):
    name: str
    invoked_at: dt.datetime
    duration_ms: float
    success: bool
    error: str | None = None


class StageError(_Model):
    code: ErrorCode
    message: str
    failed_tool_call: str | None = None
    recoverable: bool = True
    recovery_hint: str = ""
    attempt: int = 1


class NodeRecord(_Model):
    """One node's run: status, attempts, the seed variant it ran with, its checkpointed output."""

    node: str
    status: StageStatus = "pending"
    critical: bool = False
    started_at: dt.datetime | None = None
    completed_at: dt.datetime | None = None
    duration_ms: float = 0.0
    retry_count: int = 0
    max_retries: int = 3
    variant: int = 0
    summary: str = ""
    output: Any = None
    error: StageError | None = None
    attempts: list[StageError] = []
    tool_calls: list[ToolCall] = []
    quality_score: float | None = None


class PipelineConfig(_Model):
    """How a run behaves. Defaults follow the spec; `seed` is filled in when not given.

    Time limits, in seconds: `stall_timeout` stops an attempt of a node that has shown no sign
    of progress for that long (its thread computing, a tool call, a render's step);
    `stage_timeout`, when set, is a wall limit per attempt on top of it; `pipeline_timeout` is
    the whole run's wall limit."""

    max_retries_per_stage: int = Field(default=3, ge=0, le=20)
    pipeline_timeout: float = Field(default=300.0, gt=0)
    stage_timeout: float | None = Field(default=None, gt=0)
    stall_timeout: float = Field(default=60.0, gt=0)
    parallel_parts: bool = True
    quality_gate: bool = True
    quality_regenerations: int = Field(default=2, ge=0, le=10)
    takes: int = Field(default=1, ge=1, le=8, description="takes made of each part; the best by quality is kept")
    skip_stages: list[str] = []
    checkpoints: bool = True
    approval_gates: list[str] = []
    alternatives: bool = False
    seed: int | None = Field(default=None, ge=0)
    parts: list[str] | None = None
    bars: int | None = None
    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    genre: str | None = None
    out_dir: str = "output"
    render_audio: bool = True
    render_pianoroll: bool = True
    intent_backend: str | None = None
    style_overrides: list[StyleOverride] = []
    # a node played as another genre would play it (harmony, or a part key): an alternative's
    # structural change ("walking bass", "another groove family", "another progression shape")
    node_genres: dict[str, str] = {}
    form: str | None = None  # the arrangement's form by name (None: the genre's)
    # a part generator per role, over HTTP (`compose.parts.remote`): its part is taken when it
    # passes the checks, else the built-in generator's plays and the part's summary says why
    generators: dict[str, str] = {}
    generator_timeout: float = Field(default=30.0, gt=0, le=600)
    # what was decided on the person's behalf before the run (`--yes` took a default for a
    # blocking ambiguity: "no genre named; … using genre 'chamber'"): the manifest's assumptions
    assumed: list[str] = []


class Recovery(_Model):
    last_successful_node: str | None = None
    checkpoint_path: str | None = None
    total_retries: int = 0
    is_resumed: bool = False
    previous_pipeline_id: str | None = None
    resume_count: int = 0


class HistoryEntry(_Model):
    at: dt.datetime
    node: str
    action: str
    detail: str = ""


class SongState(_Model):
    """The song as built so far: what each node has decided, and the history of it."""

    title: str = ""
    genre: list[str] = []
    key: str | None = None
    mode: str | None = None
    tempo: float | None = None
    time_signature: tuple[int, int] = (4, 4)
    progression: list[str] = []
    sections: list[str] = []
    total_bars: int = 0
    parts: list[str] = []
    files: list[str] = []
    history: list[HistoryEntry] = []


class QualityTake(_Model):
    """One song the quality gate judged: its quality, what failed (in words; empty when it passed)
    and what was redrawn after it."""

    quality: float
    failing: str = ""
    redrawn: list[str] = []


class QualityRetries(_Model):
    """The quality gate's retries: every take it judged, in order, the one kept (0-based) and,
    when they all fell short, what was tried said once (`report`)."""

    takes: list[QualityTake] = []
    kept: int | None = None
    report: str | None = None


class JudgedTake(_Model):
    """A song the quality gate judged and did not pass, as the records of the nodes that made it
    (their checkpointed outputs rebuild its artifacts, as a resume does): kept beside the
    checkpoint while the gate retries, so the best take survives a crash or a pause.
    `index` is its place in `QualityRetries.takes` (0-based)."""

    index: int
    nodes: dict[str, NodeRecord]


class PipelineState(_Model):
    """Everything about one run; written as the checkpoint whenever nodes complete."""

    version: str = SCHEMA_VERSION
    pipeline_id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    session_id: str = Field(default_factory=new_session_id)
    session_dir: str = ""
    raw_prompt: str
    seed: int
    intent: Intent | None = None
    status: PipelineStatus = "pending"
    current_node: str | None = None
    nodes: dict[str, NodeRecord] = {}
    song_state: SongState = SongState()
    alternatives: list[dict[str, Any]] = []
    config: PipelineConfig = PipelineConfig()
    recovery: Recovery = Recovery()
    created_at: dt.datetime = Field(default_factory=now)
    updated_at: dt.datetime = Field(default_factory=now)
    completed_at: dt.datetime | None = None
    total_duration_ms: float = 0.0
    paused_at: str | None = None
    error: StageError | None = None
    quality_retries: QualityRetries | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_older(cls, data: Any) -> Any:
        """A checkpoint of 2.0 becomes one of this version (same major: resume reads it)."""
        if not isinstance(data, dict) or not str(data.get("version", "")).startswith("2.0."):
            return data
        config = dict(data.get("config") or {})
        if config.get("stage_timeout") == _OLD_DEFAULT_STAGE_TIMEOUT:
            config.pop("stage_timeout")
        return {**data, "config": config, "version": SCHEMA_VERSION}

    @classmethod
    def start(cls, prompt: str, config: PipelineConfig, seed: int) -> PipelineState:
        """A new run; node records appear as the engine meets the nodes."""
        return cls(raw_prompt=prompt, seed=seed, config=config.model_copy(update={"seed": seed}))

    def record(self, node: str) -> NodeRecord:
        return self.nodes[node]

    def group(self, step: str) -> list[NodeRecord]:
        """The records of a step: one for most steps, one per part for `parts`."""
        return [r for name, r in self.nodes.items() if node_group(name) == step]

    def note(self, node: str, action: str, detail: str = "") -> None:
        self.song_state.history.append(HistoryEntry(at=now(), node=node, action=action, detail=detail))
