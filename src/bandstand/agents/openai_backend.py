"""The `openai` backend: any OpenAI-compatible chat-completions endpoint (Ollama, vLLM, llama.cpp…).

Stateless per turn: the session's history becomes ``messages`` (persona as the
system message). Replies stream (``text_delta`` events) with usage requested
in the last chunk. When a turn needs JSON, the request asks for
``response_format: {"type": "json_object"}`` and states the schema in the
message; ``json_mode="auto"`` drops the response format for the rest of the
conversation if the server refuses it with HTTP 400. The reply is validated
by the session either way. Requests go through the backend's circuit breaker
with retry and backoff; the official ``openai`` client (the ``llm`` extra) is
imported only when the backend is used.

Tools go out as ``tools=[{"type": "function", "function": {…}}]`` with
``tool_choice``; the reply's ``message.tool_calls`` (streamed: fragments
joined by ``index``; a new ``id`` at a taken index is a new call, as older
Ollama builds send) become `ToolCall`s. The history echoes each assistant
message with its ``tool_calls`` and answers them with ``role: "tool"``
messages (an error result's content starts with ``error:``; the API has no
flag for it).
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
    ToolResult,
    TurnReply,
    TurnRequest,
    Usage,
)
from bandstand.agents.breaker import CircuitBreaker
from bandstand.agents.costs import cost_of, price_for
from bandstand.agents.remote import LazyClient, call_out
from bandstand.agents.replies import schema_instruction
from bandstand.agents.tools import check_tools, read_call, result_text
from bandstand.errors import TurnFailed


class OpenAIBackend:
    """``OpenAIBackend(base_url=…, model=…, api_key=…)``; one HTTP client shared by its conversations."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        model: str = "gpt-4o-mini",
        api_key: str | None = None,
        json_mode: str | bool = "auto",
        stream: bool = True,
        max_tokens: int | None = None,
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
        self.json_mode = json_mode
        self.stream = stream
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.price = price
        self.request_timeout = request_timeout
        self.retries = retries
        self.backoff = backoff
        self.breaker = CircuitBreaker(
            threshold=breaker_threshold, cooldown=breaker_cooldown, name="openai"
        )
        self._client = LazyClient(
            "openai",
            self.name,
            lambda lib: lib.AsyncOpenAI(
                base_url=self.base_url, api_key=self.api_key or "not-needed", max_retries=0, timeout=self.request_timeout
            ),
        )

    def client(self) -> Any:
        return self._client.get()

    async def open(self, persona: str, options: Mapping[str, Any]) -> Conversation:
        return OpenAIConversation(self, await self._client.aget(), persona, options)

    async def aclose(self) -> None:
        await self._client.aclose()


class OpenAIConversation:
    def __init__(
        self, backend: OpenAIBackend, client: Any, persona: str, options: Mapping[str, Any]
    ) -> None:
        self.backend = backend
        self.client = client
        self.persona = persona
        self.model = str(options.get("model") or backend.model)
        self.json_mode: str | bool = options.get("json_mode", backend.json_mode)
        self.price = price_for(self.model, options.get("price") or backend.price)

    def messages(self, request: TurnRequest) -> list[dict[str, Any]]:
        text = request.text + (
            schema_instruction(request.schema) if request.schema is not None else ""
        )
        out: list[dict[str, Any]] = [{"role": "system", "content": self.persona}] if self.persona else []
        for message in request.history:
            out += _wire(message)
        out += _wire(Message("user", text, tool_results=request.tool_results))
        return out

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": self.messages(request)}
        if request.tools:
            check_tools(request.tools, request.tool_choice)
            kwargs["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                 "parameters": dict(t.parameters)}} for t in request.tools]
            choice = request.tool_choice
            kwargs["tool_choice"] = choice if choice in ("auto", "none", "required") else {
                "type": "function", "function": {"name": choice}}
        if self.backend.max_tokens:
            kwargs["max_tokens"] = self.backend.max_tokens
        if self.backend.temperature is not None:
            kwargs["temperature"] = self.backend.temperature
        if request.schema is not None and self.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            return await self._call(kwargs, request, emit)
        except TurnFailed as exc:
            refused = exc.context.get("status") == 400 and "response_format" in str(exc)
            if not (refused and self.json_mode == "auto" and "response_format" in kwargs):
                raise
        self.json_mode = False  # this server has no JSON mode: rely on the prompt and validation
        kwargs.pop("response_format")
        return await self._call(kwargs, request, emit)

    async def _call(self, kwargs: dict[str, Any], request: TurnRequest, emit: Emit) -> TurnReply:
        backend = self.backend
        once = self._stream if backend.stream else self._plain
        return await call_out(
            lambda: once(kwargs, request, emit),
            backend=backend.name,
            breaker=backend.breaker,
            attempts=backend.retries,
            base_delay=backend.backoff,
        )

    async def _plain(self, kwargs: dict[str, Any], request: TurnRequest, emit: Emit) -> TurnReply:
        response = await self.client.chat.completions.create(**kwargs)
        message = response.choices[0].message if response.choices else None
        text = (message.content or "") if message is not None else ""
        if text:
            emit("text_delta", {"text": text})
        calls = [(c.id, c.function.name, c.function.arguments) for c in (message.tool_calls or ())] if message else []
        finish = response.choices[0].finish_reason if response.choices else None
        return self._reply(text, response.usage, self._calls(calls, request, emit), finish)

    async def _stream(self, kwargs: dict[str, Any], request: TurnRequest, emit: Emit) -> TurnReply:
        stream = await self.client.chat.completions.create(
            **kwargs, stream=True, stream_options={"include_usage": True}
        )
        parts: list[str] = []
        slots: list[list[str]] = []  # [id, name, arguments…] per call, in the order they opened
        at: dict[int, int] = {}  # stream index → slot
        usage = finish = None
        async for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
            for choice in chunk.choices or ():
                finish = choice.finish_reason or finish
                delta = choice.delta
                piece = delta.content if delta is not None else None
                if piece:
                    parts.append(piece)
                    emit("text_delta", {"text": piece})
                for fragment in (delta.tool_calls if delta is not None else None) or ():
                    slot = at.get(fragment.index)
                    if slot is None or (fragment.id and fragment.id != slots[slot][0]):
                        at[fragment.index] = slot = len(slots)  # a new call (also: a new id at a taken index)
                        slots.append([fragment.id or "", ""])
                    function = fragment.function
                    if function is not None and function.name:
                        slots[slot][1] = function.name
                    if function is not None and function.arguments:
                        slots[slot].append(function.arguments)
        if finish is None:
            raise TurnFailed(
                "openai: the stream ended before the reply was finished", retryable=True
            )
        calls = [(slot[0], slot[1], "".join(slot[2:])) for slot in slots]
        return self._reply("".join(parts), usage, self._calls(calls, request, emit), finish)

    def _calls(self, calls: list[tuple[str, str, str]], request: TurnRequest, emit: Emit) -> tuple[ToolCall, ...]:
        out = tuple(read_call(call_id, name, arguments, request.tools) for call_id, name, arguments in calls)
        for call in out:
            emit("tool_use", {"id": call.id, "tool": call.name, "input": dict(call.arguments), "error": call.error})
        return out

    def _reply(self, text: str, raw: Any, calls: tuple[ToolCall, ...] = (), finish: str | None = None) -> TurnReply:
        tokens_in = int(getattr(raw, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(raw, "completion_tokens", 0) or 0)
        usage = Usage(tokens_in, tokens_out)
        usage = Usage(tokens_in, tokens_out, cost_usd=cost_of(usage, self.price))
        stop = "tool_use" if calls else {"length": "max_tokens"}.get(finish or "", "end_turn")
        return TurnReply(text, None, usage, {"model": self.model}, calls, stop)

    async def interrupt(self) -> None:
        return None  # the cancelled request closed its connection; nothing else runs

    async def close(self) -> None:
        return None  # the HTTP client belongs to the backend and is shared


def _wire(message: Message) -> list[dict[str, Any]]:
    """One history entry as Chat Completions messages: an assistant message with its
    tool calls, or the tool results (one ``role: "tool"`` message each) and the user text."""
    if message.role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            out["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": c.raw or json.dumps(dict(c.arguments))}} for c in message.tool_calls]
        elif out["content"] is None:
            out["content"] = ""
        return [out]
    answers: list[dict[str, Any]] = [_tool_message(r) for r in message.tool_results]
    return answers + ([{"role": message.role, "content": message.content}] if message.content or not answers else [])


def _tool_message(result: ToolResult) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": result.call_id, "content": result_text(result)}
