"""The values a session hands out: its states, its limits, turn results and validated replies.

`SessionState` is the lifecycle (`TERMINAL` are the end states);
`SessionLimits` the timeouts and limits; `TurnResult` one completed turn;
`Validated` the outcome of `Session.ask` — the value, and whether it is the
reply as given, repaired, or the caller's fallback (and why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from bandstand.agents.base import ToolCall, Usage

T = TypeVar("T", bound=BaseModel)


class SessionState(StrEnum):
    STARTING = "starting"
    WAITING = "waiting_for_input"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    STOPPED = "stopped"


TERMINAL = frozenset(
    {SessionState.COMPLETED, SessionState.FAILED, SessionState.TIMED_OUT, SessionState.STOPPED}
)


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """Timeouts (seconds), turn and cost limits. ``None`` means no limit."""

    turn_timeout: float | None = 60.0
    start_timeout: float | None = 60.0
    session_timeout: float | None = None
    max_turns: int | None = None
    budget_usd: float | None = None
    max_consecutive_failures: int = 3
    interrupt_timeout: float = 10.0
    """The budget for interrupting a timed-out turn (behind the sender, who hears of the
    timeout at once). It bounds the backend's own grace periods: when it ends first, the
    backend kills the process tree instead of waiting on."""


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A completed turn."""

    turn: int
    text: str
    structured: Any
    usage: Usage
    duration_s: float
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools the model called; answer them with `Session.send(tool_results=…)`."""
    meta: Mapping[str, Any] = field(default_factory=dict)
    """What the backend says about the turn (for a `claude-code` team leader: ``teammates``)."""


@dataclass(frozen=True, slots=True)
class Validated(Generic[T]):
    """A validated reply. ``status`` is ``ok``, ``repaired`` or ``fallback``.

    For a fallback, ``reason`` says why: ``invalid`` (still invalid after the
    repair turn), ``timeout``, ``failed`` (the turn failed) or ``ended`` (the
    session is over); ``error`` holds the message.
    """

    value: T
    status: str = "ok"
    error: str | None = None
    reason: str | None = None
    turn: TurnResult | None = None

    @property
    def fallback(self) -> bool:
        return self.status == "fallback"
