"""Musician backends: the `AgentBackend` interface, its implementations, and reply validation.

- `base` — `AgentBackend`, `Conversation`, `TurnRequest`, `TurnReply`, `Usage`, `Message`.
- `algorithmic` — `AlgorithmicBackend(responder)`: offline and deterministic.
- `replies` — `extract_json`, `parse_reply(text, Model)`, `repair_prompt`.

Sessions, teams and event logs live one layer up, in `bandstand.runtime`.
"""

from bandstand.agents.algorithmic import AlgorithmicBackend, Responder
from bandstand.agents.base import (
    AgentBackend,
    Conversation,
    Emit,
    Message,
    TurnReply,
    TurnRequest,
    Usage,
)
from bandstand.agents.replies import (
    Parsed,
    ReplyFormatError,
    extract_json,
    json_schema,
    parse_reply,
    repair_prompt,
)

__all__ = [
    "AgentBackend",
    "AlgorithmicBackend",
    "Conversation",
    "Emit",
    "Message",
    "Parsed",
    "ReplyFormatError",
    "Responder",
    "TurnReply",
    "TurnRequest",
    "Usage",
    "extract_json",
    "json_schema",
    "parse_reply",
    "repair_prompt",
]
