"""Agent configuration: the ``[agents]`` table of ``bandstand.toml``, environment variables, flags.

Precedence, highest first: flags (the ``overrides`` mapping, dotted keys such
as ``"openai.model"``), environment variables (`ENV`), the file, defaults. The
file is ``--config PATH``, else ``$BANDSTAND_CONFIG``, else ``./bandstand.toml``
when it exists. Unknown keys and bad values are a `ConfigError` naming the
key and the file. API keys are never stored in the file: each HTTP backend
names the environment variable that holds its key (``api_key_env``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bandstand.errors import ConfigError
from bandstand.files import config_path

BACKEND_NAMES: tuple[str, ...] = ("algorithmic", "claude-code", "anthropic", "openai")
"""The backends a configuration may name; `bandstand.agents.registry.BUILDERS` builds each
(a test pins the two together)."""


def _known(value: str) -> str:
    if value not in BACKEND_NAMES:
        raise ValueError(f"unknown backend {value!r}; use one of {', '.join(BACKEND_NAMES)}")
    return value


class _Section(BaseModel):
    # no inf/nan anywhere: a timeout of 1e999 is a typo, not "wait forever"
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class ClaudeCodeConfig(_Section):
    bin: str = "claude"
    model: str | None = None
    thinking: bool = False
    bare: bool = False
    extra_args: list[str] = Field(default_factory=list)
    pid_dir: str | None = None
    interrupt_grace: float = Field(default=2.0, ge=0)
    term_grace: float = Field(default=2.0, ge=0)
    init_timeout: float = Field(default=60.0, gt=0)


class AnthropicConfig(_Section):
    base_url: str | None = None
    model: str = "claude-haiku-4-5"
    api_key_env: str = "ANTHROPIC_API_KEY"
    max_tokens: int = Field(default=1024, ge=1)
    stream: bool = True
    cache_persona: bool = True
    json_via: Literal["tool", "output_config"] = "tool"
    price: list[float] | None = None


class OpenAIConfig(_Section):
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    json_mode: bool | str = "auto"
    stream: bool = True
    max_tokens: int | None = Field(default=None, ge=1)
    price: list[float] | None = None

    @field_validator("json_mode", mode="before")
    @classmethod
    def _true_false_or_auto(cls, value: Any) -> Any:
        if value is True or value is False or value == "auto":
            return value
        raise ValueError(f'use true, false or "auto", not {value!r}')


class BreakerConfig(_Section):
    threshold: int = Field(default=5, ge=1)
    cooldown: float = Field(default=30.0, ge=0)
    retries: int = Field(default=3, ge=0)
    backoff: float = Field(default=0.25, ge=0)


class SeatConfig(_Section):
    """One instrument's seat in an agent team: who plays it (a backend, or "algorithmic" for the
    built-in musician), as whom (the persona), with which model and server."""

    backend: str | None = None
    persona: str = ""
    model: str | None = None
    base_url: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str | None) -> str | None:
        return None if value is None else _known(value)


class TeamConfig(_Section):
    """The ``[agents.team]`` table: an agent team's limits and its seats (by role)."""

    backend: str = "algorithmic"  # seats that name no backend
    deadline: float = Field(default=600.0, gt=0)  # the whole team, wall clock
    seat_timeout: float = Field(default=60.0, gt=0)  # one language-model turn
    section_timeout: float = Field(default=120.0, gt=0)  # one section agent
    signal_timeout: float = Field(default=20.0, ge=0)  # a bass waiting for its section's drums
    max_parallel: int = Field(default=4, ge=1)  # section agents writing at once
    seats: dict[str, SeatConfig] = Field(default_factory=dict)

    @field_validator("backend")
    @classmethod
    def _known_default(cls, value: str) -> str:
        return _known(value)


class AgentsConfig(_Section):
    """Everything the agent layer reads from configuration."""

    backend: str = "algorithmic"
    runs_dir: str = "runs"
    turn_timeout: float = Field(default=60.0, gt=0)
    claude_code: ClaudeCodeConfig = Field(default_factory=ClaudeCodeConfig, alias="claude-code")
    anthropic: AnthropicConfig = Field(default_factory=AnthropicConfig)
    openai: OpenAIConfig = Field(default_factory=OpenAIConfig)
    breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    team: TeamConfig = Field(default_factory=TeamConfig)
    source: str | None = Field(default=None, exclude=True)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        return _known(value)


# environment variable → dotted key
ENV: dict[str, str] = {
    "BANDSTAND_BACKEND": "backend",
    "BANDSTAND_RUNS_DIR": "runs_dir",
    "BANDSTAND_TURN_TIMEOUT": "turn_timeout",
    "BANDSTAND_CLAUDE_BIN": "claude-code.bin",
    "BANDSTAND_CLAUDE_MODEL": "claude-code.model",
    "ANTHROPIC_BASE_URL": "anthropic.base_url",
    "BANDSTAND_ANTHROPIC_MODEL": "anthropic.model",
    "OPENAI_BASE_URL": "openai.base_url",
    "BANDSTAND_OPENAI_MODEL": "openai.model",
}


def _set(tree: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for key in parents:
        tree = tree.setdefault(key, {})
    tree[leaf] = value


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> AgentsConfig:
    """The agent configuration from file, environment and flags (see the module docstring)."""
    env = os.environ if env is None else env
    source = config_path(path, env)
    tree: dict[str, Any] = {}
    if source is not None:
        try:
            agents = tomllib.loads(source.read_text(encoding="utf-8")).get("agents", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start}); save it as UTF-8 TOML") from exc
        except OSError as exc:
            raise ConfigError(f"cannot read config file {source}: {exc.strerror or exc}") from exc
        if not isinstance(agents, dict):
            raise ConfigError(f"{source}: 'agents' must be a table ([agents]), not {type(agents).__name__}")
        tree = dict(agents)
    from_env: dict[str, str] = {}
    for name, dotted in ENV.items():
        if env.get(name):
            _set(tree, dotted, env[name])
            from_env[dotted.replace("-", "_")] = name
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set(tree, dotted, value)
            from_env.pop(dotted.replace("-", "_"), None)
    where = str(source) if source is not None else "configuration"
    try:
        config = AgentsConfig.model_validate(tree)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in first.get("loc", ()))
        msg = str(first.get("msg", "")).removeprefix("Value error, ")
        variable = from_env.get(key.replace("-", "_"))
        if variable is not None:
            raise ConfigError(f"{variable}={env[variable]!r}: {msg}; fix or unset {variable}") from exc
        raise ConfigError(f"{where}: agents.{key}: {msg}; fix the [agents] table") from exc
    config.source = str(source) if source is not None else None
    return config
