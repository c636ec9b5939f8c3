"""`App`: the one entry point of the service. Every use case a client offers — compose and resume,
direct a song in words (edit or ask), accept/discard/undo/redo, export, import, the branches (make,
check out, merge, list, graph), listen, the jam, composing with a team, batches and team runs (a desk each),
the projects and sessions — is one method here, with typed requests (frozen dataclasses) and its own reply.

    app = App("songs")                                            # offline: rules, built-in musicians
    song = app.compose(ComposeRequest("funk groove in E minor", seed=3, bars=16))
    done = app.direct(WordsRequest(song.result.session_dir.name, "make the bass busier"))
    app.accept(AcceptRequest(song.result.session_dir.name))

A project is named by its id (`session-…`) under `projects`, or — in an `App(folders=True)`, as the CLI
makes it — by its folder's path. Words are routed once (`producer.requests.intent`, in `prepare`) and run by
the studio stream's modes whichever client sends them, so the CLI, HTTP and MCP make the same change from
the same words. The methods delegate to the use-case modules beside this one, imported on use so a client pays only
for what it calls; the requests live in `producer.requests_models`. The jam is reached here alone, its band's makers
too; an area of many use cases through its desk (`board()`, `batches()`, `team_runs()`, `live()`, `patterns()`,
`theory()`, `desk()` for the studio's reads and tools). A client names the service's types (`LiveJam`, `Persona`,
`Studio`, `Prepared`, `Tool` …) in annotations by importing them from here under `TYPE_CHECKING`; a request's run
control, `Control` and `Cancelled`, which clients make and catch, is re-exported for real."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.producer.execution.running import Cancelled, Control
from bandstand.producer.requests_models import (
    AcceptRequest,
    BatchRequest,
    BoardReview,
    BoardWork,
    BranchRequest,
    CheckoutRequest,
    ComposeRequest,
    ContextEstimate,
    DatasetRequest,
    ExportRequest,
    HeadlessJam,
    ImportRequest,
    JamFile,
    JamRecording,
    JamSongRequest,
    MergeRequest,
    ProjectRef,
    TeamRequest,
    WordsRequest,
    WorkerRequest,
)
from bandstand.protocol.jsonvalue import JSONObject

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend as AgentBackend
    from bandstand.compose.api import CleanPlan, Decision, EventSink
    from bandstand.producer.batch.desk import BatchDesk
    from bandstand.producer.board.desk import BoardDesk as BoardDesk
    from bandstand.producer.composing.compose import Answer, Composed
    from bandstand.producer.engines.pattern_tools import PatternTools as PatternTools
    from bandstand.producer.engines.theory_tools import TheoryTools as TheoryTools
    from bandstand.producer.jams.jam import BackendFactory as BackendFactory
    from bandstand.producer.jams.jam import LiveJam as LiveJam
    from bandstand.producer.jams.jam import Persona as Persona
    from bandstand.producer.jams.jam_headless import RecordedJam
    from bandstand.producer.jams.jam_song import JamSong
    from bandstand.producer.live.desk import LiveDesk
    from bandstand.producer.live.strudel_desk import PatternDesk as PatternDesk
    from bandstand.producer.requests.direct import Directed
    from bandstand.producer.requests.job import Outcome
    from bandstand.producer.requests.job import Prepared as Prepared
    from bandstand.producer.requests.stream import Sink
    from bandstand.producer.sessions.branches import BranchesListing, GraphLine, Moved
    from bandstand.producer.sessions.desk import StudioDesk
    from bandstand.producer.sessions.export import Export
    from bandstand.producer.sessions.importing import Imported
    from bandstand.producer.sessions.library import Library as Library
    from bandstand.producer.sessions.listen import Listening
    from bandstand.producer.sessions.projects import ProjectSession
    from bandstand.producer.sessions.session_list import SessionSummary
    from bandstand.producer.sessions.studio import Studio as Studio
    from bandstand.producer.sessions.studio_tools import Tool as Tool
    from bandstand.producer.teams.team_compose import TeamRun
    from bandstand.producer.teams.team_runs import TeamRuns as TeamRuns
    from bandstand.protocol import Emitter
    from bandstand.studio import HistoryEntry, Variation
    from bandstand.theory import Chord as Chord

__all__ = ["AcceptRequest", "App", "BatchRequest", "BoardReview", "BoardWork", "BranchRequest", "Cancelled",
           "CheckoutRequest", "ComposeRequest", "ContextEstimate", "Control", "DatasetRequest", "ExportRequest",
           "HeadlessJam", "ImportRequest", "JamFile", "JamRecording", "JamSongRequest", "MergeRequest", "TeamRequest",
           "WordsRequest", "WorkerRequest"]


@dataclass(slots=True)
class App:
    """See the module docstring. `backend` reads what the rules do not (None: offline); `folders`: projects by path too."""

    projects: Path = Path("output")
    backend: AgentBackend | None = None
    folders: bool = False
    _studio: Studio | None = field(default=None, init=False, repr=False)
    _library: Library | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.projects = Path(self.projects).expanduser()

    @classmethod
    def of(cls, studio: Studio) -> App:
        """The facade over a studio a server already holds (its projects, backend and team)."""
        app = cls(studio.out_dir, backend=studio.backend, folders=studio.folders)
        app._studio = studio
        return app

    @classmethod
    def over(cls, library: Library, *, backend: AgentBackend | None = None) -> App:
        """The facade over a library of projects a client already holds (MCP's), opened and known by path as it has them."""
        app = cls(library.root, backend=backend)
        app._library = library
        return app

    @property
    def studio(self) -> Studio:
        if self._studio is None:
            from bandstand.producer.sessions.studio import Studio

            self._studio = Studio(self.projects, backend=self.backend, folders=self.folders)
        return self._studio

    @property
    def library(self) -> Library:
        """The projects (`producer.sessions.library.Library`): the one given to `over`, else the studio's."""
        return self._library if self._library is not None else self.studio.library

    def session(self, project: str) -> ProjectSession:
        """A project to change (see `producer.sessions.library.Library.session`)."""
        return self.library.session(project)

    def project(self, project: ProjectRef, *, read_only: bool = False, regenerate: bool = True) -> ProjectSession:
        """A project by its `ProjectRef`: a path object is the session folder (`sessions.refs.open_folder`, parts regenerated
        unless not `regenerate`); a str, the library's project to change or, `read_only`, as on disk (`Library.reader`)."""
        if isinstance(project, os.PathLike):
            from bandstand.producer.sessions.refs import open_folder

            return open_folder(project, regenerate=regenerate)
        return self.library.reader(project) if read_only else self.session(project)

    # ------------------------------------------------------------------ composing

    def compose(self, request: ComposeRequest, *, answer: Answer | None = None, on_event: EventSink | None = None,
                control: Control | None = None) -> Composed:
        """A new song in the projects folder (`producer.composing.compose.compose_song`); `answer` asks."""
        from bandstand.producer.composing.compose import compose_song

        return compose_song(request.prompt, answer=answer, assume_defaults=request.assume_defaults,
                            on_event=on_event, control=control, out_dir=str(self.projects), **request.options())

    def resume(self, session_dir: str | os.PathLike[str], decision: Decision | None = None, *,
               answer: Answer | None = None, assume_defaults: bool = False, on_event: EventSink | None = None,
               limits: dict[str, float] | None = None) -> Composed:
        """A compose session continued where it stopped, `decision` at its gate (`compose.resume_song`)."""
        from bandstand.producer.composing.compose import resume_song

        return resume_song(Path(session_dir), decision=decision, answer=answer, assume_defaults=assume_defaults,
                           on_event=on_event, limits=limits)

    @staticmethod
    def compose_steps() -> tuple[str, ...]:
        """The compose run's steps in order, as a progress display lists them."""
        from bandstand.producer.composing.compose import STEPS

        return tuple(STEPS)

    # ------------------------------------------------------------------ requests in words: one router, one path

    def prepare(self, request: WordsRequest) -> Prepared:
        """The words routed once into a typed request, its project and conversation found, or refused in one line."""
        return self.studio.prepare(request.words, project_id=request.project, conversation_id=request.conversation_id)

    async def stream(self, prepared: Prepared, sink: Sink, *, control: Control | None = None,
                     on_outcome: Callable[[Outcome], None] | None = None) -> JSONObject:
        """Run a prepared request, its events to `sink` (the studio stream); returns `complete`."""
        return await self.studio.stream(prepared, sink, control=control, on_outcome=on_outcome)

    def direct(self, request: WordsRequest) -> Directed:
        """Do what the words ask of the project: a variation, revision or answer (`requests.direct`; as `stream`)."""
        from bandstand.producer.requests.direct import direct

        return direct(self._folder(request.project), request.words, backend=self.backend)

    def ask(self, request: WordsRequest) -> Directed:
        """An answer to a question about the project; a request that is not a question is refused."""
        from bandstand.producer.requests.direct import ask

        return ask(self._folder(request.project), request.words, backend=self.backend)

    def _folder(self, project: str | None) -> Path:
        """The project's folder, by its path in an `App(folders=True)`, else by its id (`sessions.refs.folder_of`)."""
        from bandstand.producer.sessions.refs import folder_of

        return folder_of(project, folders=self.folders, session=self.session)

    # ------------------------------------------------------------------ variations, revisions, files in and out

    def accept(self, request: AcceptRequest) -> HistoryEntry:
        """Commit all or some phrases of a variation as a new revision."""
        return self.session(request.project).accept(request.variation_id,
                                                    list(request.phrase_ids) if request.phrase_ids else None)

    def discard(self, request: AcceptRequest) -> Variation:
        return self.session(request.project).discard(request.variation_id)

    def undo(self, project: str, steps: int = 1) -> int:
        """HEAD moved back `steps` revisions; the new HEAD."""
        return self.session(project).undo(steps)

    def redo(self, project: str) -> int:
        return self.session(project).redo()

    def export(self, request: ExportRequest, *, control: Control | None = None) -> Export:
        return self.desk().export(request.project, request.format, request.out, control=control)

    def import_midi(self, request: ImportRequest) -> Imported:
        from bandstand.producer.sessions.importing import import_midi

        return import_midi(request.source, name=request.name, filename=request.filename, projects=self.projects)

    # ------------------------------------------------------------------ branches of a project's history

    def branch(self, request: BranchRequest) -> Moved:
        """A branch at HEAD, made current (the song does not change): `producer.sessions.branches.create_branch`."""
        from bandstand.producer.sessions.branches import create_branch

        return create_branch(self.project(request.project), request.name)

    def checkout(self, request: CheckoutRequest) -> Moved:
        """Switch to a branch (its head becomes HEAD) or go to a revision: `producer.sessions.branches.checkout`."""
        from bandstand.producer.sessions.branches import checkout

        return checkout(self.project(request.project), request.target)

    def merge(self, request: MergeRequest) -> HistoryEntry:
        """Another branch's changes as one revision on the current one (refused, naming what both changed,
        when they overlap): `producer.sessions.branches.merge`."""
        from bandstand.producer.sessions.branches import merge

        return merge(self.project(request.project), request.branch, author=request.author)

    def branches(self, project: ProjectRef, *, graph: bool = False, read_only: bool = False) -> BranchesListing:
        """The branches (the current one marked) and HEAD as clients show them — with the history graph when
        `graph` (`producer.sessions.branches.branches_json`); `read_only`: the project as it is on disk."""
        from bandstand.producer.sessions.branches import branches_json

        return branches_json(self.project(project, read_only=read_only), with_graph=graph)

    def graph(self, project: ProjectRef) -> list[GraphLine]:
        """The history drawn like `git log --graph`, newest first (`producer.sessions.branches.graph`)."""
        from bandstand.producer.sessions.branches import graph

        return graph(self.project(project))

    # ------------------------------------------------------------------ composing with a team

    def team(self, request: TeamRequest, *, on_event: Sink | None = None, control: Control | None = None) -> TeamRun:
        """A new song written by an agent team, as every client runs one (`producer.teams.team_compose`): the options
        from the agents' configuration and the team file, the team run on a loop of its own with each event of its
        stream written to the run log under the runs folder (which the log view follows) and to `on_event`, then an
        accepted take rendered when `request.audio`. Blocking: call it off any event loop. Cancelling `control`
        stops every agent and seat, proposes nothing and raises `Cancelled`; its `report` is the caller's."""
        from bandstand.producer.teams.team_compose import finish, run_team, team_options

        options = team_options(seed=request.seed, song=request.song(), out=self.projects, accept=request.accept,
                               assume_defaults=request.assume_defaults, config=request.config,
                               team_file=request.team_file)
        run = run_team(request.prompt, options, on_event=on_event, control=control)
        finish(run, render_audio=request.audio)
        return run

    @staticmethod
    def check_team_choices(team: bool, choices: Mapping[str, bool], *, spell: Callable[[str], str] = str) -> None:
        """Refuse what only a team takes (accepting at once, a team configuration) when no team composes
        (`team_compose.refuse_team_choices_alone`): `choices`, those options → given; `spell` as "--accept"."""
        from bandstand.producer.teams.team_compose import refuse_team_choices_alone

        refuse_team_choices_alone(team, choices, spell=spell)

    def listen(self, project: ProjectRef, section: str | None = None, *,
               on_render: Callable[[int], object] | None = None,
               progress: Callable[[str], None] | None = None) -> Listening:
        """HEAD as a WAV to play: the song or the section the words name (`producer.sessions.listen`)."""
        from bandstand.producer.sessions.listen import listening

        root = Path(project) if isinstance(project, os.PathLike) else self.session(project).session_dir
        return listening(root, section, on_render=on_render, progress=progress)

    def sessions(self, *, unfinished: bool = False) -> list[SessionSummary]:
        """Every song here a client can open, newest change first — with `unfinished`, the runs
        that crashed, were cancelled or paused too (`producer.sessions.session_list`: what every client lists)."""
        from bandstand.producer.sessions.session_list import list_summaries

        return list_summaries(self.projects, unfinished=unfinished)

    def plan_clean(self, *, older_than_days: float | None = None, incomplete: bool = False) -> CleanPlan:
        """What `clean` would delete of the projects folder (`producer.sessions.session_list.plan_clean`)."""
        from bandstand.producer.sessions.session_list import plan_clean

        return plan_clean(self.projects, older_than_days=older_than_days, incomplete=incomplete)

    @staticmethod
    def clean(plan: CleanPlan) -> int:
        from bandstand.producer.sessions.session_list import clean

        return clean(plan)

    @staticmethod
    def active_seconds() -> int:
        from bandstand.producer.sessions.session_list import ACTIVE_SECONDS

        return ACTIVE_SECONDS

    # ------------------------------------------------------------------ the jam

    def new_jam(self, members: Sequence[str] | None = None, *, personas: Sequence[Persona] = (), seed: int = 0,
                emitter: Emitter | None = None, backend: BackendFactory | None = None,
                turn_timeout: float = 30.0) -> LiveJam:
        """A jam that is not playing yet: the band `members` (default the whole built-in band), playing
        through `backend` (a `jam_backend`; None: the built-in musicians) — `producer.jams.jam.new_jam`."""
        from bandstand.producer.jams.jam import algorithmic_backend, new_jam

        return new_jam(members, personas=personas, seed=seed, emitter=emitter, backend=backend or algorithmic_backend,
                       turn_timeout=turn_timeout)

    async def start_jam(self, jam: LiveJam, members: Sequence[str] | None = None, *,
                        restart: bool = False) -> JSONObject:
        from bandstand.producer.jams.jam import start_jam

        return await start_jam(jam, members, restart=restart)

    def direct_jam(self, jam: LiveJam, words: str, on_error: Callable[[str], None] | None = None) -> JSONObject:
        from bandstand.producer.jams.jam import direct_jam

        return direct_jam(jam, words, on_error)

    async def stop_jam(self, jam: LiveJam, recording: JamRecording = JamRecording()) -> JSONObject:
        """Stop the jam; its state, with `recording`: when it played and `recording.save`, the folder
        of its own chosen for it under the projects' jams/ (`producer.jams.jam.recording_folder`)
        and the files written there, else None. Every client stops a jam here, so the rule is one."""
        from bandstand.producer.jams.jam import stop_and_record

        return await stop_and_record(jam, self.projects, save=recording.save, audio=recording.audio)

    async def keep_jam(self, jam: LiveJam, title: str = "") -> JamSong:
        """The jam so far as a song project among the others (`producer.jams.jam_song.keep_jam`)."""
        from bandstand.producer.jams.jam_song import keep_jam

        return await keep_jam(jam, self.projects, title=title)

    def band_jam(self, band: Sequence[Persona], *, emitter: Emitter, backend: BackendFactory | None = None,
                 seed: int = 0, turn_timeout: float = 30.0, autopilot: bool = True) -> LiveJam:
        """A jam of the personas `band` as they are (a server's band, chosen at its start), its events to
        `emitter`, played through `backend` (None: the built-in musicians)."""
        from bandstand.producer.jams.jam import algorithmic_backend, band_jam

        return band_jam(band, emitter=emitter, backend=backend or algorithmic_backend, seed=seed,
                        turn_timeout=turn_timeout, autopilot=autopilot)

    def jam_state(self, jam: LiveJam) -> JSONObject:
        """The jam as the page sees it: running, round, members, context, autopilot."""
        from bandstand.producer.jams.jam import jam_state

        return jam_state(jam)

    async def jam_file(self, jam: LiveJam, name: str, folder: Path) -> JamFile:
        """The last jam's recording file `name` (jam.mid, jam.wav, transcript.md, rounds.jsonl) written
        into `folder`, with its media type; `NotFound` for another name or when nothing was played."""
        from bandstand.producer.jams.jam import RECORDING_FILES

        path = await jam.export(name, folder)
        return JamFile(path, RECORDING_FILES[name])

    def jam_to_song(self, request: JamSongRequest) -> JamSong:
        """A jam's recording arranged as a song project (intro, its rounds as sections, an ending), which
        the studio directs further (`producer.jams.jam_song.jam_to_song`)."""
        from bandstand.producer.jams.jam_song import jam_to_song

        out = Path(request.out) if request.out is not None else None
        return jam_to_song(Path(request.folder), out, title=request.title)

    async def record_jam(self, band: Sequence[Persona], request: HeadlessJam, *,
                         backend: BackendFactory | None = None, echo: Callable[[str], None] = print,
                         as_json: bool = False) -> RecordedJam:
        """A headless jam of `band`, its chat to `echo`; its summary (`producer.jams.jam_headless.record_jam`)."""
        from bandstand.producer.jams.jam_headless import record_jam

        return await record_jam(band, request, backend=backend, echo=echo, as_json=as_json)

    @staticmethod
    def jam_members(names: Sequence[str] | None = None, personas: Sequence[Persona] = ()) -> list[Persona]:
        """The band `names` name (case-blind; None: the default band and `personas`), from the built-in
        musicians and `personas`; an unknown name is an `InvalidInput` naming the known."""
        from bandstand.producer.jams.jam import resolve_members

        return resolve_members(list(names) if names else None, list(personas))

    @staticmethod
    def load_persona(path: str | os.PathLike[str]) -> Persona:
        """A persona from its markdown file (front matter and a description)."""
        from bandstand.producer.jams.jam import load_persona

        return load_persona(Path(path))

    @staticmethod
    def jam_backend(name: str = "algorithmic", band: Sequence[Persona] | None = None,
                    assignments: Sequence[str] = (), *, model: str | None = None,
                    base_url: str | None = None) -> BackendFactory:
        """Who plays a jam's members: `name`'s backend for every member (`algorithmic`: the built-in musicians; an
        LLM backend is built and checked here, once) — or, given the `band`, each member the backend chosen for it:
        `assignments` ("ARIA=openai") over its persona's `backend:` over `name`."""
        from bandstand.producer.jams.jam import backend_factory, member_factory

        return backend_factory(name, model=model, base_url=base_url) if band is None else \
            member_factory(list(band), name, list(assignments), model=model, base_url=base_url)

    # -- board
    @staticmethod
    def board(where: str | os.PathLike[str] | None = None, *, workdir: str | os.PathLike[str] = ".",
              stale_after: float = 540.0, busy_timeout: float = 30.0) -> BoardDesk:
        """The task board at `where` (a URL or a SQLite file's path; None: the default) as clients use it."""
        from bandstand.producer.board.desk import BoardDesk

        return BoardDesk.at(where, workdir=workdir, stale_after=stale_after, busy_timeout=busy_timeout)

    # -- batches and team runs
    def batches(self) -> BatchDesk:
        """Many songs at once into the projects folder: a batch, a dataset, a board's worker (`producer.batch.desk`)."""
        from bandstand.producer.batch.desk import BatchDesk

        return BatchDesk(self.projects)

    @staticmethod
    def team_runs(runs_dir: str | os.PathLike[str] | None = None, config: str | os.PathLike[str] | None = None) -> TeamRuns:
        """Agent team runs under `runs_dir` (None: the configuration's): started, resumed, listed and followed."""
        from bandstand.producer.teams.team_runs import TeamRuns

        return TeamRuns(runs_dir, config)

    # -- live: play live, the transport, the Strudel desk (`producer.live.desk`); pattern code, theory (`engines`)
    def live(self) -> LiveDesk:
        from bandstand.producer.live.desk import LiveDesk
        return LiveDesk(self)

    def patterns(self) -> PatternTools:
        from bandstand.producer.engines.pattern_tools import PatternTools
        return PatternTools()

    def theory(self) -> TheoryTools:
        from bandstand.producer.engines.theory_tools import TheoryTools
        return TheoryTools()

    # -- the studio's reads and tools: history, variations, tools, exports, renders, alternatives, backends
    def desk(self) -> StudioDesk:
        from bandstand.producer.sessions.desk import StudioDesk

        return StudioDesk(self)
