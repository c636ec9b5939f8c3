"""What a studio request runs with and what it gives back: `Prepared` (a request read and
ready), `Job` (everything a mode runs with: the studio, the control, the emitter, the model
turns spent) and `Outcome` (what a mode did). The stream (`producer.requests.stream`) makes
jobs; the modes (`producer.requests.modes`, `producer.requests.model`) run them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from bandstand.producer.execution.running import Control
from bandstand.producer.requests.conversations import Turn
from bandstand.producer.requests.intent import Routed
from bandstand.protocol import Emitter
from bandstand.protocol.studio import BudgetUpdate, StreamUsage

if TYPE_CHECKING:
    from bandstand.agents import Usage
    from bandstand.producer.requests.proposal import EditOutcome
    from bandstand.producer.sessions.studio import Studio

__all__ = ["Job", "Outcome", "Prepared"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A request read and ready to run: what it is, on which project, in which conversation."""

    prompt: str
    routed: Routed
    project_id: str | None
    conversation_id: str | None
    trace_id: str
    focus: tuple[str, ...] = ()
    history: tuple[Turn, ...] = ()

    @property
    def new_project(self) -> bool:
        return self.routed.new_project


@dataclass(slots=True)
class Outcome:
    """What a mode did: the summary in words, HEAD after it, the variation it made, what it touched."""

    summary: str | None = None
    revision: int | None = None
    variation_id: str | None = None
    focus: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    answer: str = ""
    edit: EditOutcome | None = None
    """What the producer's iteration did, when the request went through it (a variation, a freeze,
    praise): the facts a client that is not a stream shows (`bandstand edit --json`)."""


@dataclass(slots=True)
class Job:
    """Everything a mode runs with."""

    studio: Studio
    prepared: Prepared
    routed: Routed
    control: Control
    emitter: Emitter
    loop: asyncio.AbstractEventLoop
    usage: dict[str, float] = field(default_factory=dict)
    unsaid: list[BudgetUpdate] = field(default_factory=list)
    """Turns spent before `state` went out (the classifier's), said right after it."""

    def emit(self, event: BaseModel | Mapping[str, Any]) -> None:
        self.emitter.emit(event)

    def add_usage(self, usage: Usage, source: str = "model") -> None:
        """Count a model turn's `usage` (an `agents.Usage`) and say it as `budgetUpdate`."""
        turn = usage.as_dict()
        for name, value in turn.items():
            self.usage[name] = self.usage.get(name, 0) + value
        event = BudgetUpdate(source=source[:80] or "model", turn=StreamUsage.model_validate(turn), usage=self.stream_usage())
        if getattr(self.emitter.guard, "mode", None) is None:
            self.unsaid.append(event)
        else:
            self.emit(event)

    def stream_usage(self) -> StreamUsage:
        """The model turns spent so far, as the stream reports them."""
        return StreamUsage.model_validate(self.usage)

    def say_unsaid(self) -> None:
        for event in self.unsaid:
            self.emit(event)
        self.unsaid.clear()
