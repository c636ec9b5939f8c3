"""The context budget as a musician runs it (`bandstand board context-check`).

At 50% context a musician estimates the cost to its next checkpoint; the
estimate counts ~6× after a self-correction. Below 70% at the checkpoint it
proceeds (a status line records the check), 70–80% it asks the conductor (a
context warning), above 80% it stops and escalates (the warning, then state
error with `context_exhaustion_warning`). The warning carries what the
conductor needs to answer: self-correction, deviations, agents remaining and
agents that fit in the 65% budget, read from the task's temp files."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bandstand.board.board import Board, Task
from bandstand.board.reports import (
    CHECK_AT,
    DECISION_TEXT,
    AgentsRemaining,
    ContextDecision,
    ContextWarning,
    Deviations,
)
from bandstand.board.taskfiles import CTX, SELF_CORRECTION, SEVERITIES, TaskFiles
from bandstand.errors import BoardUsageError

__all__ = ["EXIT_CODES", "ContextCheck", "context_check", "context_warning"]

#: The exit code of `context-check` per decision, like the headroom check's 0 / 1 / 2.
EXIT_CODES: dict[ContextDecision, int] = {"proceed": 0, "ask_conductor": 1, "stop_and_escalate": 2}


@dataclass(frozen=True, slots=True)
class ContextCheck:
    warning: ContextWarning
    decision: ContextDecision
    task: Task
    posted: bool  # a context_warning message went to the conductor

    @property
    def code(self) -> int:
        return EXIT_CODES[self.decision]

    @property
    def said(self) -> str:
        """The decision in words (`reports.DECISION_TEXT`)."""
        return DECISION_TEXT[self.decision]


def context_warning(files: TaskFiles, *, usage: float | None = None, cost: float | None = None, agents: int = 0,
                    agent_cost: float = 8.0, self_correction: str | None = None) -> ContextWarning:
    """A context warning filled from the task's temp files: the usage (the last `[ctx: N%]`
    unless given), self-corrections from the status file (or `self_correction`), deviations
    (count and highest severity)."""
    lines = files.status_lines()
    if usage is None:
        found = [float(m.group(1)) for line in lines if (m := CTX.search(line))]
        if not found:
            raise BoardUsageError(f"no [ctx: N%] entry in {files.status_path}: give the usage with --context PERCENT")
        usage = found[-1]
    corrections = [line for line in lines if SELF_CORRECTION.search(line)]
    detail = self_correction or (_text(corrections[-1]) if corrections else "")
    if corrections and not self_correction and len(corrections) > 1:
        detail = f"{len(corrections)} events, last: {detail}"
    counts = files.severity_counts()
    worst = next((s for s in reversed(SEVERITIES) if counts[s]), None)
    return ContextWarning(
        context_usage=usage, cost_to_checkpoint=cost, average_agent_cost=agent_cost,
        self_correction=bool(self_correction or corrections), self_correction_detail=detail,
        deviations=Deviations(count=sum(counts.values()), severity=worst),
        agents_remaining=AgentsRemaining(count=agents, percent_each=agent_cost),
    )


def _text(status_line: str) -> str:
    """What a self-correction status line says, without its timestamp, label and `[ctx: N%]`."""
    text = CTX.sub("", status_line.split(" ", 1)[-1]).strip()
    return re.sub(r"^self[- ]correction:?\s*", "", text, flags=re.IGNORECASE) or text


def context_check(board: Board, task_id: str, session_id: str, warning: ContextWarning, *,
                  declared_self_correction: str | None = None) -> ContextCheck:
    """Run the budget rule for the musician holding `task_id` (fenced like every musician write).
    A self-correction declared here (not yet in the status file) is recorded there first."""
    if warning.context_usage >= CHECK_AT and warning.cost_to_checkpoint is None:
        raise BoardUsageError(
            f"at {warning.context_usage:g}% context (the check starts at {CHECK_AT:g}%) estimate the cost "
            "to the next checkpoint: --cost PERCENT"
        )
    decision = warning.decision
    board.heartbeat(task_id, session_id)  # fenced: only the holder checks its own budget
    files = TaskFiles(board.workdir, task_id)
    if declared_self_correction:
        files.self_correction(declared_self_correction, ctx=warning.context_usage)
    files.status(f"context check: {_summary(warning)}", ctx=warning.context_usage)
    if decision == "proceed":
        return ContextCheck(warning, decision, board.task(task_id), posted=False)
    return ContextCheck(warning, decision, board.warn_context(task_id, session_id, warning), posted=True)


def _summary(warning: ContextWarning) -> str:
    if warning.cost_to_checkpoint is None:
        return f"{warning.context_usage:g}% (below the {CHECK_AT:g}% check): {DECISION_TEXT[warning.decision]}"
    return (f"{warning.context_usage:g}% + {warning.cost_to_checkpoint:g}%"
            + (" ×6 (inflated: corrections happened)" if warning.self_correction else "")
            + f" → {warning.projected:g}%: {DECISION_TEXT[warning.decision]}")
