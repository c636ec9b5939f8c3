"""The agent backend interface: what every musician backend implements.

A backend opens *conversations*; a conversation runs one turn at a time.
Agents are stateless in spirit: the session owns the history and hands it to
every turn (`TurnRequest.history`); a backend that keeps state of its own (the
`claude-code` process) uses the history to rebuild that state after a crash.

Within a turn a backend reports streaming events through the `emit` callback
(``emit("text_delta", {"text": ...})`` or ``emit("tool_use", {...})``) and
returns one `TurnReply` with the final text, any structured output, and the
turn's usage and cost. Failures are raised as `bandstand.errors.TurnFailed`
(``retryable`` set when trying again may help) or `BackendUnavailable`.

Tool calling: a request may offer `tools` (`ToolSpec`: name, description,
JSON schema of the parameters) with a `tool_choice` ("auto", "none",
"required" or one tool's name). The reply then may hold several `tool_calls`
(`stop_reason` "tool_use"); the caller runs them and sends their
`ToolResult`s in the next turn's `tool_results`, and the history keeps both
(`Message.tool_calls`, `Message.tool_results`). A call the caller cannot run
as given — an unknown tool, arguments that are not a JSON object — arrives
with `error` set, so the caller answers it with an error result instead of
guessing (`bandstand.agents.tools`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Emit = Callable[[str, dict[str, Any]], None]
"""Streaming callback: ``emit(event_type, fields)``; event_type is ``text_delta`` or ``tool_use``."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool a model may call: its name (``[A-Za-z0-9_-]``, ≤ 64), what it does, its parameters' JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call a model made: the backend's id, the tool's name, the arguments (a JSON object).

    ``raw`` is the arguments' text as the model wrote it; ``error`` says why the call
    cannot be run as given (unknown tool, malformed arguments), else None."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw: str = ""
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one tool call, returned to the model in the next turn."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """One entry of a conversation's history: text, and the tool calls (assistant) or
    the tool results (user) of that turn."""

    role: str  # "user" | "assistant"
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and money spent by one turn (or, summed, by a session)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cost_usd + other.cost_usd,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """Everything a backend needs to answer one turn.

    ``text`` is what an LLM sees; ``data`` is the original structured input
    (a dict or pydantic model) when the caller sent one, for responders that
    prefer it. ``schema`` is the JSON schema the reply must follow, if any.
    ``tools`` and ``tool_choice`` offer tools; ``tool_results`` answer the
    calls of the previous reply (every one of them).
    """

    text: str
    history: tuple[Message, ...] = ()
    persona: str = ""
    name: str = "agent"
    seed: int = 0
    turn: int = 0
    schema: Mapping[str, Any] | None = None
    data: Any = None
    options: Mapping[str, Any] = field(default_factory=dict)
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str = "auto"
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnReply:
    """The end of a turn: final text, structured output if the backend gave one, the
    tool calls the model made (`stop_reason` "tool_use"), usage."""

    text: str
    structured: Any = None
    usage: Usage = Usage()
    meta: Mapping[str, Any] = field(default_factory=dict)
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = "end_turn"


@runtime_checkable
class Conversation(Protocol):
    """One open conversation with an agent. Turns never overlap."""

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        """Run one turn to its end-of-turn signal and return the reply."""
        ...

    async def interrupt(self) -> None:
        """Abandon the running turn (after a timeout); leave the conversation usable if possible."""
        ...

    async def close(self) -> None:
        """Release everything (processes, connections). Idempotent."""
        ...


@runtime_checkable
class AgentBackend(Protocol):
    """A kind of agent: `algorithmic`, `claude-code`, `anthropic`, `openai`."""

    name: str

    async def open(self, persona: str, options: Mapping[str, Any]) -> Conversation:
        """Open a conversation with `persona` as its system prompt."""
        ...
