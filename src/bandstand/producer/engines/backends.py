"""The language-model backends as the clients name them (`bandstand agents`, `--backend` of
`studio`, `serve`, `mcp`, `iterate`, the batch worker's seats): the agent configuration, the
backend registry and the one-turn probe, re-exported (they live once, in `bandstand.agents` and
`bandstand.runtime`), and `backend_named`, the backend a `--backend NAME` option means."""

from __future__ import annotations

from collections.abc import Mapping

from bandstand.agents import AgentBackend
from bandstand.agents.config import AgentsConfig, load_config
from bandstand.agents.registry import check_backends, make_backend
from bandstand.runtime.probe import probe_backends

__all__ = ["AgentBackend", "AgentsConfig", "backend_named", "check_backends", "load_config", "make_backend",
           "probe_backends"]


def backend_named(name: str | None, overrides: Mapping[str, object] | None = None) -> AgentBackend | None:
    """The backend `name` built from ./bandstand.toml and the environment (with `overrides`,
    dotted keys as `load_config` takes them); None for no name."""
    if not name:
        return None
    return make_backend(name, load_config(overrides=overrides))
