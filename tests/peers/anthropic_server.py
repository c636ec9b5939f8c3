"""A local Anthropic-Messages-compatible server: ``POST /v1/messages``, plain and streaming.

Checks the key (``x-api-key``, or a bearer token as newer clients send) and ``anthropic-version``; answers text, or a
``tool_use`` block when ``tool_choice`` forces a tool (the reply JSON becomes
the tool input), or structured output when ``output_config.format`` is a
JSON schema. Streaming sends ``message_start``, ``content_block_start``,
``content_block_delta`` (``text_delta`` / ``input_json_delta``),
``content_block_stop``, ``message_delta`` and ``message_stop`` events.
Prompt caching: a system block with ``cache_control`` of at least
`cache_min_tokens` tokens is written to the cache on first sight
(``cache_creation_input_tokens``) and read afterwards
(``cache_read_input_tokens``); a shorter one is silently not cached, as the
real API does. Errors use the API's shape (``overloaded_error`` for 529).
Token counts are characters / 4. Switches: see `tests.peers.http_peer`.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.peers.http_peer import Dropped, PeerServer, chunks

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return str(content or "")


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


class AnthropicServer(PeerServer):
    def __init__(self, *, api_key: str | None = "test-key", cache_min_tokens: int = 1024) -> None:
        super().__init__(api_key=api_key)
        self.cache_min_tokens = cache_min_tokens
        self.cached: set[str] = set()

    def error(self, handler: BaseHTTPRequestHandler, status: int, message: str) -> None:
        kind = ERROR_TYPES.get(status, "api_error")
        self.send_json(
            handler, status, {"type": "error", "error": {"type": kind, "message": message}}
        )

    def cache_usage(self, system: Any) -> tuple[int, int, int]:
        """(uncached system tokens, cache writes, cache reads) for this request's system prompt."""
        if not isinstance(system, list):
            return tokens(_text(system)) if system else 0, 0, 0
        text = _text(system)
        marked = any(isinstance(b, dict) and b.get("cache_control") for b in system)
        size = tokens(text)
        if not marked or size < self.cache_min_tokens:
            return size, 0, 0
        with self._lock:
            if text in self.cached:
                return 0, 0, size
            self.cached.add(text)
        return 0, size, 0

    def handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if handler.path.rstrip("/") != "/v1/messages":
            self.error(handler, 404, f"no route {handler.path}")
            return
        keys = {
            handler.headers.get("x-api-key"),
            (handler.headers.get("authorization") or "").removeprefix("Bearer "),
        }
        if self.api_key and self.api_key not in keys:
            self.error(handler, 401, "invalid x-api-key")
            return
        if not handler.headers.get("anthropic-version"):
            self.error(handler, 400, "anthropic-version header is required")
            return
        messages = body.get("messages") or []
        if not body.get("max_tokens"):
            self.error(handler, 400, "max_tokens: Field required")
            return
        if not messages or messages[0].get("role") != "user":
            self.error(handler, 400, "messages: the first message must use the user role")
            return
        system = body.get("system")
        user = _text(messages[-1].get("content"))
        switches, rest, status = self.prelude(user)
        if status is not None:
            self.error(handler, status, f"simulated failure {status}")
            return
        text = rest if "say" in switches else self.reply_for(user, _text(system), len(messages))
        choice = body.get("tool_choice") or {}
        fmt = ((body.get("output_config") or {}).get("format") or {}).get("type")
        if fmt == "json_schema" and not _is_json(text):
            text = json.dumps({"text": text})  # structured outputs always give JSON
        block: dict[str, Any]
        if choice.get("type") == "tool":
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                data = {"text": text}
            block = {
                "type": "tool_use",
                "id": "toolu_local",
                "name": choice.get("name"),
                "input": data,
            }
            stop_reason = "tool_use"
        else:
            block = {"type": "text", "text": text}
            stop_reason = "end_turn"
        plain, writes, reads = self.cache_usage(system)
        usage = {
            "input_tokens": plain + sum(tokens(_text(m.get("content"))) for m in messages),
            "output_tokens": tokens(text),
            "cache_creation_input_tokens": writes,
            "cache_read_input_tokens": reads,
        }
        message = {
            "id": "msg_local",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [block],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self.send_json(handler, 200, message)
            return
        self.start_sse(handler)
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**usage, "output_tokens": 1},
        }
        self.sse(handler, json.dumps({"type": "message_start", "message": start}), "message_start")
        empty = (
            {**block, "input": {}} if block["type"] == "tool_use" else {"type": "text", "text": ""}
        )
        self.sse(
            handler,
            json.dumps({"type": "content_block_start", "index": 0, "content_block": empty}),
            "content_block_start",
        )
        self.sse(handler, json.dumps({"type": "ping"}), "ping")
        payload = json.dumps(block["input"]) if block["type"] == "tool_use" else text
        for i, piece in enumerate(chunks(payload)):
            delta = (
                {"type": "input_json_delta", "partial_json": piece}
                if block["type"] == "tool_use"
                else {"type": "text_delta", "text": piece}
            )
            self.sse(
                handler,
                json.dumps({"type": "content_block_delta", "index": 0, "delta": delta}),
                "content_block_delta",
            )
            if "drop" in switches and i == 0:
                raise Dropped
        self.sse(
            handler, json.dumps({"type": "content_block_stop", "index": 0}), "content_block_stop"
        )
        self.sse(
            handler,
            json.dumps(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                }
            ),
            "message_delta",
        )
        self.sse(handler, json.dumps({"type": "message_stop"}), "message_stop")
