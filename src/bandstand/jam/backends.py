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
    from bandstand.agents.registry import check_backends, make_backend
    from bandstand.errors import ConfigError

    overrides = {f"{name}.model": model, f"{name}.base_url": base_url if name != "claude-code" else None}
    config = load_config(overrides=overrides)
    shared = make_backend(name, config)
    # a backend that cannot work here (no binary, no key, no client) would only give a
    # jam of silent members and exit 0; say so before the jam starts
    status = next((s for s in check_backends(config) if s.name == name), None)
    if status is not None and not status.usable:
        raise ConfigError(f"--backend {name} cannot be used here: {status.detail}; see 'bandstand agents check'")

    def factory(persona: Persona, seed: int) -> Any:
        return shared

    return factory
