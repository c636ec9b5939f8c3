"""The typed requests (and small replies) of `App`'s use cases, re-exported by `producer.app`:
frozen dataclasses a client fills in from its own input (flags, a JSON body, tool arguments) and
hands to `App.compose`, `direct`, `accept`, `export`, `import_midi`, `branch`, `checkout`, `merge`,
`team`, `stop_jam`, `jam_to_song`, `record_jam` …, to the task board (`App.board`: `BoardReview`,
`ContextEstimate`, `BoardWork`) and to the batch desk (`App.batches`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeAlias, TypedDict

__all__ = ["AcceptRequest", "BatchRequest", "BoardReview", "BoardWork", "BranchRequest", "CheckoutRequest",
           "ComposeRequest", "ContextEstimate", "DatasetRequest", "ExportRequest", "HeadlessJam", "ImportRequest",
           "JamFile", "JamRecording", "JamSongRequest", "MergeRequest", "ProjectRef", "SongOptions", "SongRequest",
           "TeamRequest", "WordsRequest", "WorkerRequest"]

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


class SongOptions(TypedDict):
    """Compose's options as a team takes them (`TeamRequest.song`): None leaves a choice to the prompt."""

    bars: int | None
    parts: list[str] | None
    tempo: float | None
    key: str | None
    mode: str | None
    genre: str | None


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

    def song(self) -> SongOptions:
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


@dataclass(frozen=True, slots=True)
class BoardReview:
    """A musician's review request at a checkpoint — with `final`, its completion report (the last review) —
    as `BoardDesk.review` sends it: `checkpoint` is "n/m" (refused here when it is not), each of `outputs`
    "PATH[:created|modified|rag-addition]" (created when no kind is given), `severity` the highest deviation's."""

    smoothness: int
    checkpoint: str
    context: float
    summary: str
    final: bool = False
    self_correction: str | None = None
    deviations: int = 0
    severity: str | None = None
    agents: int = 0
    agent_cost: float = 8.0
    proposal: str | None = None
    files: tuple[str, ...] = ()
    tests: str = ""
    outputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n, _, m = self.checkpoint.partition("/")
        if not (n.isdigit() and m.isdigit()):
            from bandstand.errors import BoardUsageError

            raise BoardUsageError(f"--checkpoint takes n/m, e.g. 2/4; got {self.checkpoint!r}")


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    """A musician's context budget as it states it (`BoardDesk.context_warning`, `context_check`): the usage now
    (None: the last `[ctx: N%]` of the task's status file), the estimated cost to the next checkpoint, a
    self-correction (the status file's are found anyway), the agents still planned and each one's cost."""

    context: float | None = None
    cost: float | None = None
    self_correction: str | None = None
    agents: int = 0
    agent_cost: float = 8.0


@dataclass(frozen=True, slots=True)
class BoardWork:
    """How a board launch's sessions work (`BoardDesk.launch`, `BoardDesk.musician`): the backend (builtin,
    claude-code, anthropic, openai), where the results go (None: WORKDIR/output/board), the seconds between
    heartbeats and between polls, and the agents' configuration file (None: bandstand.toml)."""

    backend: str = "builtin"
    out: str | os.PathLike[str] | None = None
    heartbeat: float = 5.0
    poll: float = 0.5
    config: str | None = None


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """Every song of a prompts file (one prompt, or a JSON object, per line): song N gets seed `seed`+N unless
    its line sets one, and `bars`, `team`, `audio` unless it sets them. Where they run is `on` and `board` as a
    person types them (`--on local|board|ray|ray://HOST:PORT`, `--board URL-or-SQLite-path`): `workers`
    processes here (0 with a board: workers elsewhere take the songs) or the local Ray cluster's CPUs, Ray's
    `runtime_env` as JSON text; on a board, the conductor's `session`, the seconds without a heartbeat before a
    song is taken over (`stale_after`) and the local workers' `heartbeat`."""

    prompts: str | os.PathLike[str]
    seed: int = 0
    bars: int | None = None
    team: bool = False
    audio: bool = False
    on: str | None = None
    board: str | None = None
    workers: int = 1
    runtime_env: str | None = None
    session: str | None = None
    stale_after: float = 60.0
    heartbeat: float = 5.0


@dataclass(frozen=True, slots=True)
class DatasetRequest:
    """The songs of a dataset spec (TOML: a grid × seeds), the first `limit` of the `shard` ("I/N": every N-th
    from the I-th) or all, run where `on`, `board`, `workers` and `runtime_env` say (as in `BatchRequest`)."""

    spec: str | os.PathLike[str]
    on: str | None = None
    board: str | None = None
    workers: int = 1
    limit: int | None = None
    shard: str | None = None
    runtime_env: str | None = None


@dataclass(frozen=True, slots=True)
class WorkerRequest:
    """A board's worker: it takes batch songs (and team songs' sections, written by the seats of `config`'s
    [agents.team] when given) from `board` as `session` (None: host and process), heartbeating every
    `heartbeat` seconds and looking every `poll` when idle, until idle `idle_exit` seconds or `max_tasks` done."""

    board: str
    session: str | None = None
    heartbeat: float = 5.0
    poll: float = 0.25
    idle_exit: float | None = None
    max_tasks: int | None = None
    config: str | os.PathLike[str] | None = None
