"""The report formats musicians send to the conductor. Each report is a
pydantic model that renders to the plain text stored in a message row; every
musician report carries its context usage."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal

from pydantic import BaseModel, Field

OutputKind = Literal["created", "modified", "rag-addition"]
Severity = Literal["Low", "Medium", "High"]


class KeyOutput(BaseModel):
    path: str
    kind: OutputKind = "created"


class Deviations(BaseModel):
    count: int = 0
    severity: Severity | None = None


class AgentsRemaining(BaseModel):
    count: int = 0
    percent_each: float = 8.0

    @property
    def percent_total(self) -> float:
        return self.count * self.percent_each


class _Report(BaseModel, ABC):
    message_type: str = ""
    context_usage: float = Field(ge=0, le=100, description="context used, percent")

    @abstractmethod
    def render(self) -> str:
        """The text stored in the message row."""


def _lines(title: str, rows: list[tuple[str, object]]) -> str:
    return "\n".join([title, *(f"{k}: {v}" for k, v in rows)])


class ReviewRequest(_Report):
    message_type: str = "review_request"
    smoothness: int = Field(ge=0, le=9)
    checkpoint: int = Field(ge=1)
    checkpoints_total: int = Field(ge=1)
    self_correction: bool = False
    self_correction_detail: str = ""
    deviations: Deviations = Deviations()
    agents_remaining: AgentsRemaining = AgentsRemaining()
    proposal_path: str | None = None
    summary: str
    files_modified: list[str] = []
    tests: str = ""
    key_outputs: list[KeyOutput] = []

    def render(self) -> str:
        sc = "yes — " + self.self_correction_detail if self.self_correction else "no"
        ar = self.agents_remaining
        text = _lines(
            f"REVIEW REQUEST — checkpoint {self.checkpoint} of {self.checkpoints_total}",
            [
                ("Smoothness", f"{self.smoothness}/9"),
                ("Checkpoint", f"{self.checkpoint} of {self.checkpoints_total}"),
                ("Context usage", f"{self.context_usage:g}%"),
                ("Self-correction", sc),
                ("Deviations", f"{self.deviations.count}" + (f" ({self.deviations.severity})" if self.deviations.severity else "")),
                ("Agents remaining", f"{ar.count} ({ar.percent_each:g}% each, {ar.percent_total:g}% total)"),
                ("Proposal", self.proposal_path or "none"),
                ("Summary", self.summary),
                ("Files modified", ", ".join(self.files_modified) or "none"),
                ("Tests", self.tests or "not run"),
            ],
        )
        outputs = "\n".join(f"- {o.path} ({o.kind})" for o in self.key_outputs) or "- none"
        return f"{text}\nKey outputs:\n{outputs}"


class CompletionReport(ReviewRequest):
    """The final review: a review request that asks to finish the task."""

    message_type: str = "completion"

    def render(self) -> str:
        return "COMPLETION REPORT (final review)\n" + super().render().split("\n", 1)[1]


class ErrorReport(_Report):
    message_type: str = "error"
    retry: int = Field(ge=0, le=5)
    error: str
    report_path: str | None = None

    def render(self) -> str:
        return _lines(
            "ERROR REPORT",
            [
                ("Retry", f"{self.retry}/5"),
                ("Error", self.error),
                ("Report", self.report_path or "none"),
                ("Context usage", f"{self.context_usage:g}%"),
            ],
        )


class ContextWarning(_Report):
    """Context usage for the conductor, with what decides the budget: the estimated cost to the
    next checkpoint (inflated ~6× after a self-correction, which is always flagged), the
    deviations so far, the agents still planned and how many fit in the 65% budget."""

    message_type: str = "context_warning"
    average_agent_cost: float = Field(8.0, gt=0)
    cost_to_checkpoint: float | None = Field(None, ge=0, description="estimated context percent to the next checkpoint")
    self_correction: bool = False
    self_correction_detail: str = ""
    deviations: Deviations = Deviations()
    agents_remaining: AgentsRemaining = AgentsRemaining()

    @property
    def agents_that_fit(self) -> int:
        return agents_that_fit(self.context_usage, self.average_agent_cost)

    @property
    def projected(self) -> float:
        """Usage expected at the next checkpoint (today's usage when no estimate was given)."""
        return projected_usage(self.context_usage, self.cost_to_checkpoint or 0.0,
                               self_correction=self.self_correction)

    @property
    def decision(self) -> ContextDecision:
        return context_decision(self.context_usage, self.cost_to_checkpoint or 0.0,
                                self_correction=self.self_correction)

    def render(self) -> str:
        sc = ("yes — " + self.self_correction_detail if self.self_correction_detail else "yes") \
            if self.self_correction else "no"
        ar = self.agents_remaining
        if self.cost_to_checkpoint is None:
            estimate = "not estimated"
        else:
            factor = f" ×{SELF_CORRECTION_INFLATION:g} after self-correction" if self.self_correction else ""
            estimate = f"{self.cost_to_checkpoint:g}%{factor} → {self.projected:g}% at the checkpoint"
        return _lines(
            "CONTEXT WARNING",
            [
                ("Context usage", f"{self.context_usage:g}%"),
                ("Cost to the next checkpoint", estimate),
                ("Decision", DECISION_TEXT[self.decision]),
                ("Self-correction", sc),
                ("Deviations", f"{self.deviations.count}"
                 + (f" ({self.deviations.severity})" if self.deviations.severity else "")),
                ("Agents remaining", f"{ar.count} ({ar.percent_each:g}% each, {ar.percent_total:g}% total)"),
                ("Agents that fit in the 65% budget", self.agents_that_fit),
            ],
        )


class Handoff(_Report):
    message_type: str = "handoff"
    reason: str
    handoff_path: str
    last_completed_step: str
    remaining_steps: list[str] = []

    def render(self) -> str:
        return _lines(
            "HANDOFF",
            [
                ("Reason", self.reason),
                ("HANDOFF", self.handoff_path),
                ("Last completed step", self.last_completed_step),
                ("Remaining steps", "; ".join(self.remaining_steps) or "none"),
                ("Context usage", f"{self.context_usage:g}%"),
            ],
        )


CONTEXT_BUDGET = 65.0


def agents_that_fit(current_percent: float, average_agent_cost: float = 8.0) -> int:
    """How many more agents fit under the 65% context budget."""
    if average_agent_cost <= 0:
        return 0
    return max(0, int((CONTEXT_BUDGET - current_percent) // average_agent_cost))


ContextDecision = Literal["proceed", "ask_conductor", "stop_and_escalate"]

SELF_CORRECTION_INFLATION = 6.0


#: What each decision means, in the report and at the command line.
DECISION_TEXT: dict[str, str] = {
    "proceed": "proceed (below 70% at the checkpoint)",
    "ask_conductor": "ask the conductor (70–80% at the checkpoint)",
    "stop_and_escalate": "stop and escalate (above 80% at the checkpoint)",
}

#: The usage at which a musician must estimate the cost to its next checkpoint.
CHECK_AT = 50.0


def projected_usage(current_percent: float, cost_to_checkpoint: float, *, self_correction: bool = False) -> float:
    """Usage expected at the next checkpoint; the estimate counts ~6× after a self-correction."""
    return current_percent + cost_to_checkpoint * (SELF_CORRECTION_INFLATION if self_correction else 1.0)


def context_decision(current_percent: float, cost_to_checkpoint: float, *, self_correction: bool = False) -> ContextDecision:
    """At 50% context, decide whether to go on to the next checkpoint.

    The estimate is inflated ~6× when self-correction happened (it always is
    flagged): < 70% projected → proceed; 70–80% → ask the conductor; > 80% →
    stop and escalate."""
    projected = projected_usage(current_percent, cost_to_checkpoint, self_correction=self_correction)
    if projected < 70:
        return "proceed"
    if projected <= 80:
        return "ask_conductor"
    return "stop_and_escalate"
