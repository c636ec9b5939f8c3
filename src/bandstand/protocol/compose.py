"""Typed progress events of a compose run (one family of the protocol registry).

The engine emits them in order (started → node started/retry/completed/
skipped/failed, quality retry, paused → finished); nodes that run side by
side (the parts) interleave. A node is named as in the compose graph:
`harmony`, `parts:bass`. The CLI draws them, the server streams them. Each
event can say itself in one line. In Python the fields are snake_case; on
the wire (`wire()`, the emitter) camelCase.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from bandstand.protocol.wire import WireEvent

# A node of the compose graph: a step (`harmony`) or a member of one (`parts:bass`, `parts:pad-2`).
NODE_NAME = r"^[a-z_]+(:[a-z_][a-z0-9_-]*)?$"
NodeName = Annotated[str, Field(pattern=NODE_NAME, max_length=64)]


class ComposeEvent(WireEvent, ABC):
    """One progress event of the compose run `pipeline_id`."""

    pipeline_id: str

    @abstractmethod
    def line(self) -> str:
        """The event in one line, as the CLI's progress display shows it."""


class PipelineStarted(ComposeEvent):
    type: Literal["pipeline_started"] = "pipeline_started"
    session_id: str
    session_dir: str
    seed: int
    resumed_at: NodeName | None = None

    def line(self) -> str:
        if self.resumed_at:
            return f"↻ Resuming {self.session_id} at {self.resumed_at} (seed {self.seed})"
        return f"♪ Composing {self.session_id} (seed {self.seed})"


class NodeStarted(ComposeEvent):
    type: Literal["node_started"] = "node_started"
    node: NodeName
    attempt: int = 1

    def line(self) -> str:
        return f"… {self.node}" + (f" (attempt {self.attempt})" if self.attempt > 1 else "")


class NodeCompleted(ComposeEvent):
    type: Literal["node_completed"] = "node_completed"
    node: NodeName
    summary: str
    duration_ms: float

    def line(self) -> str:
        return f"✓ {self.node} — {self.summary}"


class NodeRetry(ComposeEvent):
    type: Literal["node_retry"] = "node_retry"
    node: NodeName
    attempt: int
    code: str
    message: str

    def line(self) -> str:
        return f"↻ {self.node}: retry {self.attempt} after {self.code}: {self.message}"


class NodeProgress(ComposeEvent):
    """A long node saying what it is doing now ("rendering: played 3 of 6 parts"), between its
    start and its end; a display replaces the node's line with it."""

    type: Literal["node_progress"] = "node_progress"
    node: NodeName
    message: str

    def line(self) -> str:
        return f"… {self.node}: {self.message}"


class NodeSkipped(ComposeEvent):
    type: Literal["node_skipped"] = "node_skipped"
    node: NodeName
    reason: str

    def line(self) -> str:
        return f"– {self.node} skipped ({self.reason})"


class NodeFailed(ComposeEvent):
    type: Literal["node_failed"] = "node_failed"
    node: NodeName
    code: str
    message: str
    critical: bool
    recovery_hint: str = ""

    def line(self) -> str:
        return f"✗ {self.node}: {self.code}: {self.message}"


class QualityRetry(ComposeEvent):
    type: Literal["quality_retry"] = "quality_retry"
    failing_axes: list[str]
    regenerate: list[str]
    round: int
    failing: str = ""  # the weakest number in words ("groove consistency 0.31 < 0.78")
    same: bool = False  # the take before fell short the same way
    redrawing: str = ""  # what is drawn again, in words ("the drums")

    def line(self) -> str:
        what = self.redrawing or ", ".join(self.regenerate)
        if self.same:
            return f"↻ Quality gate: the same again; redrawing {what} (round {self.round})"
        why = f" ({self.failing})" if self.failing else ""
        return f"↻ Quality gate: {', '.join(self.failing_axes) or 'the mean'} below target{why}; redrawing {what} (round {self.round})"


class Paused(ComposeEvent):
    type: Literal["paused"] = "paused"
    node: NodeName
    summary: str

    def line(self) -> str:
        return f"⏸ Paused after {self.node} for approval: {self.summary}"


class PipelineFinished(ComposeEvent):
    type: Literal["pipeline_finished"] = "pipeline_finished"
    status: str
    session_dir: str
    duration_ms: float
    message: str = ""

    def line(self) -> str:
        tail = f" — {self.message}" if self.message else ""
        return f"■ {self.status} in {self.duration_ms / 1000:.2f}s{tail}"


Event = Annotated[
    PipelineStarted | NodeStarted | NodeProgress | NodeCompleted | NodeRetry | NodeSkipped | NodeFailed | QualityRetry
    | Paused | PipelineFinished,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
COMPOSE_EVENTS: tuple[type[ComposeEvent], ...] = (
    PipelineStarted, NodeStarted, NodeProgress, NodeCompleted, NodeRetry, NodeSkipped, NodeFailed, QualityRetry,
    Paused, PipelineFinished,
)
