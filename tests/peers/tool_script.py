"""How a test tells a local peer to call tools (standard library only: the fake
`claude` imports it too).

A user message that starts with ``[[calls]]`` is followed by JSON: a list of
calls, or ``{"text": "…", "calls": [...]}``. Each call is ``{"name": …,
"arguments": {…}}``; ``arguments`` given as a string is sent as it is (so a
test can send malformed JSON). When the newest input holds tool results, the
peer answers them with the JSON text ``{"results": [{"id", "content",
"isError"}…]}``, so a test sees exactly what came back to the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

TRIGGER = "[[calls]]"
REPLAY_END = "(End of the replay. The next message follows.)\n"
"""What bandstand's claude-code backend puts before the new message when it replays a conversation."""


@dataclass(frozen=True)
class Call:
    name: str
    arguments: str  # the JSON text as the model writes it (maybe malformed)

    @property
    def input(self) -> Any:
        """The arguments as an object (Anthropic's `input`); malformed text stays a string."""
        try:
            return json.loads(self.arguments)
        except json.JSONDecodeError:
            return self.arguments


@dataclass(frozen=True)
class Script:
    text: str
    calls: tuple[Call, ...]


def parse(user_text: str) -> Script | None:
    """The tool calls a user message asks for, or None when it asks for none."""
    body = user_text.rsplit(REPLAY_END, 1)[-1].lstrip()  # a model answers the newest message
    if not body.startswith(TRIGGER):
        return None
    data, _ = json.JSONDecoder().raw_decode(body[len(TRIGGER):].lstrip())
    if isinstance(data, list):
        data = {"text": "", "calls": data}
    calls = tuple(
        Call(c["name"], c["arguments"] if isinstance(c.get("arguments"), str) else json.dumps(c.get("arguments", {})))
        for c in data["calls"]
    )
    return Script(str(data.get("text", "")), calls)


def answer(results: list[dict[str, Any]]) -> str:
    """The peer's reply to a turn that brought tool results."""
    return json.dumps({"results": results}, sort_keys=True)


def pieces(text: str, size: int = 7) -> list[str]:
    """`text` in fragments, as a model streams arguments."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]
