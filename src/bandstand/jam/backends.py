"""Which backend plays the members: the built-in musicians, or an LLM built by the
runtime's backend table (`claude-code`, `anthropic`, `openai`) from bandstand.toml,
the environment and the flags. LLM members get the persona as system prompt and
the turn as text; their replies go through the same validation and fallback as
everyone else's.
"""

from __future__ import annotations

from typing import Any

from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.persona import Persona


def backend_factory(name: str, *, model: str | None = None, base_url: str | None = None) -> BackendFactory:
    """The factory that gives each member its backend (one shared LLM backend, one
    conversation per member; a built-in musician per member for `algorithmic`)."""
    if name == "algorithmic":
        return algorithmic_backend
    from bandstand.agents.config import load_config
    from bandstand.agents.registry import make_backend

    overrides = {f"{name}.model": model, f"{name}.base_url": base_url if name != "claude-code" else None}
    shared = make_backend(name, load_config(overrides=overrides))

    def factory(persona: Persona, seed: int) -> Any:
        return shared

    return factory
