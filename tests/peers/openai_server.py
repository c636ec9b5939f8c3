"""A local OpenAI-compatible server: ``POST /v1/chat/completions``, plain and streaming (SSE).

Like Ollama, vLLM or llama.cpp's server: bearer-key auth, ``response_format``
``json_object`` / ``json_schema`` (refused with 400 when `json_mode` is off, as
servers without it do), streaming chunks ending in ``data: [DONE]`` with a
usage chunk when ``stream_options.include_usage`` is set. Token counts are
characters / 4. Switches: see `tests.peers.http_peer`.

    with OpenAIServer() as server:
        backend = OpenAIBackend(base_url=server.url + "/v1", api_key="test-key", model="local")
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.peers.http_peer import Dropped, PeerServer, chunks


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
        switches, rest, status = self.prelude(user)
        if status is not None:
            self.error(handler, status, f"simulated failure {status}")
            return
        text = rest if "say" in switches else self.reply_for(user, system, len(messages))
        prompt_tokens = sum(tokens(_text(m.get("content"))) for m in messages)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": tokens(text),
            "total_tokens": prompt_tokens + tokens(text),
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
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
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

        pieces = chunks(text)
        self.sse(handler, chunk({"role": "assistant", "content": ""}, None))
        for i, piece in enumerate(pieces):
            self.sse(handler, chunk({"content": piece}, None))
            if "drop" in switches and i == 0:
                raise Dropped
        self.sse(handler, chunk({}, "stop"))
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
