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

Tool use as the Messages API does it (`tests.peers.tool_script` says how a
test asks for calls): ``tools`` with ``name`` and an object ``input_schema``
(else 400), ``tool_choice`` (``none`` suppresses the calls), ``tool_use``
blocks with ``toolu_`` ids and ``input`` objects, ``stop_reason:
"tool_use"``; streamed, each block opens with ``input: {}`` and its JSON
arrives as ``input_json_delta`` fragments (the first one empty). The next
user message must answer every ``tool_use`` id with a ``tool_result`` block
and nothing else (else 400, in the API's words); such a turn is answered with
the results (`tool_script.answer`).
Token counts are characters / 4. Switches: see `tests.peers.http_peer`.
"""

from __future__ import annotations

import itertools
import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.peers import tool_script
from tests.peers.http_peer import Dropped, PeerServer, chunks

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

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


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


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
        self._ids = itertools.count(1)

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
        if handler.path.split("?", 1)[0].rstrip("/") != "/v1/messages":  # the CLI adds ?beta=true
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
        problem = self.problem(body)
        if problem is not None:
            self.error(handler, 400, problem)
            return
        system = body.get("system")
        user = _text(messages[-1].get("content"))
        switches, rest, status = self.prelude(user)
        if status is not None:
            self.error(handler, status, f"simulated failure {status}")
            return
        blocks, stop_reason = self.blocks(body, user, rest, switches)
        plain, writes, reads = self.cache_usage(system)
        out_text = "".join(b.get("text", "") + json.dumps(b.get("input", "")) for b in blocks)
        usage = {
            "input_tokens": plain + sum(tokens(_text(m.get("content"))) for m in messages),
            "output_tokens": tokens(out_text),
            "cache_creation_input_tokens": writes,
            "cache_read_input_tokens": reads,
        }
        message = {
            "id": f"msg_{next(self._ids):024x}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self.send_json(handler, 200, message)
            return
        self.start_sse(handler)
        start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        self.sse(handler, json.dumps({"type": "message_start", "message": start}), "message_start")
        raws = [block.pop("_raw", "") for block in blocks]
        for index, block in enumerate(blocks):
            empty = {**block, "input": {}} if block["type"] == "tool_use" else {"type": "text", "text": ""}
            self.sse(handler, json.dumps({"type": "content_block_start", "index": index, "content_block": empty}),
                     "content_block_start")
            self.sse(handler, json.dumps({"type": "ping"}), "ping")
            if block["type"] == "tool_use":
                fragments = ["", *tool_script.pieces(raws[index])]  # the API's first fragment is often empty
                deltas = [{"type": "input_json_delta", "partial_json": f} for f in fragments]
            else:
                deltas = [{"type": "text_delta", "text": piece} for piece in chunks(block["text"])]
            for i, delta in enumerate(deltas):
                self.sse(handler, json.dumps({"type": "content_block_delta", "index": index, "delta": delta}),
                         "content_block_delta")
                if "drop" in switches and i == 0:
                    raise Dropped
            self.sse(handler, json.dumps({"type": "content_block_stop", "index": index}), "content_block_stop")
        self.sse(handler, json.dumps({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                      "usage": {"output_tokens": usage["output_tokens"]}}), "message_delta")
        self.sse(handler, json.dumps({"type": "message_stop"}), "message_stop")

    def blocks(self, body: dict[str, Any], user: str, rest: str, switches: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The reply's content blocks and stop reason."""
        messages = body.get("messages") or []
        results = [b for b in _blocks(messages[-1].get("content")) if b.get("type") == "tool_result"]
        choice = body.get("tool_choice") or {}
        if results:
            answers = [{"id": r["tool_use_id"], "content": _text(r.get("content")), "isError": bool(r.get("is_error"))}
                       for r in results]
            return [{"type": "text", "text": tool_script.answer(answers)}], "end_turn"
        script = tool_script.parse(user)
        if script is not None and body.get("tools") and choice.get("type") != "none":
            calls: list[dict[str, Any]] = [{"type": "text", "text": script.text}] if script.text else []
            for call in script.calls:
                calls.append({"type": "tool_use", "id": f"toolu_{next(self._ids):024x}", "name": call.name,
                              "input": call.input, "_raw": call.arguments})
            if not body.get("stream"):
                for block in calls:
                    block.pop("_raw", None)
            return calls, "tool_use"
        text = rest if "say" in switches else self.reply_for(user, _text(body.get("system")), len(messages))
        fmt = ((body.get("output_config") or {}).get("format") or {}).get("type")
        if fmt == "json_schema" and not _is_json(text):
            text = json.dumps({"text": text})  # structured outputs always give JSON
        if choice.get("type") == "tool":
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                data = {"text": text}
            return [{"type": "tool_use", "id": f"toolu_{next(self._ids):024x}", "name": choice.get("name"),
                     "input": data, "_raw": json.dumps(data)}], "tool_use"
        return [{"type": "text", "text": text}], "end_turn"

    def problem(self, body: dict[str, Any]) -> str | None:
        """What the API would refuse with 400 in the tools and the tool-use history."""
        for i, tool in enumerate(body.get("tools") or []):
            if not NAME.match(str(tool.get("name", ""))):
                return f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            if (tool.get("input_schema") or {}).get("type") != "object":
                return f"tools.{i}.custom.input_schema.type: Input should be 'object'"
        pending: list[str] = []
        for n, message in enumerate(body.get("messages") or []):
            blocks = _blocks(message.get("content"))
            answered = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
            unexpected = [i for i in answered if i not in pending]
            if unexpected:
                return f"messages.{n}.content: unexpected `tool_use_id` found in `tool_result` blocks: {unexpected[0]}"
            missing = [i for i in pending if i not in answered]
            if missing:
                return (f"messages.{n - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(missing)}")
            pending = [b["id"] for b in blocks if b.get("type") == "tool_use"] if message.get("role") == "assistant" else []
        return None
