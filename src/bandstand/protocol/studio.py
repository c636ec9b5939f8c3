"""The studio stream's events (spec studio §6): what `POST /api/v1/stream`
says while it turns a request in words into an answer, edits or a variation.

`state` opens every stream (mode, intent, execution mode, trace id);
`complete` ends it, also after an `error`. Between them: REASONING
`reasoning* → content`; EDITING `plan → [planStepUpdate → toolStart →
toolCall → planStepUpdate]* → summary.final`; COMPOSING the same with
`generatorStart/generatorComplete`, then the variation `meta → phrase* →
done`. Agent teams add `preflight`, `status` and `agentComplete`, and tag
their events with `agentId` and `section`. Maestro's clients also read
`planSummary` (after the plan), `progress` (after each step), `stallWarning`
(no word from the work for a while), `budgetUpdate` (after each language-model
turn: its tokens and cost, and the stream's so far), `phase` on `toolStart` and
`planStepUpdate`, `parallelGroup` on steps that run together and `proposal`
on tool calls that write a variation. The order rules live in
`bandstand.protocol.guards.studio`; these models only say what each event holds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from bandstand.protocol.wire import WireEvent, WireModel

Mode = Literal["REASONING", "EDITING", "COMPOSING"]
ExecutionMode = Literal["none", "apply", "variation"]
StepStatus = Literal["pending", "active", "completed", "failed", "skipped"]
StepUpdateStatus = Literal["active", "completed", "failed", "skipped"]
VariationStatus = Literal["ready", "failed", "discarded"]
EXECUTION_MODES: dict[str, str] = {"REASONING": "none", "EDITING": "apply", "COMPOSING": "variation"}
"""The server decides the execution mode from the mode; a client never chooses it."""

Id = Annotated[str, Field(min_length=1, max_length=200)]
Label = Annotated[str, Field(min_length=1, max_length=500)]


class AgentTag(WireModel):
    """Who in an agent team said it: the agent's id and the section it works on (both optional)."""

    agent_id: str | None = Field(default=None, max_length=200)
    section: str | None = Field(default=None, max_length=200)


# --------------------------------------------------------------------------- parts


class PlanStep(WireModel):
    """One step of a plan, with its canonical label ("Create Bass track")."""

    step_id: Id
    label: Label
    tool_name: str | None = None
    track_name: str | None = None
    phase: str | None = None
    agent_id: str | None = None
    section: str | None = None
    status: StepStatus = "pending"
    parallel_group: str | None = Field(default=None, max_length=200,
                                       description="steps with the same group run together (per-part writing)")


class WireNote(WireModel):
    """A note as a variation shows it: start and duration in beats (start relative to the region)."""

    note_id: str | None = None
    pitch: int = Field(ge=0, le=127)
    start_beat: float = Field(ge=0)
    duration_beats: float = Field(gt=0)
    velocity: int = Field(ge=1, le=127)


class NoteChange(WireModel):
    """One note added (before null), removed (after null) or modified (both)."""

    change: Literal["added", "removed", "modified"]
    before: WireNote | None = None
    after: WireNote | None = None

    @model_validator(mode="after")
    def _sides(self) -> Self:
        want = {"added": (False, True), "removed": (True, False), "modified": (True, True)}[self.change]
        if (self.before is not None, self.after is not None) != want:
            raise ValueError(f"a {self.change} note change has before {'set' if want[0] else 'null'} "
                             f"and after {'set' if want[1] else 'null'}")
        return self


class CCPoint(WireModel):
    cc: int = Field(ge=0, le=127)
    beat: float = Field(ge=0)
    value: int = Field(ge=0, le=127)


class PitchBendPoint(WireModel):
    beat: float = Field(ge=0)
    value: int = Field(ge=-8192, le=8191)


class AftertouchPoint(WireModel):
    """Channel aftertouch, or poly aftertouch when `pitch` is given."""

    beat: float = Field(ge=0)
    value: int = Field(ge=0, le=127)
    pitch: int | None = Field(default=None, ge=0, le=127)


class NoteCounts(WireModel):
    added: int = Field(default=0, ge=0)
    removed: int = Field(default=0, ge=0)
    modified: int = Field(default=0, ge=0)


class StreamUsage(WireModel):
    """Tokens and money a stream spent (zero offline)."""

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cache_read_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    cost_usd: float = Field(default=0.0, ge=0)


# --------------------------------------------------------------------------- the stream


class State(WireEvent):
    """First event: what the server understood and how it will act."""

    type: Literal["state"] = "state"
    state: Mode
    intent: Label
    confidence: float = Field(ge=0, le=1)
    execution_mode: ExecutionMode
    trace_id: Id
    project_id: str | None = Field(default=None, max_length=200)
    conversation_id: str | None = Field(default=None, max_length=200)
    specialist: str | None = Field(default=None, max_length=40,
                                   description="who handles it: harmony, rhythm, sound, mix or composer")

    @model_validator(mode="after")
    def _mode(self) -> Self:
        if EXECUTION_MODES[self.state] != self.execution_mode:
            raise ValueError(f"{self.state} runs as executionMode {EXECUTION_MODES[self.state]!r}, "
                             f"not {self.execution_mode!r}")
        return self


class Reasoning(AgentTag, WireEvent):
    """A piece of the model's (or the analysis') reasoning, streamed as it comes."""

    type: Literal["reasoning"] = "reasoning"
    content: str


class Content(WireEvent):
    """A piece of the answer (REASONING)."""

    type: Literal["content"] = "content"
    content: str


class Plan(WireEvent):
    """The plan, announced before the first tool when a request needs two or more tool calls."""

    type: Literal["plan"] = "plan"
    plan_id: Id
    title: Label
    steps: list[PlanStep] = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _unique(self) -> Self:
        ids = [s.step_id for s in self.steps]
        if len(set(ids)) != len(ids):
            raise ValueError("plan step ids must be unique")
        if any(s.status != "pending" for s in self.steps):
            raise ValueError("every step of a new plan is pending")
        return self


class PlanSummary(WireEvent):
    """Right after the plan: how many steps, how many in each phase, which run together."""

    type: Literal["planSummary"] = "planSummary"
    plan_id: Id
    total_steps: int = Field(ge=0)
    phases: dict[str, int] = Field(default_factory=dict)
    parallel_groups: list[str] = Field(default_factory=list)
    tracks: list[str] = Field(default_factory=list)


class Progress(WireEvent):
    """How far the plan is: steps ended of all steps, as a share (after each step ends)."""

    type: Literal["progress"] = "progress"
    completed_steps: int = Field(ge=0)
    total_steps: int = Field(ge=1)
    percent: float = Field(ge=0, le=100)
    step_id: str | None = None

    @model_validator(mode="after")
    def _within(self) -> Self:
        if self.completed_steps > self.total_steps:
            raise ValueError(f"{self.completed_steps} of {self.total_steps} steps")
        return self


class StallWarning(WireEvent):
    """Nothing was heard from the work for `seconds`: it may be stuck (it goes on; `complete` still ends it)."""

    type: Literal["stallWarning"] = "stallWarning"
    seconds: float = Field(ge=0)
    step_id: str | None = None
    message: Label


class BudgetUpdate(WireEvent):
    """After each turn of a language model: what the turn spent and what the stream has spent so far
    (`complete.usage` ends with the same totals)."""

    type: Literal["budgetUpdate"] = "budgetUpdate"
    source: str = Field(min_length=1, max_length=80,
                        description="whose turn it was: classify, edit, ask, compose, or team (a team's seats)")
    turn: StreamUsage
    usage: StreamUsage


class PlanStepUpdate(WireEvent):
    """A step goes active, then completed or failed; a step never reached is skipped."""

    type: Literal["planStepUpdate"] = "planStepUpdate"
    step_id: Id
    status: StepUpdateStatus
    result: str | None = None
    error: str | None = None
    phase: str | None = Field(default=None, max_length=40, description="the step's tool phase (setup, composition, …)")


class ToolStart(AgentTag, WireEvent):
    """A tool is about to run (said in words: `label`)."""

    type: Literal["toolStart"] = "toolStart"
    name: Id
    label: Label
    step_id: str | None = None
    phase: str | None = Field(default=None, max_length=40, description="the tool's phase (setup, composition, …)")
    parallel_group: str | None = Field(default=None, max_length=200)
    proposal: bool = Field(default=False, description="the call writes a variation (nothing changes until commit)")


class ToolCall(AgentTag, WireEvent):
    """A validated tool call that was applied: its server-issued id, name and parameters."""

    type: Literal["toolCall"] = "toolCall"
    id: Id
    name: Id
    params: dict[str, Any]
    step_id: str | None = None
    proposal: bool = Field(default=False, description="the call writes a variation (nothing changes until commit)")


class ToolError(AgentTag, WireEvent):
    """A tool call that was refused or failed, with the one-line reason."""

    type: Literal["toolError"] = "toolError"
    name: Id
    error: Label
    id: str | None = None
    step_id: str | None = None
    params: dict[str, Any] | None = None


class GeneratorStart(AgentTag, WireEvent):
    """A generator (a built-in musician or a model) starts writing a part."""

    type: Literal["generatorStart"] = "generatorStart"
    role: Id
    generator: Id
    bars: int | None = Field(default=None, ge=1, le=512)
    style: str | None = None
    step_id: str | None = None


class GeneratorComplete(AgentTag, WireEvent):
    type: Literal["generatorComplete"] = "generatorComplete"
    role: Id
    generator: Id
    note_count: int = Field(ge=0)
    duration_ms: float = Field(ge=0)
    step_id: str | None = None


class Meta(WireEvent):
    """The head of a variation: what it changes, against which revision, and by how much."""

    type: Literal["meta"] = "meta"
    variation_id: Id
    base_revision: int = Field(ge=0)
    intent: Label
    explanation: str = ""
    affected_tracks: list[str] = Field(default_factory=list)
    affected_regions: list[str] = Field(default_factory=list)
    note_counts: NoteCounts = Field(default_factory=NoteCounts)
    cost: Literal["cheap", "moderate", "expensive"] | None = None


class Phrase(WireEvent):
    """One phrase of a variation: the changes of one region over a span of beats."""

    type: Literal["phrase"] = "phrase"
    variation_id: Id
    phrase_id: Id
    track_id: Id
    region_id: Id
    start_beat: float = Field(ge=0)
    end_beat: float = Field(ge=0)
    label: Label
    tags: list[str] = Field(default_factory=list)
    note_changes: list[NoteChange] = Field(default_factory=list)
    cc_events: list[CCPoint] = Field(default_factory=list)
    pitch_bends: list[PitchBendPoint] = Field(default_factory=list)
    aftertouch: list[AftertouchPoint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _span(self) -> Self:
        if self.end_beat < self.start_beat:
            raise ValueError(f"endBeat {self.end_beat} is before startBeat {self.start_beat}")
        return self


class Done(WireEvent):
    """The end of a variation's phrases: ready to review, failed or discarded."""

    type: Literal["done"] = "done"
    variation_id: Id
    status: VariationStatus
    phrase_count: int = Field(ge=0)


class SummaryFinal(WireEvent):
    """What the request did, in words, and which tools and tracks it touched."""

    type: Literal["summary.final"] = "summary.final"
    summary: Label
    tools_used: list[str] = Field(default_factory=list)
    tracks: list[str] = Field(default_factory=list)


class StreamError(WireEvent):
    """Something went wrong; `complete` (success false) follows."""

    type: Literal["error"] = "error"
    message: Label
    code: str = "error"
    retryable: bool = False


class Complete(WireEvent):
    """Last event, always: did it work, which revision is HEAD now, the variation to review."""

    type: Literal["complete"] = "complete"
    success: bool
    trace_id: Id
    project_id: str | None = Field(default=None, max_length=200)
    revision: int | None = Field(default=None, ge=0)
    variation_id: str | None = None
    usage: StreamUsage = Field(default_factory=StreamUsage)
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _error(self) -> Self:
        if not self.success and not self.error:
            raise ValueError("a complete event with success false says why (error)")
        if self.success and self.error:
            raise ValueError("a successful complete event carries no error")
        return self


# --------------------------------------------------------------------------- agent teams


class Preflight(AgentTag, WireEvent):
    """An agent of a team announces itself and the steps it will work on."""

    type: Literal["preflight"] = "preflight"
    agent_id: Id  # required here, optional in AgentTag
    role: Id
    label: Label
    step_ids: list[str] = Field(default_factory=list)


class Status(AgentTag, WireEvent):
    """A line of progress in words ("Drums for the chorus: waiting for the kick")."""

    type: Literal["status"] = "status"
    message: Label


class AgentComplete(AgentTag, WireEvent):
    type: Literal["agentComplete"] = "agentComplete"
    agent_id: Id
    success: bool
    summary: str = ""


STUDIO_EVENTS: tuple[type[WireEvent], ...] = (
    State, Reasoning, Content, Plan, PlanSummary, PlanStepUpdate, ToolStart, ToolCall, ToolError, Progress,
    StallWarning, BudgetUpdate,
    GeneratorStart, GeneratorComplete, Meta, Phrase, Done, SummaryFinal, StreamError, Complete,
    Preflight, Status, AgentComplete,
)
VARIATION_EVENTS: tuple[type[WireEvent], ...] = (Meta, Phrase, Done, StreamError)
"""A variation's own stream (a client that reconnects reads it again): meta → phrase* → done."""
