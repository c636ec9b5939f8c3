"""Which backend plays each member: the built-in musicians, or an LLM through
the runtime (`claude-code`, `openai`, `anthropic`). LLM members get the persona
as system prompt and the turn as text; their replies go through the same
validation and fallback as everyone else's.
"""

from __future__ import annotations

import importlib
from typing import Any

from bandstand.errors import ConfigError
from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.persona import Persona

# backend name → (module, class) in bandstand.agents
LLM_BACKENDS: dict[str, tuple[str, str]] = {
    "claude-code": ("bandstand.agents.claude_code", "ClaudeCodeBackend"),
    "openai": ("bandstand.agents.openai_backend", "OpenAIBackend"),
    "anthropic": ("bandstand.agents.remote", "AnthropicBackend"),
}
BACKENDS = ("algorithmic", *LLM_BACKENDS)


def backend_factory(name: str, **options: Any) -> BackendFactory:
    """The backend factory for a backend name; options go to the backend's constructor."""
    if name == "algorithmic":
        return algorithmic_backend
    if name not in LLM_BACKENDS:
        raise ConfigError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")
    module_name, class_name = LLM_BACKENDS[name]
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"the {name} backend is not available here ({exc}); see 'bandstand agents check'") from exc
    kwargs = {k: v for k, v in options.items() if v is not None}
    shared = cls(**kwargs)

    def factory(persona: Persona, seed: int) -> Any:
        return shared

    return factory
