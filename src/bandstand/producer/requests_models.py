"""The typed requests of `App`'s branch and team use cases (re-exported by `producer.app`, where
the others live): frozen dataclasses a client fills in from its own input (flags, a JSON body,
tool arguments) and hands to `App.branch`, `checkout`, `merge` or `team`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = ["BranchRequest", "CheckoutRequest", "MergeRequest", "ProjectRef", "TeamRequest"]

ProjectRef: TypeAlias = str | os.PathLike[str]
"""A project: its id under the projects (or, in an `App(folders=True)`, its folder's path as a str), or a
path object — the session folder itself, opened as it is (as the CLI's SESSION_DIR)."""


@dataclass(frozen=True, slots=True)
class BranchRequest:
    """A branch named `name` made at the project's HEAD and switched to (`producer.sessions.branches`)."""

    project: ProjectRef
    name: str


@dataclass(frozen=True, slots=True)
class CheckoutRequest:
    """Switch the project to a branch, or go to a revision (`target`: a branch name, "3" or "r3")."""

    project: ProjectRef
    target: str


@dataclass(frozen=True, slots=True)
class MergeRequest:
    """Branch `branch`'s changes made on the project's current branch as one revision, by `author`."""

    project: ProjectRef
    branch: str
    author: str = "user"


@dataclass(frozen=True, slots=True)
class TeamRequest:
    """A new song from a prompt written by an agent team (`producer.teams.team_compose`): compose's
    options (None leaves a choice to the prompt and the genre), the agents' configuration
    (`config`, else bandstand.toml) and a team file's seats, the variation accepted at once or
    not, and an accepted take rendered (`audio`)."""

    prompt: str
    seed: int | None = None
    bars: int | None = None
    parts: tuple[str, ...] | None = None
    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    genre: str | None = None
    accept: bool = False
    assume_defaults: bool = False
    config: str | os.PathLike[str] | None = None
    team_file: str | os.PathLike[str] | None = None
    audio: bool = True

    def song(self) -> dict[str, Any]:
        """Compose's options as the team takes them (`TeamOptions.compose`)."""
        return {"bars": self.bars, "parts": None if self.parts is None else list(self.parts), "tempo": self.tempo,
                "key": self.key, "mode": self.mode, "genre": self.genre}
