"""Running a plan's steps on a working copy of the project, saying each as it
happens: `planStepUpdate(active)` (with the step's phase), then per tool call `toolStart` →
(`generatorStart` → `generatorComplete` for a part being written) → `toolCall`
(with its server-issued id) or `toolError` (with the studio's one-line reason),
then `planStepUpdate(completed | failed)` and `progress`. A COMPOSING plan's calls are
`proposal: true` (they write a variation). Every call is validated by the
studio's `run_batch` (allow-list of the mode, ranges, names with did-you-mean,
placeholders, three strikes per region) before it touches the copy; the first
failure stops the plan and the steps never reached are reported skipped.

Runs on a worker thread; `emit` must be safe to call from there (the stream's
emitter is).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bandstand.errors import ToolCallError
from bandstand.producer.execution.running import Control
from bandstand.producer.requests.plans import Call, Plan, Step
from bandstand.protocol.studio import (
    GeneratorComplete,
    GeneratorStart,
    PlanStepUpdate,
    Progress,
    ToolCall,
    ToolError,
    ToolStart,
)
from bandstand.studio import Project
from bandstand.studio.tools import Strikes, ToolContext, run_batch

__all__ = ["GENERATOR_NAME", "StepFailure", "StepRunner", "call_label", "resolve_refs"]

Emit = Callable[[Any], Any]
GENERATOR_NAME = "bandstand built-in musicians"


@dataclass(frozen=True, slots=True)
class StepFailure:
    step: Step | None
    tool: str
    message: str


def resolve_refs(value: Any, results: Mapping[str, dict[str, Any]]) -> Any:
    """`"@s3.region_id"` → what step s3's last call returned under `region_id`."""
    if isinstance(value, str) and value.startswith("@") and "." in value:
        step, _, name = value[1:].partition(".")
        found = results.get(step, {}).get(name)
        return found if found is not None else value
    if isinstance(value, dict):
        return {k: resolve_refs(v, results) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_refs(v, results) for v in value]
    return value


def call_label(step: Step, index: int) -> str:
    """A call's words: the step's label, numbered when the step makes several calls."""
    count = len(step.calls)
    return step.label if count <= 1 else f"{step.label} ({index + 1} of {count})"


@dataclass(slots=True)
class StepRunner:
    """Runs steps on `project` (the working copy), in the studio mode `mode`."""

    project: Project
    context: ToolContext
    control: Control
    emit: Emit
    mode: str = "editing"
    announced: bool = True
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ran: list[dict[str, Any]] = field(default_factory=list)
    tools_used: list[str] = field(default_factory=list)
    tracks: list[str] = field(default_factory=list)
    strikes: Strikes = field(default_factory=Strikes)
    notes: int = 0

    @property
    def proposal(self) -> bool:
        """Whether the calls write a variation (COMPOSING) rather than apply (EDITING)."""
        return self.mode == "composing"

    def run(self, plan: Plan) -> StepFailure | None:
        """Every step in order; the first failure ends the plan (its other steps skipped). After
        each step that completes, `progress` says how far the plan is."""
        steps = list(plan.steps)
        for i, step in enumerate(steps):
            failure = self.step(step)
            if failure is not None:
                self.skip(steps[i + 1:])
                return failure
            if self.announced:
                self.emit(Progress(completed_steps=i + 1, total_steps=len(steps),
                                   percent=round(100 * (i + 1) / len(steps), 1), step_id=step.step_id))
        return None

    def skip(self, steps: Sequence[Step]) -> None:
        if self.announced:
            for step in steps:
                self.emit(PlanStepUpdate(step_id=step.step_id, status="skipped"))

    def step(self, step: Step) -> StepFailure | None:
        self.control.check()
        step_id = step.step_id if self.announced else None
        if step_id:
            self.emit(PlanStepUpdate(step_id=step_id, status="active", phase=step.phase))
        notes: list[int] = []
        for index, call in enumerate(step.calls):
            failure, result = self.call(step, index, call, step_id)
            if failure is not None:
                if step_id:
                    self.emit(PlanStepUpdate(step_id=step_id, status="failed", error=failure.message[:500],
                                             phase=step.phase))
                return failure
            if isinstance(result.get("note_count"), int):
                notes.append(result["note_count"])
        if step.track and step.track not in self.tracks:
            self.tracks.append(step.track)
        if step_id:
            said = f"{sum(notes)} notes" + (f" in {len(notes)} regions" if len(notes) > 1 else "") if notes else "done"
            self.emit(PlanStepUpdate(step_id=step_id, status="completed", result=said, phase=step.phase))
        return None

    def call(self, step: Step, index: int, call: Call, step_id: str | None) -> tuple[StepFailure | None, dict[str, Any]]:
        self.control.check()
        args = resolve_refs(call.args, self.results)
        self.emit(ToolStart(name=call.name, label=call_label(step, index), step_id=step_id, phase=step.phase,
                            proposal=self.proposal))
        writing = step.kind == "generate" and call.name == "generate_part"
        began = time.perf_counter()
        if writing:
            self.emit(GeneratorStart(role=step.role or str(args.get("role", "part")), generator=GENERATOR_NAME,
                                     bars=args.get("bars"), style=args.get("style"), step_id=step_id))
        try:
            outcome = run_batch(self.project, [{"name": call.name, "args": args}], ctx=self.context, mode=self.mode,
                                strikes=self.strikes)
        except ToolCallError as exc:
            message = str(exc).split(": ", 1)[1] if str(exc).startswith("call 0 (") else str(exc)
            if writing:
                self._generated(step, args, 0, began, step_id)
            self.emit(ToolError(name=call.name, error=message[:500] or "refused", step_id=step_id,
                                params=_json(args)))
            return StepFailure(step, call.name, message), {}
        result = outcome.results[0].result
        self.project = outcome.project
        if writing:
            self._generated(step, args, int(result.get("note_count", 0)), began, step_id)
        ran = outcome.calls[0]
        self.ran.append(ran.model_dump(mode="json"))
        if call.name not in self.tools_used:
            self.tools_used.append(call.name)
        self.results[step.step_id] = result
        self.emit(ToolCall(id=f"call-{uuid.uuid4().hex[:12]}", name=call.name, params=_json(ran.args),
                           step_id=step_id, proposal=self.proposal))
        return None, result

    def _generated(self, step: Step, args: Mapping[str, Any], notes: int, began: float, step_id: str | None) -> None:
        self.notes += notes
        self.emit(GeneratorComplete(role=step.role or str(args.get("role", "part")), generator=GENERATOR_NAME,
                                    note_count=notes, duration_ms=round((time.perf_counter() - began) * 1000, 2),
                                    step_id=step_id))


def _json(args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as JSON (a call's params are echoed as given, resolved)."""
    import json

    return dict(json.loads(json.dumps(args, default=str)))
