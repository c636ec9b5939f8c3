"""The studio stream's guard: the event order of spec studio §6.

`state` first; `complete` last and always, also after an `error` (then with
success false). Between them, by mode:

- REASONING: `reasoning* → content+`
- EDITING: `plan → [planStepUpdate(active) → toolStart → toolCall|toolError →
  planStepUpdate(completed|failed)]* → summary.final`
- COMPOSING: the same, with `generatorStart/generatorComplete` and the agent
  team's `preflight`/`agentComplete`, then `meta → phrase* → done`, then an
  optional `summary.final`.

`status` and `reasoning` may come while the work runs, `stallWarning` and
`budgetUpdate` any time between `state` and the end; `planSummary` (counting the plan's steps) and `progress` come
after the plan. The plan comes before
the first tool when a request needs two or more tool calls (a second tool
without a plan is a violation). Steps go pending → active → completed|failed,
or pending → skipped; every planned step has ended before `complete`. Tools
and generators open and close in pairs (per agent of a team). The order is a
table of phases per mode; the pair and step rules are small checks beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel

from bandstand.protocol.guards.base import ProtocolViolation, StreamClosed
from bandstand.protocol.studio import Complete, PlanStepUpdate, StreamError


class Phase(Enum):
    OPEN = "before state"
    STARTED = "after state"
    WORKING = "working"
    VARIATION = "inside the variation"
    VARIATION_DONE = "after done"
    ANSWERING = "answering"
    SUMMARY = "after summary.final"
    FAILED = "after error"
    CLOSED = "after complete"


P = Phase
_WORK = frozenset({P.STARTED, P.WORKING})
_AFTER_PLAN = frozenset({P.STARTED, P.WORKING, P.VARIATION, P.VARIATION_DONE, P.SUMMARY, P.FAILED})
_TOOLS: dict[str, tuple[frozenset[Phase], Phase | None]] = {
    "reasoning": (_WORK, None),
    "status": (_WORK, None),
    "plan": (_WORK, P.WORKING),
    "planStepUpdate": (_AFTER_PLAN, None),
    "toolStart": (_WORK, P.WORKING),
    "toolCall": (_WORK, P.WORKING),
    "toolError": (_WORK, P.WORKING),
    "planSummary": (frozenset({P.WORKING}), None),
    "progress": (frozenset({P.WORKING}), None),
}
_ANYTIME = frozenset({P.STARTED, P.WORKING, P.VARIATION, P.VARIATION_DONE, P.ANSWERING, P.SUMMARY})
ORDER: dict[str, dict[str, tuple[frozenset[Phase], Phase | None]]] = {
    "REASONING": {
        "stallWarning": (_ANYTIME, None),
        "budgetUpdate": (_ANYTIME, None),
        "reasoning": (frozenset({P.STARTED}), None),
        "status": (frozenset({P.STARTED, P.ANSWERING}), None),
        "content": (frozenset({P.STARTED, P.ANSWERING}), P.ANSWERING),
    },
    "EDITING": {
        **_TOOLS,
        "stallWarning": (_ANYTIME, None),
        "budgetUpdate": (_ANYTIME, None),
        "summary.final": (_WORK, P.SUMMARY),
    },
    "COMPOSING": {
        **_TOOLS,
        "stallWarning": (_ANYTIME, None),
        "budgetUpdate": (_ANYTIME, None),
        "preflight": (_WORK, P.WORKING),
        "agentComplete": (_WORK, P.WORKING),
        "generatorStart": (_WORK, P.WORKING),
        "generatorComplete": (_WORK, P.WORKING),
        "meta": (_WORK, P.VARIATION),
        "phrase": (frozenset({P.VARIATION}), None),
        "done": (frozenset({P.VARIATION}), P.VARIATION_DONE),
        "summary.final": (frozenset({P.VARIATION_DONE}), P.SUMMARY),
    },
}
"""Per mode: event type → (phases it may follow, phase it leads to; None = stays)."""
SUCCESS_FROM: dict[str, frozenset[Phase]] = {
    "REASONING": frozenset({P.ANSWERING}),
    "EDITING": frozenset({P.SUMMARY}),
    "COMPOSING": frozenset({P.VARIATION_DONE, P.SUMMARY}),
}
"""Per mode: the phases a successful `complete` may follow."""
STEP_MOVES: dict[str, frozenset[str]] = {
    "pending": frozenset({"active", "skipped"}),
    "active": frozenset({"completed", "failed"}),
}
"""A step's status → the statuses it may go to (completed, failed and skipped are final)."""
CLOSING = {"pending": "skipped", "active": "failed"}
"""How a failed stream ends the steps it never finished."""


@dataclass(slots=True)
class StudioGuard:
    """Checks one studio stream, event by event. See the module docstring."""

    phase: Phase = Phase.OPEN
    mode: str | None = None
    trace_id: str = "unknown"
    steps: dict[str, str] | None = None
    tools_started: int = 0
    open_tools: dict[str | None, tuple[str, str | None]] = field(default_factory=dict)
    open_generators: set[tuple[str | None, str]] = field(default_factory=set)
    variation: str | None = None
    variation_status: str | None = None
    phrases: int = 0

    def check(self, event: BaseModel) -> None:
        kind = str(getattr(event, "type", ""))
        if self.phase is P.CLOSED:
            raise StreamClosed(f"{kind} sent after complete")
        special = {"state": self._state, "error": self._error, "complete": self._complete}.get(kind)
        if special is not None:
            special(event)
            return
        if self.phase is P.FAILED and kind == "planStepUpdate":
            self._step(event)
            return
        if self.mode is None:
            raise ProtocolViolation(f"{kind} sent before the state event")
        rule = ORDER[self.mode].get(kind)
        if rule is None:
            raise ProtocolViolation(f"{kind} is not part of a {self.mode} stream")
        allowed, after = rule
        if self.phase not in allowed:
            raise ProtocolViolation(f"{kind} may not come {self.phase.value} in a {self.mode} stream")
        check = getattr(self, "_" + kind.replace(".", "_"), None)
        if check is not None:
            check(event)
        if after is not None:
            self.phase = after

    def may_send(self, kind: str) -> bool:
        """Whether an event of type `kind` may come now (for events sent when something is noticed,
        such as `stallWarning`, rather than as a step of the work)."""
        rule = ORDER[self.mode].get(kind) if self.mode is not None else None
        return rule is not None and self.phase in rule[0]

    def unfinished(self) -> str | None:
        if self.phase is P.CLOSED:
            return None
        return "the stream ended without a complete event"

    def tail(self, message: str) -> list[BaseModel]:
        """`error`, every unfinished step ended (pending → skipped, active → failed), `complete(false)`."""
        if self.phase is P.CLOSED:
            return []
        events: list[BaseModel] = []
        if self.phase is not P.FAILED:
            events.append(StreamError(message=message, code="protocol"))
        for step_id, status in (self.steps or {}).items():
            if status in CLOSING:
                events.append(PlanStepUpdate(step_id=step_id, status=CLOSING[status], error=message))  # type: ignore[arg-type]
        events.append(Complete(success=False, trace_id=self.trace_id, error=message))
        return events

    # ------------------------------------------------------------------ the frame

    def _state(self, event: Any) -> None:
        if self.phase is not P.OPEN:
            raise ProtocolViolation("a second state event")
        self.mode, self.trace_id, self.phase = event.state, event.trace_id, P.STARTED

    def _error(self, event: Any) -> None:
        if self.phase is P.FAILED:
            raise ProtocolViolation("a second error event (only complete may follow an error)")
        self.phase = P.FAILED
        self.open_tools.clear()  # what was running was abandoned; its steps end failed
        self.open_generators.clear()

    def _complete(self, event: Any) -> None:
        if self.mode is not None and event.trace_id != self.trace_id:
            raise ProtocolViolation(f"complete for trace {event.trace_id}, the stream is {self.trace_id}")
        unfinished = [s for s, status in (self.steps or {}).items() if status in STEP_MOVES]
        if unfinished:
            raise ProtocolViolation(f"complete while plan steps have not ended: {', '.join(unfinished)}")
        if not event.success:
            if self.phase is not P.FAILED:
                raise ProtocolViolation("complete with success false must follow an error event")
        else:
            self._success(event)
        self.phase = P.CLOSED

    def _success(self, event: Any) -> None:
        if self.phase is P.FAILED or self.mode is None:
            raise ProtocolViolation("complete with success true after an error (or before state)")
        if self.phase not in SUCCESS_FROM[self.mode]:
            raise ProtocolViolation(f"a {self.mode} stream may not complete {self.phase.value}")
        if self.open_tools or self.open_generators:
            raise ProtocolViolation("complete while a tool or a generator is still running")
        if self.mode == "COMPOSING":
            if self.variation_status != "ready":
                raise ProtocolViolation(f"complete with success true for a {self.variation_status} variation")
            if event.variation_id != self.variation:
                raise ProtocolViolation(f"complete names variation {event.variation_id}, the stream made {self.variation}")
        elif event.variation_id is not None:
            raise ProtocolViolation(f"a {self.mode} stream makes no variation")

    # ------------------------------------------------------------------ plans and tools

    def _planSummary(self, event: Any) -> None:
        if self.steps is None or event.total_steps != len(self.steps):
            raise ProtocolViolation(f"planSummary counts {event.total_steps} steps, the plan has "
                                    f"{len(self.steps or {})}")

    def _plan(self, event: Any) -> None:
        if self.steps is not None:
            raise ProtocolViolation("a second plan")
        if self.tools_started:
            raise ProtocolViolation("the plan comes before the first tool")
        self.steps = {s.step_id: "pending" for s in event.steps}

    # the checks below are named after the event types they check (camelCase on purpose)

    def _planStepUpdate(self, event: Any) -> None:
        self._step(event)

    def _step(self, event: Any) -> None:
        if self.steps is None:
            raise ProtocolViolation(f"planStepUpdate for {event.step_id} without a plan")
        status = self.steps.get(event.step_id)
        if status is None:
            raise ProtocolViolation(f"planStepUpdate for unknown step {event.step_id}")
        if event.status not in STEP_MOVES.get(status, frozenset()):
            raise ProtocolViolation(f"step {event.step_id} may not go from {status} to {event.status}")
        if event.status == "active" and self.phase not in _WORK:
            raise ProtocolViolation(f"step {event.step_id} starts {self.phase.value}")
        if any(step == event.step_id for _, step in self.open_tools.values()) and event.status != "active":
            raise ProtocolViolation(f"step {event.step_id} ends while its tool is running")
        self.steps[event.step_id] = event.status

    def _toolStart(self, event: Any) -> None:
        if event.agent_id in self.open_tools:
            raise ProtocolViolation(f"toolStart {event.name} while {self.open_tools[event.agent_id][0]} is running")
        if self.tools_started and self.steps is None:
            raise ProtocolViolation("a second tool without a plan: announce the plan before the first tool")
        if self.steps is not None and (event.step_id is None or self.steps.get(event.step_id) != "active"):
            raise ProtocolViolation(f"toolStart {event.name} outside an active plan step ({event.step_id})")
        self.tools_started += 1
        self.open_tools[event.agent_id] = (event.name, event.step_id)

    def _toolCall(self, event: Any) -> None:
        self._tool_end(event)

    def _toolError(self, event: Any) -> None:
        self._tool_end(event)

    def _tool_end(self, event: Any) -> None:
        started = self.open_tools.pop(event.agent_id, None)
        if started is None or started[0] != event.name:
            raise ProtocolViolation(f"{event.type} {event.name} without its toolStart")
        if event.step_id is not None and event.step_id != started[1]:
            raise ProtocolViolation(f"{event.type} {event.name} in step {event.step_id}, started in {started[1]}")

    # ------------------------------------------------------------------ generators and the variation

    def _generatorStart(self, event: Any) -> None:
        key = (event.agent_id, event.role)
        if key in self.open_generators:
            raise ProtocolViolation(f"generatorStart for {event.role} while it is already generating")
        self.open_generators.add(key)

    def _generatorComplete(self, event: Any) -> None:
        key = (event.agent_id, event.role)
        if key not in self.open_generators:
            raise ProtocolViolation(f"generatorComplete for {event.role} without its generatorStart")
        self.open_generators.discard(key)

    def _meta(self, event: Any) -> None:
        if self.open_generators:
            raise ProtocolViolation("meta while a generator is still running")
        self.variation = event.variation_id

    def _phrase(self, event: Any) -> None:
        if event.variation_id != self.variation:
            raise ProtocolViolation(f"phrase of variation {event.variation_id} inside {self.variation}")
        self.phrases += 1

    def _done(self, event: Any) -> None:
        if event.variation_id != self.variation:
            raise ProtocolViolation(f"done for variation {event.variation_id} inside {self.variation}")
        if event.phrase_count != self.phrases:
            raise ProtocolViolation(f"done counts {event.phrase_count} phrases, {self.phrases} were sent")
        self.variation_status = event.status
