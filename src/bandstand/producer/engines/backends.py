"""The language-model backends as the producer names them (`bandstand agents`, `--backend` of
`studio`, `serve`, `mcp`, `iterate`, the batch worker's seats): the agent configuration, the
backend registry and the one-turn probe, re-exported (they live once, in `bandstand.agents` and
`bandstand.runtime`). Which backend a `--backend NAME` means is `App.desk().backend`
(`producer.sessions.desk`)."""

from __future__ import annotations

from bandstand.agents import AgentBackend
from bandstand.agents.config import AgentsConfig, load_config
from bandstand.agents.registry import check_backends, make_backend
from bandstand.runtime.probe import probe_backends

__all__ = ["AgentBackend", "AgentsConfig", "check_backends", "load_config", "make_backend", "probe_backends"]
