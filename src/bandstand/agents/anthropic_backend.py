"""The `anthropic` backend: the Messages API, history kept by the session.

The persona is sent as a system block marked ``cache_control: ephemeral`` so
the API can cache it across turns (below the model's minimum prefix size
nothing is cached, silently; `Usage.cache_read_tokens` shows what was). When
a turn needs JSON, the reply is forced through a tool whose input schema is
the turn's schema (``tool_choice: {"type": "tool", "name": "reply"}``) and
the tool input is the structured reply; or, with ``json_via="output_config"``,
structured outputs (``output_config.format``) make the text itself the JSON. Replies stream (``text_delta`` events).
Requests go through the backend's circuit breaker with retry and backoff; the
official ``anthropic`` client (the ``llm`` extra) is imported only when used.

A request that offers tools sends them as ``tools`` (``input_schema``) with
``tool_choice`` (auto → ``auto``, none → ``none``, required → ``any``, a name →
``tool``); the reply's ``tool_use`` blocks (streamed: ``input_json_delta``
fragments joined per block) become `ToolCall`s, and the next user message
carries one ``tool_result`` block per call (``is_error`` for error results).
Such a turn never uses the forced ``reply`` tool for JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bandstand.agents.base import (
    Conversation,
    Emit,
    Message,
    ToolCall,
    TurnReply,
    TurnRequest,
    Usage,
)
from bandstand.agents.breaker import CircuitBreaker
from bandstand.agents.costs import cost_of, price_for
from bandstand.agents.remote import LazyClient, call_out
from bandstand.agents.tools import check_tools, read_call
from bandstand.errors import ConfigError, TurnFailed

REPLY_TOOL = "reply"
CHOICE = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}}


class AnthropicBackend:
    """``AnthropicBackend(base_url=…, model=…, api_key=…)``; one HTTP client shared by its conversations."""

    name = "anthropic"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        model: str = "claude-haiku-4-5",
        api_key: str | None = None,
        max_tokens: int = 1024,
        stream: bool = True,
        cache_persona: bool = True,
        json_via: str = "tool",
        temperature: float | None = None,
        price: list[float] | None = None,
        request_timeout: float = 120.0,
        retries: int = 3,
        backoff: float = 0.25,
        breaker_threshold: int = 5,
        breaker_cooldown: float = 30.0,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self.max_tokens = max_tokens
        self.stream = stream
        self.cache_persona = cache_persona
        if json_via not in ("tool", "output_config"):
            raise ConfigError(
                f"anthropic: json_via must be 'tool' or 'output_config', not {json_via!r}"
            )
        self.json_via = json_via
        self.temperature = temperature
        self.price = price
        self.request_timeout = request_timeout
        self.retries = retries
        self.backoff = backoff
        self.breaker = CircuitBreaker(
            threshold=breaker_threshold, cooldown=breaker_cooldown, name="anthropic"
        )
        self._client = LazyClient(
            "anthropic",
            self.name,
            lambda lib: lib.AsyncAnthropic(
                base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=self.request_timeout
            ),
        )

    def client(self) -> Any:
        return self._client.get()

    async def open(self, persona: str, options: Mapping[str, Any]) -> Conversation:
        return AnthropicConversation(self, await self._client.aget(), persona, options)

    async def aclose(self) -> None:
        await self._client.aclose()


class AnthropicConversation:
    def __init__(
        self, backend: AnthropicBackend, client: Any, persona: str, options: Mapping[str, Any]
    ) -> None:
        self.backend = backend
        self.client = client
        self.persona = persona
        self.model = str(options.get("model") or backend.model)
        self.max_tokens = int(options.get("max_tokens") or backend.max_tokens)
        self.json_via = str(options.get("json_via") or backend.json_via)
        self.price = price_for(self.model, options.get("price") or backend.price)

    def request(self, request: TurnRequest) -> dict[str, Any]:
        messages = [_wire(m) for m in request.history]
        messages.append(_wire(Message("user", request.text, tool_results=request.tool_results)))
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": messages,
        }
        if self.persona:
            block: dict[str, Any] = {"type": "text", "text": self.persona}
            if self.backend.cache_persona:
                block["cache_control"] = {"type": "ephemeral"}
            kwargs["system"] = [block]
        if self.backend.temperature is not None:
            kwargs["temperature"] = self.backend.temperature
        if request.tools:
            check_tools(request.tools, request.tool_choice)
            kwargs["tools"] = [{"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                               for t in request.tools]
            kwargs["tool_choice"] = CHOICE.get(request.tool_choice) or {"type": "tool", "name": request.tool_choice}
        elif request.schema is not None and self.json_via == "output_config":
            kwargs["output_config"] = {
                "format": {"type": "json_schema", "schema": dict(request.schema)}
            }
        elif request.schema is not None:
            kwargs["tools"] = [
                {
                    "name": REPLY_TOOL,
                    "description": "Give your reply.",
                    "input_schema": dict(request.schema),
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": REPLY_TOOL}
        return kwargs

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        kwargs = self.request(request)
        once = self._stream if self.backend.stream else self._plain
        return await call_out(
            lambda: once(kwargs, request, emit),
            backend=self.backend.name,
            breaker=self.backend.breaker,
            attempts=self.backend.retries,
            base_delay=self.backend.backoff,
        )

    async def _plain(self, kwargs: dict[str, Any], request: TurnRequest, emit: Emit) -> TurnReply:
        message = await self.client.messages.create(**kwargs)
        texts: list[str] = []
        uses: list[tuple[str, str, Any]] = []
        for block in message.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":  # `input` is an object; anything else is read as the wrong type
                uses.append((block.id, block.name, block.input if isinstance(block.input, dict) else json.dumps(block.input)))
        if texts:
            emit("text_delta", {"text": "".join(texts)})
        return self._finish(texts, uses, request, emit, message.usage, message.usage, message.stop_reason)

    async def _stream(self, kwargs: dict[str, Any], request: TurnRequest, emit: Emit) -> TurnReply:
        stream = await self.client.messages.create(**kwargs, stream=True)
        texts: list[str] = []
        blocks: dict[int, list[str]] = {}  # index → [id, name, partial json…]
        start_usage = end_usage = stop = None
        async for event in stream:
            kind = event.type
            if kind == "message_start":
                start_usage = event.message.usage
            elif kind == "content_block_start" and event.content_block.type == "tool_use":
                blocks[event.index] = [event.content_block.id, event.content_block.name]
            elif kind == "content_block_delta":
                if event.delta.type == "text_delta":
                    texts.append(event.delta.text)
                    emit("text_delta", {"text": event.delta.text})
                elif event.delta.type == "input_json_delta" and event.index in blocks:
                    blocks[event.index].append(event.delta.partial_json)
            elif kind == "message_delta":
                end_usage, stop = event.usage, event.delta.stop_reason
        if end_usage is None:
            raise TurnFailed(
                "anthropic: the stream ended before the reply was finished", retryable=True
            )
        uses = [(b[0], b[1], "".join(b[2:]) or "{}") for _, b in sorted(blocks.items())]
        return self._finish(texts, uses, request, emit, start_usage, end_usage, stop)

    def _finish(self, texts: list[str], uses: list[tuple[str, str, Any]], request: TurnRequest, emit: Emit,
                start: Any, end: Any, stop: str | None) -> TurnReply:
        """The reply: tool calls when tools were offered; else the forced reply tool's input is the structured reply."""
        if request.tools:
            calls = tuple(read_call(i, name, data, request.tools) for i, name, data in uses)
            for call in calls:
                emit("tool_use", {"id": call.id, "tool": call.name, "input": dict(call.arguments), "error": call.error})
            return self._reply("".join(texts), None, start, end, calls, stop)
        structured = None
        for _, name, data in uses:
            structured = json.loads(data) if isinstance(data, str) else data
            emit("tool_use", {"tool": name, "input": structured})
        text = json.dumps(structured) if structured is not None else "".join(texts)
        return self._reply(text, structured, start, end, (), stop)

    def _reply(self, text: str, structured: Any, start: Any, end: Any, calls: tuple[ToolCall, ...] = (),
               stop: str | None = None) -> TurnReply:
        def get(obj: Any, name: str) -> int:
            return int(getattr(obj, name, 0) or 0)

        usage = Usage(
            get(start, "input_tokens"),
            get(end, "output_tokens"),
            get(start, "cache_read_input_tokens"),
            get(start, "cache_creation_input_tokens"),
        )
        usage = Usage(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            cost_of(usage, self.price),
        )
        stop_reason = "tool_use" if calls else (stop if stop in ("max_tokens", "refusal", "pause_turn") else "end_turn")
        return TurnReply(text, structured, usage, {"model": self.model}, calls, stop_reason)

    async def interrupt(self) -> None:
        return None  # the cancelled request closed its stream; nothing else runs

    async def close(self) -> None:
        return None  # the HTTP client belongs to the backend and is shared


def _wire(message: Message) -> dict[str, Any]:
    """One history entry as a Messages API message: text, tool_use blocks (assistant),
    tool_result blocks before the text (user)."""
    if not message.tool_calls and not message.tool_results:
        return {"role": message.role, "content": message.content}
    blocks: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content, **({"is_error": True} if r.is_error else {})}
        for r in message.tool_results
    ]
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)} for c in message.tool_calls]
    return {"role": message.role, "content": blocks}
