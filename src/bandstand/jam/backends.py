"""Which backend plays the members: the built-in musicians, or an LLM built by the
runtime's backend table (`claude-code`, `anthropic`, `openai`) from bandstand.toml,
the environment and the flags. LLM members get the persona as system prompt and
the turn as text; their replies go through the same validation and fallback as
everyone else's. Each member may have its own backend (`member_factory`: a
`--member-backend NAME=BACKEND` flag, else the persona's `backend:` field,
else the band's `--backend`), all checked before the jam starts.
"""

from __future__ import annotations

from typing import Any

from bandstand.agents.config import BACKEND_NAMES, load_config
from bandstand.agents.registry import check_backends, make_backend
from bandstand.errors import ConfigError, InvalidInput
from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.persona import Persona


def backend_factory(name: str, *, model: str | None = None, base_url: str | None = None) -> BackendFactory:
    """The factory that gives each member its backend (one shared LLM backend, one
    conversation per member; a built-in musician per member for `algorithmic`)."""
    if name == "algorithmic":
        return algorithmic_backend
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


def member_backends(band: list[Persona], default: str, assignments: list[str]) -> dict[str, str]:
    """Each member's backend name: `assignments` ("ARIA=openai", by name, role or alias,
    case-insensitive) over the persona's `backend:` field over `default`. A member not in
    the band or an unknown backend is an `InvalidInput` naming the choices."""
    def known(name: str, where: str) -> str:
        if name not in BACKEND_NAMES:
            raise InvalidInput(f"{where}: unknown backend {name!r}; use one of {', '.join(BACKEND_NAMES)}")
        return name

    chosen = {p.name: known(p.backend or default, f"{p.name}'s backend") for p in band}
    for text in assignments:
        handle, sep, backend = text.partition("=")
        if not sep or not handle.strip() or not backend.strip():
            raise InvalidInput(f"--member-backend {text!r}: write NAME=BACKEND, e.g. ARIA=openai")
        member = next((p for p in band if handle.strip().lower() in p.handles()), None)
        if member is None:
            raise InvalidInput(
                f"--member-backend {text!r}: no member {handle.strip()!r} in the band ({', '.join(p.name for p in band)})"
            )
        chosen[member.name] = known(backend.strip().lower(), f"--member-backend {text!r}")
    return chosen


def member_factory(band: list[Persona], default: str, assignments: list[str], *, model: str | None = None,
                   base_url: str | None = None) -> BackendFactory:
    """The factory that gives each member the backend chosen for it (`member_backends`);
    every LLM backend named is built and checked once, up front, and shared by its members
    (one conversation each)."""
    chosen = member_backends(band, default, assignments)
    factories = {name: backend_factory(name, model=model, base_url=base_url) for name in sorted(set(chosen.values()))}

    def factory(persona: Persona, seed: int) -> Any:
        name = chosen.get(persona.name, default)
        make = factories.get(name) or backend_factory(name, model=model, base_url=base_url)
        return make(persona, seed)

    return factory
