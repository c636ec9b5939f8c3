"""Local models that work the board through its tools (real HTTP on 127.0.0.1): `BoardOpenAI`
speaks the OpenAI Chat Completions wire (as `OpenAIServer`), `BoardAnthropic` the Anthropic
Messages wire (as `AnthropicServer`); both decide their calls with `tests.peers.board_policy`
from the whole conversation the request carries (the sessions keep the history), so they are as
stateless as a real model API. Every check of the base servers (keys, tool names, every call
answered exactly once) still applies."""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.peers import board_policy
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.openai_server import OpenAIServer


class BoardOpenAI(OpenAIServer):
    def __init__(self) -> None:
        super().__init__()
        self._calls = itertools.count(1)

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        del user
        if not body.get("tools"):
            return None
        decided = board_policy.decide(*board_policy.from_openai(body))
        calls = [{"id": f"call_{next(self._calls):05d}", "type": "function",
                  "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in decided["calls"]]
        return decided["text"], calls


class BoardAnthropic(AnthropicServer):
    def __init__(self) -> None:
        super().__init__(cache_min_tokens=16)

    def blocks(self, body: dict[str, Any], user: str, rest: str,
               switches: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if not body.get("tools"):
            return super().blocks(body, user, rest, switches)
        decided = board_policy.decide(*board_policy.from_anthropic(body))
        blocks: list[dict[str, Any]] = [{"type": "text", "text": decided["text"]}] if decided["text"] else []
        for call in decided["calls"]:
            block = {"type": "tool_use", "id": f"toolu_{next(self._ids):024x}", "name": call["name"],
                     "input": call["arguments"]}
            if body.get("stream"):
                block["_raw"] = json.dumps(call["arguments"])
            blocks.append(block)
        return blocks or [{"type": "text", "text": "."}], "tool_use" if decided["calls"] else "end_turn"
