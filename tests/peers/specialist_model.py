"""A local OpenAI-compatible model that plays the studio's LLM specialists (real HTTP on
127.0.0.1), as `StudioModel` does, and checks what each specialist was given.

- Asked to route a request that says ``[[specialist:NAME]]``, it routes it to EDITING and
  names that specialist.
- Asked to edit, it reads which specialist it is from the system prompt (the opening words
  of one of `expected`'s prompts) and checks that the request's tools are exactly that
  specialist's subset. When they are, it makes the calls the request scripts
  (`tests.peers.tool_script`); when not, it calls nothing, answers what was wrong and keeps
  the complaint in `complaints`.

`seen` keeps (system prompt, tool names) of every editing request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.peers.openai_server import _text
from tests.peers.studio_model import StudioModel

_NAMED = re.compile(r"\[\[specialist:(\w+)\]\]")


class SpecialistModel(StudioModel):
    def __init__(self, expected: dict[str, tuple[str, frozenset[str]]]) -> None:
        super().__init__()
        self.expected = expected
        self.seen: list[tuple[str, frozenset[str]]] = []
        self.complaints: list[str] = []

    def studio_reply(self, user: str, system: str, n: int) -> str:
        named = _NAMED.search(user)
        if "You route requests" in system and named:
            return json.dumps({"mode": "EDITING", "intent": "what was asked", "confidence": 0.9,
                               "specialist": named.group(1)})
        return super().studio_reply(user, system, n)

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        messages = body.get("messages") or []
        system = next((_text(m.get("content")) for m in messages if m.get("role") == "system"), "")
        tools = frozenset(t["function"]["name"] for t in body.get("tools") or [])
        if not tools or (messages and messages[-1].get("role") == "tool"):
            return super().tool_reply(body, user)
        self.seen.append((system, tools))
        who = next((name for name, (prompt, _) in self.expected.items() if system.startswith(prompt[:60])), None)
        if who is None:
            self.complaints.append(f"no specialist's prompt: {system[:80]!r}")
        elif tools != self.expected[who][1]:
            self.complaints.append(f"{who} got tools {sorted(tools)}")
        else:
            return super().tool_reply(body, user)
        return f"I cannot work like this: {self.complaints[-1]}", []
