"""Typed progress events of a compose run (one family of the protocol registry).

The engine emits them in order (started → stage started/retry/completed/
skipped/failed, part completed, paused, resumed → finished); the CLI draws
them, the server streams them. Each event can say itself in one line. In
Python the fields are snake_case; on the wire (`wire()`, the emitter) camelCase.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from bandstand.protocol.wire import WireEvent

TOTAL = 8


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
    resumed_from_stage: int = 0

    def line(self) -> str:
        if self.resumed_from_stage:
            return f"↻ Resuming {self.session_id} at stage {self.resumed_from_stage}/{TOTAL} (seed {self.seed})"
        return f"♪ Composing {self.session_id} (seed {self.seed})"


class StageStarted(ComposeEvent):
    type: Literal["stage_started"] = "stage_started"
    stage: int
    name: str
    attempt: int = 1

    def line(self) -> str:
        return f"… Stage {self.stage}/{TOTAL}: {self.name}"


class StageCompleted(ComposeEvent):
    type: Literal["stage_completed"] = "stage_completed"
    stage: int
    name: str
    summary: str
    duration_ms: float

    def line(self) -> str:
        return f"✓ Stage {self.stage}/{TOTAL}: {self.summary}"


class StageRetry(ComposeEvent):
    type: Literal["stage_retry"] = "stage_retry"
    stage: int
    name: str
    attempt: int
    code: str
    message: str

    def line(self) -> str:
        return f"↻ Stage {self.stage}/{TOTAL} {self.name}: retry {self.attempt} after {self.code}: {self.message}"


class StageSkipped(ComposeEvent):
    type: Literal["stage_skipped"] = "stage_skipped"
    stage: int
    name: str
    reason: str

    def line(self) -> str:
        return f"– Stage {self.stage}/{TOTAL}: {self.name} skipped ({self.reason})"


class StageFailed(ComposeEvent):
    type: Literal["stage_failed"] = "stage_failed"
    stage: int
    name: str
    code: str
    message: str
    critical: bool
    recovery_hint: str = ""

    def line(self) -> str:
        return f"✗ Stage {self.stage}/{TOTAL} {self.name}: {self.code}: {self.message}"


class PartCompleted(ComposeEvent):
    type: Literal["part_completed"] = "part_completed"
    role: str
    notes: int
    duration_ms: float

    def line(self) -> str:
        return f"  · {self.role}: {self.notes} notes"


class QualityRetry(ComposeEvent):
    type: Literal["quality_retry"] = "quality_retry"
    failing_axes: list[str]
    regenerate_from: int
    round: int

    def line(self) -> str:
        return (f"↻ Quality gate: {', '.join(self.failing_axes)} below target; "
                f"regenerating from stage {self.regenerate_from} (round {self.round})")


class Paused(ComposeEvent):
    type: Literal["paused"] = "paused"
    stage: int
    summary: str

    def line(self) -> str:
        return f"⏸ Paused after stage {self.stage}/{TOTAL} for approval: {self.summary}"


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
    PipelineStarted | StageStarted | StageCompleted | StageRetry | StageSkipped | StageFailed | PartCompleted
    | QualityRetry | Paused | PipelineFinished,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
COMPOSE_EVENTS: tuple[type[ComposeEvent], ...] = (
    PipelineStarted, StageStarted, StageCompleted, StageRetry, StageSkipped, StageFailed, PartCompleted,
    QualityRetry, Paused, PipelineFinished,
)
