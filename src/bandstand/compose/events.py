"""Typed progress events of a compose run.

The engine emits them in order (started → stage started/retry/completed/
skipped/failed, part completed, paused, resumed → finished); the CLI draws
them, the server will stream them. Each event can say itself in one line.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

TOTAL = 8


class _Event(BaseModel, ABC):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pipeline_id: str

    @abstractmethod
    def line(self) -> str:
        """The event in one line, as the CLI's progress display shows it."""


class PipelineStarted(_Event):
    type: Literal["pipeline_started"] = "pipeline_started"
    session_id: str
    session_dir: str
    seed: int
    resumed_from_stage: int = 0

    def line(self) -> str:
        if self.resumed_from_stage:
            return f"↻ Resuming {self.session_id} at stage {self.resumed_from_stage}/{TOTAL} (seed {self.seed})"
        return f"♪ Composing {self.session_id} (seed {self.seed})"


class StageStarted(_Event):
    type: Literal["stage_started"] = "stage_started"
    stage: int
    name: str
    attempt: int = 1

    def line(self) -> str:
        return f"… Stage {self.stage}/{TOTAL}: {self.name}"


class StageCompleted(_Event):
    type: Literal["stage_completed"] = "stage_completed"
    stage: int
    name: str
    summary: str
    duration_ms: float

    def line(self) -> str:
        return f"✓ Stage {self.stage}/{TOTAL}: {self.summary}"


class StageRetry(_Event):
    type: Literal["stage_retry"] = "stage_retry"
    stage: int
    name: str
    attempt: int
    code: str
    message: str

    def line(self) -> str:
        return f"↻ Stage {self.stage}/{TOTAL} {self.name}: retry {self.attempt} after {self.code}: {self.message}"


class StageSkipped(_Event):
    type: Literal["stage_skipped"] = "stage_skipped"
    stage: int
    name: str
    reason: str

    def line(self) -> str:
        return f"– Stage {self.stage}/{TOTAL}: {self.name} skipped ({self.reason})"


class StageFailed(_Event):
    type: Literal["stage_failed"] = "stage_failed"
    stage: int
    name: str
    code: str
    message: str
    critical: bool
    recovery_hint: str = ""

    def line(self) -> str:
        return f"✗ Stage {self.stage}/{TOTAL} {self.name}: {self.code}: {self.message}"


class PartCompleted(_Event):
    type: Literal["part_completed"] = "part_completed"
    role: str
    notes: int
    duration_ms: float

    def line(self) -> str:
        return f"  · {self.role}: {self.notes} notes"


class QualityRetry(_Event):
    type: Literal["quality_retry"] = "quality_retry"
    failing_axes: list[str]
    regenerate_from: int
    round: int

    def line(self) -> str:
        return (f"↻ Quality gate: {', '.join(self.failing_axes)} below target; "
                f"regenerating from stage {self.regenerate_from} (round {self.round})")


class Paused(_Event):
    type: Literal["paused"] = "paused"
    stage: int
    summary: str

    def line(self) -> str:
        return f"⏸ Paused after stage {self.stage}/{TOTAL} for approval: {self.summary}"


class PipelineFinished(_Event):
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
