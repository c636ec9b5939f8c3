"""The typed requests (and small replies) of `App`'s use cases, re-exported by `producer.app`:
frozen dataclasses a client fills in from its own input (flags, a JSON body, tool arguments) and
hands to `App.compose`, `direct`, `accept`, `export`, `import_midi`, `branch`, `checkout`, `merge`,
`team`, `stop_jam`, `jam_to_song`, `record_jam` …"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeAlias

__all__ = ["AcceptRequest", "BranchRequest", "CheckoutRequest", "ComposeRequest", "ExportRequest", "HeadlessJam",
           "ImportRequest", "JamFile", "JamRecording", "JamSongRequest", "MergeRequest", "ProjectRef", "SongRequest",
           "TeamRequest", "WordsRequest"]

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
class SongRequest:
    """What a new song is asked for, by a composer or a team: the prompt and compose's options
    (None leaves a choice to the prompt and the genre)."""

    prompt: str
    seed: int | None = None
    bars: int | None = None
    parts: tuple[str, ...] | None = None
    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    genre: str | None = None


@dataclass(frozen=True, slots=True)
class TeamRequest(SongRequest):
    """A new song from a prompt written by an agent team (`producer.teams.team_compose`): compose's
    options (None leaves a choice to the prompt and the genre), the agents' configuration
    (`config`, else bandstand.toml) and a team file's seats, the variation accepted at once or
    not, and an accepted take rendered (`audio`)."""

    accept: bool = False
    assume_defaults: bool = False
    config: str | os.PathLike[str] | None = None
    team_file: str | os.PathLike[str] | None = None
    audio: bool = True

    def song(self) -> dict[str, Any]:
        """Compose's options as the team takes them (`TeamOptions.compose`)."""
        return {"bars": self.bars, "parts": None if self.parts is None else list(self.parts), "tempo": self.tempo,
                "key": self.key, "mode": self.mode, "genre": self.genre}


@dataclass(frozen=True, slots=True)
class ComposeRequest(SongRequest):
    """A new song from a prompt; None leaves a choice to the prompt and the genre."""

    audio: bool = False
    assume_defaults: bool = True
    takes: int | None = None  # takes of each part, the best kept (or a `quality` preset's)
    quality: str | None = None
    approval_gates: tuple[str, ...] = ()  # the steps to pause after, for approval
    skip_stages: tuple[str, ...] = ()
    intent_backend: str | None = None  # also read the prompt with this language model
    generators: tuple[str, ...] = ()  # ROLE=URL part generators (none: the config file's)
    stall_timeout: float | None = None  # the run's time limits, in seconds (None: the defaults)
    stage_timeout: float | None = None
    pipeline_timeout: float | None = None

    def options(self) -> dict[str, Any]:
        given = {"seed": self.seed, "bars": self.bars, "parts": list(self.parts) if self.parts is not None else None,
                 "tempo": self.tempo, "key": self.key, "mode": self.mode, "genre": self.genre,
                 "takes": self.takes, "quality": self.quality, "intent_backend": self.intent_backend,
                 "approval_gates": list(self.approval_gates) or None, "skip_stages": list(self.skip_stages) or None,
                 "generators": list(self.generators) or None, "stall_timeout": self.stall_timeout,
                 "stage_timeout": self.stage_timeout, "pipeline_timeout": self.pipeline_timeout}
        return {**{k: v for k, v in given.items() if v is not None}, "render_audio": self.audio}


@dataclass(frozen=True, slots=True)
class WordsRequest:
    """A request in words ("make the bass busier", "what key is this in?") on a project (None, for
    the stream only: the words ask for a new one)."""

    project: str | None
    words: str
    conversation_id: str | None = None

    MAX_LENGTH: ClassVar[int] = 16_384
    """The longest words a request may carry, in characters (the studio stream refuses longer ones)."""


@dataclass(frozen=True, slots=True)
class AcceptRequest:
    """Which variation of a project (None: the newest ready one) and which of its phrases (None: all)."""

    project: str
    variation_id: str | None = None
    phrase_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """A project's song as `format` (`producer.sessions.export.FORMATS`) into its export/ folder, or the sub-folder
    `out` of it (`producer.sessions.export.export_folder`: nothing is written outside the project)."""

    project: str
    format: str
    out: str | None = None


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """A MIDI file (a path, or an upload's bytes named `filename`) as a new project."""

    source: str | os.PathLike[str] | bytes
    name: str = ""
    filename: str = ""


@dataclass(frozen=True, slots=True)
class JamRecording:
    """How a jam stops: its recording saved (under the projects' jams/), with the WAV or not."""

    save: bool = True
    audio: bool = False


@dataclass(frozen=True, slots=True)
class JamSongRequest:
    """A jam's recording (a folder holding jam.mid and rounds.jsonl, as a jam writes it) arranged as a
    new song project in `out` (None: the folder's song/), titled `title` (empty: after the folder)."""

    folder: str | os.PathLike[str]
    out: str | os.PathLike[str] | None = None
    title: str = ""


@dataclass(frozen=True, slots=True)
class HeadlessJam:
    """A jam without a browser: the band plays `cycles` cycles (bars), the `directives` ("[CYCLE:]TEXT")
    given between them (every `every` cycles; None: evenly spaced), and its recording — the WAV too
    when `wav` — goes to `out`, which becomes a studio project (the jam as played)."""

    out: str | os.PathLike[str]
    directives: tuple[str, ...] = ()
    cycles: int = 16
    every: int | None = None
    seed: int = 0
    turn_timeout: float = 30.0
    wav: bool = True
    autopilot: bool = True


@dataclass(frozen=True, slots=True)
class JamFile:
    """One file of a jam's recording, written: where, and its media type."""

    path: Path
    media_type: str
