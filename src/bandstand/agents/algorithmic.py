"""The built-in offline backend: a deterministic *responder* behind the agent interface.

The music logic of the built-in musicians lives higher up (``jam``,
``compose``); this layer never imports it. The caller injects a responder — a
plain function from the turn (input, history, seed, persona, schema) to the
reply — and the backend gives it the same lifecycle, events and validation as
an LLM. The responder may return a string, a mapping or a pydantic model (both
serialized to JSON text), and may be ``async``. Same inputs and seed, same
reply: responders must not read clocks or global random state.

    >>> backend = AlgorithmicBackend(lambda req: {"echo": req.text, "seed": req.seed})
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from bandstand.agents.base import Conversation, Emit, TurnReply, TurnRequest, Usage
from bandstand.errors import TurnFailed

Responder = Callable[[TurnRequest], Any | Awaitable[Any]]
"""``responder(request) -> str | Mapping | pydantic.BaseModel`` (or an awaitable of one)."""


def reply_text(value: Any) -> tuple[str, Any]:
    """A responder's return value as (text, structured-or-None)."""
    if isinstance(value, str):
        return value, None
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        data = dump(mode="json")
        return json.dumps(data, ensure_ascii=False), data
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False, default=str), value
    raise TypeError(
        f"a responder must return str, a mapping or a pydantic model, not {type(value).__name__}"
    )


class AlgorithmicConversation:
    """A conversation with a responder. No state beyond what the request carries."""

    def __init__(self, responder: Responder, persona: str, options: Mapping[str, Any]) -> None:
        self._responder = responder
        self._closed = False

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        if self._closed:
            raise TurnFailed("the conversation is closed", retryable=False)
        try:
            value = self._responder(request)
            if inspect.isawaitable(value):
                value = await value
            if isinstance(value, TurnReply):
                if value.text:
                    emit("text_delta", {"text": value.text})
                return value
            text, structured = reply_text(value)
        except TurnFailed:
            raise
        except Exception as exc:  # a responder bug fails the turn, never the session
            raise TurnFailed(
                f"responder failed: {type(exc).__name__}: {exc}",
                retryable=False,
                backend="algorithmic",
            ) from exc
        emit("text_delta", {"text": text})
        return TurnReply(text=text, structured=structured, usage=Usage())

    async def interrupt(self) -> None:
        return None

    async def close(self) -> None:
        self._closed = True


class AlgorithmicBackend:
    """The offline backend: ``AlgorithmicBackend(responder)``."""

    name = "algorithmic"

    def __init__(self, responder: Responder) -> None:
        if not callable(responder):
            raise TypeError("AlgorithmicBackend needs a callable responder")
        self.responder = responder

    async def open(self, persona: str, options: Mapping[str, Any]) -> Conversation:
        return AlgorithmicConversation(self.responder, persona, options)
