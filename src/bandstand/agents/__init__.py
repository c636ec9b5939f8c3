"""Musician backends: the `AgentBackend` interface, its implementations, and reply validation.

- `base` — `AgentBackend`, `Conversation`, `TurnRequest`, `TurnReply`, `Usage`, `Message`,
  and tool calling: `ToolSpec`, `ToolCall`, `ToolResult`; `tools` — the shared rules.
- `algorithmic` — `AlgorithmicBackend(responder)`: offline and deterministic.
- `claude_code` — `ClaudeCodeBackend`: one persistent `claude` process per conversation.
- `anthropic_backend`, `openai_backend` — the HTTP backends (clients imported lazily).
- `replies` — `extract_json`, `parse_reply(text, Model)`, `repair_prompt`.
- `breaker` — `CircuitBreaker`, `retry`; `procs` — `ProcessRegistry`.
- `config`, `registry` — `load_config`, `make_backend`, `check_backends`.

Sessions, teams and event logs live one layer up, in `bandstand.runtime`.

Names are imported on first use (`__getattr__`): a command that needs the
breaker does not load every backend and the config models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bandstand.lazy import lazy_getattr

if TYPE_CHECKING:
    from bandstand.agents.algorithmic import AlgorithmicBackend, Responder
    from bandstand.agents.anthropic_backend import AnthropicBackend
    from bandstand.agents.base import (
        AgentBackend,
        Conversation,
        Emit,
        Message,
        ToolCall,
        ToolResult,
        ToolSpec,
        TurnReply,
        TurnRequest,
        Usage,
    )
    from bandstand.agents.breaker import CircuitBreaker, retry
    from bandstand.agents.claude_code import ClaudeCodeBackend
    from bandstand.agents.config import BACKEND_NAMES, AgentsConfig, load_config
    from bandstand.agents.openai_backend import OpenAIBackend
    from bandstand.agents.procs import ProcessRegistry
    from bandstand.agents.registry import BackendStatus, check_backends, make_backend
    from bandstand.agents.replies import (
        Parsed,
        ReplyFormatError,
        extract_json,
        json_schema,
        parse_reply,
        repair_prompt,
    )

__all__ = [
    "BACKEND_NAMES",
    "AgentBackend",
    "AgentsConfig",
    "AlgorithmicBackend",
    "AnthropicBackend",
    "BackendStatus",
    "CircuitBreaker",
    "ClaudeCodeBackend",
    "Conversation",
    "Emit",
    "Message",
    "OpenAIBackend",
    "Parsed",
    "ProcessRegistry",
    "ReplyFormatError",
    "Responder",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "TurnReply",
    "TurnRequest",
    "Usage",
    "check_backends",
    "extract_json",
    "json_schema",
    "load_config",
    "make_backend",
    "parse_reply",
    "repair_prompt",
    "retry",
]

# name → the module of bandstand.agents that defines it
_LAZY: dict[str, str] = {
    **dict.fromkeys(("AlgorithmicBackend", "Responder"), "algorithmic"),
    "AnthropicBackend": "anthropic_backend",
    **dict.fromkeys(("AgentBackend", "Conversation", "Emit", "Message", "ToolCall", "ToolResult", "ToolSpec",
                     "TurnReply", "TurnRequest", "Usage"), "base"),
    **dict.fromkeys(("CircuitBreaker", "retry"), "breaker"),
    "ClaudeCodeBackend": "claude_code",
    **dict.fromkeys(("BACKEND_NAMES", "AgentsConfig", "load_config"), "config"),
    "OpenAIBackend": "openai_backend",
    "ProcessRegistry": "procs",
    **dict.fromkeys(("BackendStatus", "check_backends", "make_backend"), "registry"),
    **dict.fromkeys(("Parsed", "ReplyFormatError", "extract_json", "json_schema", "parse_reply",
                     "repair_prompt"), "replies"),
}


__getattr__ = lazy_getattr("bandstand.agents", _LAZY, globals())
