"""A local OpenAI-compatible model that plays the studio's language model (real
HTTP on 127.0.0.1; the wire as `OpenAIServer` speaks it):

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
from tests.peers.openai_server import OpenAIServer, _text

ANSWER = "The bridge stays on one chord and only three parts play there, so it has less to lean on."


class StudioModel(OpenAIServer):
    def __init__(self) -> None:
        super().__init__()
        self.reply_for = self.studio_reply

    def studio_reply(self, user: str, system: str, n: int) -> str:
        if "You route requests" in system:
            mode = "EDITING" if tool_script.TRIGGER in user else "COMPOSING" if "feel" in user else "REASONING"
            return json.dumps({"mode": mode, "intent": "what was asked", "confidence": 0.8})
        if "propose_edits" in system or "producer's assistant" in system:
            return json.dumps({"edits": [{"kind": "style", "override": {"role": "bass", "knobs": {"density": 0.4}}}]})
        return ANSWER

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        messages = body.get("messages") or []
        first = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        errors = [_text(m.get("content")) for m in messages[-4:] if m.get("role") == "tool"
                  and _text(m.get("content")).startswith("error:")]
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        if messages and messages[-1].get("role") == "tool" and errors and "[[retry]]" in first \
                and "set_track_volume" in tools:
            track = re.search(r"did you mean '([^']+)'", errors[-1]) or re.search(r"'([A-Z][\w ]*)'", errors[-1])
            arguments = json.dumps({"track": track.group(1) if track else "Bass", "volume": 0.5})
            return "", [{"id": f"call_{len(messages):04d}", "type": "function",
                         "function": {"name": "set_track_volume", "arguments": arguments}}]
        if messages and messages[-1].get("role") == "tool":
            return "I changed what worked.", []
        return super().tool_reply(body, user)
