"""The backends a board launch can run its sessions on: a launcher name (``builtin``,
``claude-code``, ``anthropic``, ``openai``) → the agent backend behind it (`backend_for`),
and whether it is usable here (`check_backend`). The launch (`board_launch`) and each
musician process (`board_musician`) build their backends here. The agent layer is imported
when a backend is built, not with the board: `bandstand board` commands that run no
session do not load it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["BACKENDS", "backend_for", "check_backend"]

#: Launcher backend → agent backend.
BACKENDS = {"builtin": "algorithmic", "claude-code": "claude-code", "anthropic": "anthropic", "openai": "openai"}


def backend_for(name: str, config: str | None = None, *, responder: Any = None) -> Any:
    """The agent backend behind a launcher backend name (``builtin`` answers with `responder`)."""
    from bandstand.agents.algorithmic import AlgorithmicBackend
    from bandstand.agents.config import load_config
    from bandstand.agents.registry import make_backend

    check_backend(name, config)
    if name == "builtin":
        return AlgorithmicBackend(responder)
    return make_backend(BACKENDS[name], load_config(Path(config) if config else None))


def check_backend(name: str, config: str | None = None) -> None:
    """A known backend, usable here — else one line saying what is missing."""
    from bandstand.agents.config import load_config
    from bandstand.agents.registry import check_backends
    from bandstand.errors import ConfigError, InvalidInput

    if name not in BACKENDS:
        raise InvalidInput(f"unknown backend {name!r}: use one of {', '.join(BACKENDS)}")
    if name == "builtin":
        return
    status = next(s for s in check_backends(load_config(Path(config) if config else None)) if s.name == BACKENDS[name])
    if not status.usable:
        raise ConfigError(f"the {name} backend is not configured here: {status.detail} "
                          "(see 'bandstand agents check')")
