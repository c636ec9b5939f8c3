"""Local models that play the studio's language model (real HTTP on 127.0.0.1):
`StudioModel` speaks the OpenAI wire (as `OpenAIServer`), `StudioAnthropic`
the Anthropic Messages wire (as `AnthropicServer`), and `PERSONA_REPLIES` is
what the fake `claude` CLI answers the studio's personas with. Both models:

- asked to route a request (the studio's classifier persona), it answers JSON:
  EDITING for a message that scripts tool calls (`[[calls]] …`, see
  `tests.peers.tool_script`), COMPOSING for one that says "feel", else REASONING;
- asked to edit, it calls the scripted tools; when results come back with errors
  and its first message said `[[retry]]`, it calls `set_track_volume` again on the
  track the error suggests (as a model that reads the error would);
- asked a question, it answers in words (streamed in pieces when asked to stream),
  after `[[slow:S]]` seconds when the question starts so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.peers import tool_script
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.anthropic_server import _blocks as _anthropic_blocks
from tests.peers.anthropic_server import _text as _anthropic_text
from tests.peers.openai_server import OpenAIServer, _text

ANSWER = "The bridge stays on one chord and only three parts play there, so it has less to lean on."


def studio_reply(user: str, system: str, n: int) -> str:
    """What the model says in words (or JSON) to the studio's personas."""
    del n
    if "You route requests" in system:
        mode = "EDITING" if tool_script.TRIGGER in user else "COMPOSING" if "feel" in user else "REASONING"
        return json.dumps({"mode": mode, "intent": "what was asked", "confidence": 0.8})
    if "propose_edits" in system or "producer's assistant" in system:
        return json.dumps({"edits": [{"kind": "style", "override": {"role": "bass", "knobs": {"density": 0.4}}}]})
    return ANSWER


PERSONA_REPLIES = {"You route requests": json.dumps({"mode": "EDITING", "intent": "what was asked",
                                                     "confidence": 0.8}),
                   "You are a music producer answering questions": ANSWER}
"""For the fake `claude` CLI (FAKE_CLAUDE_PERSONAS): the classifier routes to EDITING; the analyst answers."""


def _retry_track(error: str) -> str:
    """The track a model that reads the error would try next."""
    track = re.search(r"did you mean '([^']+)'", error) or re.search(r"'([A-Z][\w ]*)'", error)
    return track.group(1) if track else "Bass"


class StudioModel(OpenAIServer):
    def __init__(self) -> None:
        super().__init__()
        self.reply_for = self.studio_reply

    def studio_reply(self, user: str, system: str, n: int) -> str:
        return studio_reply(user, system, n)

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        messages = body.get("messages") or []
        first = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        errors = [_text(m.get("content")) for m in messages[-4:] if m.get("role") == "tool"
                  and _text(m.get("content")).startswith("error:")]
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        if messages and messages[-1].get("role") == "tool" and errors and "[[retry]]" in first \
                and "set_track_volume" in tools:
            arguments = json.dumps({"track": _retry_track(errors[-1]), "volume": 0.5})
            return "", [{"id": f"call_{len(messages):04d}", "type": "function",
                         "function": {"name": "set_track_volume", "arguments": arguments}}]
        if messages and messages[-1].get("role") == "tool":
            return "I changed what worked.", []
        return super().tool_reply(body, user)


class StudioAnthropic(AnthropicServer):
    """The same model on the Anthropic wire: after an error result it retries as `StudioModel` does."""

    def __init__(self) -> None:
        super().__init__()
        self.reply_for = studio_reply

    def blocks(self, body: dict[str, Any], user: str, rest: str,
               switches: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        messages = body.get("messages") or []
        first = _anthropic_text(messages[0].get("content")) if messages else ""
        results = [b for b in _anthropic_blocks(messages[-1].get("content")) if b.get("type") == "tool_result"] \
            if messages else []
        errors = [_anthropic_text(b.get("content")) for b in results if b.get("is_error")]
        tools = {t.get("name") for t in body.get("tools") or []}
        if errors and "[[retry]]" in first and "set_track_volume" in tools:
            data = {"track": _retry_track(errors[-1]), "volume": 0.5}
            call = {"type": "tool_use", "id": f"toolu_{next(self._ids):024x}", "name": "set_track_volume",
                    "input": data}
            if body.get("stream"):
                call["_raw"] = json.dumps(data)
            return [call], "tool_use"
        if results:
            return [{"type": "text", "text": "I changed what worked."}], "end_turn"
        return super().blocks(body, user, rest, switches)
