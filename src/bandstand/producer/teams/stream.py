"""What a team says on the studio stream (spec studio §6), agent by agent.

`TeamStream` turns the team's doings into the protocol's events — the plan,
`preflight`, `status`, `reasoning`, plan step updates, `toolStart`/`toolCall`
(`toolError`), `generatorStart`/`generatorComplete`, `agentComplete` — each tagged with the agent's id and
section, and hands them to one `emit` (a protocol `Emitter.emit`, whose guard
checks the order). Emitting is serialized: agents run concurrently, events
leave one at a time. A step remembers its state so a failing agent ends only
its own steps (pending ones skipped, the active one failed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from bandstand.protocol import studio as ev

__all__ = ["MOVES", "Emit", "TeamStream"]

Emit = Callable[[BaseModel], Any]
MOVES: dict[str, frozenset[str]] = {"pending": frozenset({"active", "skipped"}),
                                    "active": frozenset({"completed", "failed"})}
"""A step's status → the statuses it may move to (the studio guard's rule)."""


@dataclass(slots=True)
class TeamStream:
    """The team's events to one stream (see the module docstring). `emit` None: nothing is sent
    (a batch worker composing without a listener) but steps are still tracked."""

    emit: Emit | None = None
    steps: dict[str, str] = field(default_factory=dict)
    events: int = 0
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def send(self, event: BaseModel) -> None:
        with self._lock:
            self.events += 1
            if self.emit is not None:
                self.emit(event)

    # ------------------------------------------------------------------ plan and steps

    def plan(self, title: str, steps: Sequence[ev.PlanStep]) -> None:
        self.steps = {s.step_id: "pending" for s in steps}
        self.send(ev.Plan(plan_id="team", title=title, steps=list(steps)))
        phases: dict[str, int] = {}
        for s in steps:
            phases[s.phase or "composition"] = phases.get(s.phase or "composition", 0) + 1
        groups = list(dict.fromkeys(s.parallel_group for s in steps if s.parallel_group))
        self.send(ev.PlanSummary(plan_id="team", total_steps=len(steps), phases=phases, parallel_groups=groups,
                                 tracks=list(dict.fromkeys(s.track_name for s in steps if s.track_name))))

    def step(self, step_id: str, status: str, *, result: str | None = None, error: str | None = None) -> bool:
        """Move a step (pending → active | skipped, active → completed | failed); False when the
        step is unknown or has already moved past that."""
        with self._lock:
            if status not in MOVES.get(self.steps.get(step_id, ""), frozenset()):
                return False
            self.steps[step_id] = status
            self.send(ev.PlanStepUpdate(step_id=step_id, status=status, result=result,  # type: ignore[arg-type]
                                        error=error[:500] if error else None))
            return True

    def end_steps(self, step_ids: Sequence[str], error: str) -> None:
        """End the steps that have not ended: active → failed, pending → skipped."""
        for step_id in step_ids:
            state = self.steps.get(step_id)
            if state == "active":
                self.step(step_id, "failed", error=error)
            elif state == "pending":
                self.step(step_id, "skipped", error=error)

    # ------------------------------------------------------------------ agents

    def preflight(self, agent: str, role: str, label: str, step_ids: Sequence[str], section: str | None = None) -> None:
        self.send(ev.Preflight(agent_id=agent, role=role, label=label[:500], step_ids=list(step_ids), section=section))

    def status(self, agent: str, message: str, section: str | None = None) -> None:
        self.send(ev.Status(agent_id=agent, section=section, message=message[:500] or "…"))

    def reasoning(self, agent: str, content: str, section: str | None = None) -> None:
        self.send(ev.Reasoning(agent_id=agent, section=section, content=content))

    def done(self, agent: str, success: bool, summary: str, section: str | None = None) -> None:
        self.send(ev.AgentComplete(agent_id=agent, section=section, success=success, summary=summary[:2000]))

    @contextmanager
    def generator(self, agent: str, role: str, generator: str, *, bars: int | None, step_id: str,
                  section: str | None, style: str | None = None) -> Iterator[dict[str, int]]:
        """generatorStart … generatorComplete around a generator call; put the note count in
        the yielded dict's "notes". A failure still closes the pair (with no notes)."""
        self.send(ev.GeneratorStart(agent_id=agent, section=section, role=role, generator=generator[:200],
                                    bars=min(512, bars) if bars else None, style=style, step_id=step_id))
        started = time.perf_counter()
        out = {"notes": 0}
        try:
            yield out
        finally:
            self.send(ev.GeneratorComplete(agent_id=agent, section=section, role=role, generator=generator[:200],
                                           note_count=out["notes"], step_id=step_id,
                                           duration_ms=round((time.perf_counter() - started) * 1000, 3)))

    def tool(self, agent: str, name: str, label: str, *, step_id: str, section: str | None) -> None:
        self.send(ev.ToolStart(agent_id=agent, section=section, name=name, label=label[:500], step_id=step_id,
                               phase="composition", proposal=True))

    def tool_done(self, agent: str, call_id: str, name: str, params: dict[str, Any], *, step_id: str,
                  section: str | None) -> None:
        self.send(ev.ToolCall(agent_id=agent, section=section, id=call_id, name=name, params=params, step_id=step_id,
                              proposal=True))

    def tool_error(self, agent: str, name: str, error: str, *, step_id: str, section: str | None,
                   params: dict[str, Any] | None = None) -> None:
        self.send(ev.ToolError(agent_id=agent, section=section, name=name, error=error[:500] or "failed",
                               step_id=step_id, params=params))
