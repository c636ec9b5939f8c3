"""The team file: a leader and named teammates, each with a persona, a backend and options.

A TOML file::

    name = "demo-band"
    leader = "producer"

    [limits]              # all optional
    max_turns = 6         # leader turns
    max_seconds = 300     # wall clock for the whole run
    max_cost_usd = 0.50   # all members together
    max_parallel = 4      # teammates working at once
    turn_timeout = 60     # per turn, every member

    [members.producer]
    persona = "You lead a small band…"
    backend = "algorithmic"           # default: the configured backend
    responder = "delegating_leader"   # algorithmic only: a built-in name or "module:function"

    [members.bass]
    persona = "You play bass."
    backend = "claude-code"
    model = "claude-haiku-4-5"
    options = { thinking = false }

``mode`` chooses how the leader works with its teammates: ``"delegate"`` (the
default) is bandstand's own protocol — every member is a session, the leader
answers JSON naming whom to give which task, and code routes it.
``"claude-code"`` is Claude Code's own: the leader is one `claude` process
that starts its teammates itself as the CLI's subagents (each member's persona
and model define one); teammates then take no backend or responder of their
own::

    mode = "claude-code"
    leader = "producer"
    [members.producer]
    persona = "You lead a small band…"
    [members.bass]
    persona = "You are GROOVE, the bassist: short answers, one bass line."

`load_team(path)` returns a validated `TeamSpec`; mistakes are `ConfigError`
naming the file and the key.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bandstand.errors import ConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class MemberSpec(_Strict):
    persona: str = ""
    backend: str | None = None
    responder: str | None = None
    model: str | None = None
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict)


class TeamLimits(_Strict):
    max_turns: int = Field(default=8, ge=1)
    max_seconds: float | None = Field(default=600.0, gt=0)
    max_cost_usd: float | None = Field(default=None, ge=0)
    max_parallel: int = Field(default=4, ge=1)
    turn_timeout: float | None = Field(default=120.0, gt=0)


class TeamSpec(_Strict):
    # the name becomes part of the log folder's name, so no slashes or dots in front
    name: str = Field(default="team", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    mode: Literal["delegate", "claude-code"] = "delegate"
    leader: str
    members: dict[str, MemberSpec]
    limits: TeamLimits = Field(default_factory=TeamLimits)

    @model_validator(mode="after")
    def _leader_is_a_member(self) -> TeamSpec:
        if self.leader not in self.members:
            raise ValueError(
                f"leader '{self.leader}' is not one of the members ({', '.join(self.members)})"
            )
        if self.mode == "claude-code":
            for name, member in self.members.items():
                if member.backend not in (None, "claude-code") or member.responder is not None:
                    what = ("the leader is a claude-code process" if name == self.leader
                            else "teammates are the leader's subagents")
                    raise ValueError(
                        f"members.{name}: in mode \"claude-code\" {what}; "
                        "remove its backend/responder, or use mode = \"delegate\""
                    )
        return self

    @property
    def teammates(self) -> list[str]:
        return [name for name in self.members if name != self.leader]


def parse_team(text: str, where: str = "team file") -> TeamSpec:
    """A `TeamSpec` from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from exc
    try:
        return TeamSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in first.get("loc", ()))
        msg = str(first.get("msg", "")).removeprefix("Value error, ")
        if key == "name" and first.get("type") == "string_pattern_mismatch":
            msg = "use 1-64 letters, digits, '.', '_' or '-' (it names the log folder), e.g. name = \"late-night\""
        raise ConfigError(f"{where}: {key}: {msg}" if key else f"{where}: {msg}") from exc


def load_team(path: str | os.PathLike[str]) -> TeamSpec:
    """Read and validate a team file."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read team file {source}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start}); save the team file as UTF-8 TOML") from exc
    return parse_team(text, str(source))
