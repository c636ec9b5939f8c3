"""A local OpenAI-compatible server: ``POST /v1/chat/completions``, plain and streaming (SSE).

Like Ollama, vLLM or llama.cpp's server: bearer-key auth, ``response_format``
``json_object`` / ``json_schema`` (refused with 400 when `json_mode` is off, as
servers without it do), streaming chunks ending in ``data: [DONE]`` with a
usage chunk when ``stream_options.include_usage`` is set. Token counts are
characters / 4. Switches: see `tests.peers.http_peer`.

Tool calling as the Chat Completions API does it (`tests.peers.tool_script`
says how a test asks for calls): ``tools`` of type ``function`` (names
``[A-Za-z0-9_-]{1,64}``, else 400), ``tool_choice`` (``none`` suppresses the
calls), ``message.tool_calls`` with a unique ``call_…`` id per call and
``arguments`` as a JSON string, ``finish_reason: "tool_calls"``; streamed,
each call opens with its ``index``, ``id``, ``type`` and name and empty
arguments, then argument fragments carry only the ``index``. Every assistant
message with ``tool_calls`` must be followed by one ``role: "tool"`` message
per call id (else 400, as the API answers); a turn that brings tool results
is answered with them (`tool_script.answer`).

    with OpenAIServer() as server:
        backend = OpenAIBackend(base_url=server.url + "/v1", api_key="test-key", model="local")
"""

from __future__ import annotations

import itertools
import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.peers import tool_script
from tests.peers.http_peer import Dropped, PeerServer, chunks

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIServer(PeerServer):
    def __init__(self, *, api_key: str | None = "test-key", json_mode: bool = True) -> None:
        super().__init__(api_key=api_key)
        self.json_mode = json_mode
        self._ids = itertools.count(1)

    def problem(self, body: dict[str, Any]) -> str | None:
        """What the API would refuse with 400 in the tools and the tool-call history."""
        for tool in body.get("tools") or []:
            function = tool.get("function") or {}
            if tool.get("type") != "function" or not NAME.match(str(function.get("name", ""))):
                return f"Invalid 'tools': {json.dumps(tool)[:80]}: names must match ^[a-zA-Z0-9_-]{{1,64}}$"
            if (function.get("parameters") or {"type": "object"}).get("type") != "object":
                return "Invalid schema for function parameters: schema must be a JSON Schema of 'type: \"object\"'"
        waiting: list[str] = []
        for message in body.get("messages") or []:
            role = message.get("role")
            if role == "tool":
                if message.get("tool_call_id") not in waiting:
                    return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
                waiting.remove(message["tool_call_id"])
                continue
            if waiting:
                return ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                        f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(waiting)}")
            if role == "assistant":
                waiting = [c["id"] for c in message.get("tool_calls") or []]
        return None

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        """(text, tool calls) when this turn answers tool results or calls tools; None otherwise."""
        messages = body.get("messages") or []
        if messages and messages[-1].get("role") == "tool":
            results = []
            for message in reversed(messages):
                if message.get("role") != "tool":
                    break
                results.insert(0, {"id": message["tool_call_id"], "content": _text(message.get("content")), "isError": False})
            return tool_script.answer(results), []
        script = tool_script.parse(user)
        if script is None or not body.get("tools") or body.get("tool_choice") == "none":
            return None
        calls = [{"id": f"call_{next(self._ids):04d}", "type": "function",
                  "function": {"name": c.name, "arguments": c.arguments}} for c in script.calls]
        return script.text, calls

    def error(self, handler: BaseHTTPRequestHandler, status: int, message: str) -> None:
        kind = {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(
            status, "server_error" if status >= 500 else "invalid_request_error"
        )
        self.send_json(handler, status, {"error": {"message": message, "type": kind, "code": kind}})

    def handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if handler.path.rstrip("/") != "/v1/chat/completions":
            self.error(handler, 404, f"no route {handler.path}")
            return
        if self.api_key and handler.headers.get("authorization") != f"Bearer {self.api_key}":
            self.error(handler, 401, "Incorrect API key provided")
            return
        messages = body.get("messages") or []
        fmt = (body.get("response_format") or {}).get("type")
        if fmt in ("json_object", "json_schema") and not self.json_mode:
            self.error(handler, 400, "response_format is not supported by this server")
            return
        system = next((_text(m.get("content")) for m in messages if m.get("role") == "system"), "")
        user = next(
            (_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), ""
        )
        problem = self.problem(body)
        if problem is not None:
            self.error(handler, 400, problem)
            return
        switches, rest, status = self.prelude(user)
        if status is not None:
            self.error(handler, status, f"simulated failure {status}")
            return
        tooled = self.tool_reply(body, user)
        calls: list[dict[str, Any]] = []
        if tooled is not None:
            text, calls = tooled
        else:
            text = rest if "say" in switches else self.reply_for(user, system, len(messages))
        finish = "tool_calls" if calls else "stop"
        prompt_tokens = sum(tokens(_text(m.get("content"))) for m in messages)
        out_tokens = tokens(text) + sum(tokens(c["function"]["arguments"]) for c in calls)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": out_tokens,
            "total_tokens": prompt_tokens + out_tokens,
        }
        model = body.get("model", "local")
        created = int(time.time())
        if not body.get("stream"):
            self.send_json(
                handler,
                200,
                {
                    "id": "chatcmpl-local",
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text or None, **({"tool_calls": calls} if calls else {})}
                            if calls else {"role": "assistant", "content": text},
                            "finish_reason": finish,
                        }
                    ],
                    "usage": usage,
                },
            )
            return
        self.start_sse(handler)

        def chunk(delta: dict[str, Any], finish: str | None) -> str:
            return json.dumps(
                {
                    "id": "chatcmpl-local",
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )

        pieces = chunks(text) if text or not calls else []
        self.sse(handler, chunk({"role": "assistant", "content": "" if not calls else None}, None))
        for i, piece in enumerate(pieces):
            self.sse(handler, chunk({"content": piece}, None))
            if "drop" in switches and i == 0:
                raise Dropped
        for index, call in enumerate(calls):
            opening = {"index": index, "id": call["id"], "type": "function",
                       "function": {"name": call["function"]["name"], "arguments": ""}}
            self.sse(handler, chunk({"tool_calls": [opening]}, None))
            for fragment in tool_script.pieces(call["function"]["arguments"]):
                self.sse(handler, chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}, None))
                if "drop" in switches:
                    raise Dropped
        self.sse(handler, chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            self.sse(
                handler,
                json.dumps(
                    {
                        "id": "chatcmpl-local",
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                ),
            )
        self.sse(handler, "[DONE]")
