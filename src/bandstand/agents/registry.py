"""The backend table: build a backend by name from configuration, and say which work here.

`make_backend(name, config, responder=…)` is the one place backends are
constructed from settings (keys come from the environment variables the
config names). `check_backends(config)` reports, for each backend, whether it
is usable on this machine and, if not, what is missing — the data behind
``bandstand agents check``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bandstand.agents.algorithmic import AlgorithmicBackend, Responder
from bandstand.agents.base import AgentBackend
from bandstand.agents.config import BACKEND_NAMES, AgentsConfig
from bandstand.agents.procs import ProcessRegistry
from bandstand.agents.remote import INSTALL
from bandstand.agents.responders import echo
from bandstand.errors import ConfigError


def _algorithmic(config: AgentsConfig, responder: Responder | None) -> AgentBackend:
    return AlgorithmicBackend(responder or echo)


def _claude_code(config: AgentsConfig, responder: Responder | None) -> AgentBackend:
    from bandstand.agents.claude_code import ClaudeCodeBackend

    c = config.claude_code
    return ClaudeCodeBackend(
        bin=c.bin,
        model=c.model,
        thinking=c.thinking,
        bare=c.bare,
        extra_args=c.extra_args,
        registry=ProcessRegistry(c.pid_dir),
        init_timeout=c.init_timeout,
        interrupt_grace=c.interrupt_grace,
        term_grace=c.term_grace,
    )


def _anthropic(config: AgentsConfig, responder: Responder | None) -> AgentBackend:
    from bandstand.agents.anthropic_backend import AnthropicBackend

    c, b = config.anthropic, config.breaker
    return AnthropicBackend(
        base_url=c.base_url,
        model=c.model,
        api_key=os.environ.get(c.api_key_env),
        max_tokens=c.max_tokens,
        stream=c.stream,
        cache_persona=c.cache_persona,
        json_via=c.json_via,
        price=c.price,
        retries=b.retries,
        backoff=b.backoff,
        breaker_threshold=b.threshold,
        breaker_cooldown=b.cooldown,
    )


def _openai(config: AgentsConfig, responder: Responder | None) -> AgentBackend:
    from bandstand.agents.openai_backend import OpenAIBackend

    c, b = config.openai, config.breaker
    return OpenAIBackend(
        base_url=c.base_url,
        model=c.model,
        api_key=os.environ.get(c.api_key_env),
        json_mode=c.json_mode,
        stream=c.stream,
        max_tokens=c.max_tokens,
        price=c.price,
        retries=b.retries,
        backoff=b.backoff,
        breaker_threshold=b.threshold,
        breaker_cooldown=b.cooldown,
    )


BUILDERS: dict[str, Callable[[AgentsConfig, Responder | None], AgentBackend]] = {
    "algorithmic": _algorithmic,
    "claude-code": _claude_code,
    "anthropic": _anthropic,
    "openai": _openai,
}


def make_backend(
    name: str, config: AgentsConfig, *, responder: Responder | None = None
) -> AgentBackend:
    """A backend by name, built from `config`. ``algorithmic`` uses `responder` (default: echo)."""
    try:
        builder = BUILDERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown backend '{name}'; use one of {', '.join(BACKEND_NAMES)}"
        ) from None
    return builder(config, responder)


@dataclass(frozen=True, slots=True)
class BackendStatus:
    name: str
    usable: bool
    detail: str


def _check_claude(config: AgentsConfig, env: Mapping[str, str]) -> tuple[bool, str]:
    found = shutil.which(config.claude_code.bin)
    if found is None:
        return False, (
            f"the Claude Code CLI '{config.claude_code.bin}' is not on PATH; install it "
            "(npm install -g @anthropic-ai/claude-code) or set BANDSTAND_CLAUDE_BIN"
        )
    try:
        done = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{found} does not run: {exc}"
    version = (done.stdout or done.stderr).strip().splitlines()
    if done.returncode != 0:
        return (
            False,
            f"{found} --version failed (exit {done.returncode}): {' '.join(version)[:200]}",
        )
    return True, f"{found} ({version[0] if version else 'unknown version'})"


def _check_http(
    module: str, key_env: str, base_url: str | None, env: Mapping[str, str]
) -> tuple[bool, str]:
    if importlib.util.find_spec(module) is None:
        return False, f"the '{module}' package is not installed; run: {INSTALL}"
    where = base_url or "the default endpoint"
    if not env.get(key_env) and base_url is None:
        return False, f"no API key: set {key_env} (or point base_url at a local server)"
    key = "key set" if env.get(key_env) else f"no key in {key_env}"
    return True, f"{where}, {key}"


def check_backends(
    config: AgentsConfig, env: Mapping[str, str] | None = None
) -> list[BackendStatus]:
    """Which backends are usable here, and what is missing for the others."""
    env = os.environ if env is None else env
    checks: dict[str, Callable[[], tuple[bool, str]]] = {
        "algorithmic": lambda: (True, "built in, offline, deterministic"),
        "claude-code": lambda: _check_claude(config, env),
        "anthropic": lambda: _check_http(
            "anthropic", config.anthropic.api_key_env, config.anthropic.base_url, env
        ),
        "openai": lambda: _check_http(
            "openai", config.openai.api_key_env, config.openai.base_url, env
        ),
    }
    return [BackendStatus(name, *checks[name]()) for name in BACKEND_NAMES]
