"""The studio as one service: everything the HTTP API, MCP and the studio page
do with projects goes through a `Studio` — its projects (`library`), its
conversations, composing a new project from a prompt, and requests in words
(`stream`, `preview`: intent → mode → plan → tools → variation, spec studio §5).

    studio = Studio(Path("output"))                     # offline: rules and built-in musicians
    studio = Studio(Path("output"), backend=backend)    # a language model reads what the rules do not

A Studio holds no lock and no open file between calls; several may share an
output folder (each change takes the project's own lock).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.errors import InvalidInput
from bandstand.producer.execution.running import Control
from bandstand.producer.requests.ask import answer
from bandstand.producer.requests.conversations import ConversationStore
from bandstand.producer.requests.job import Job, Outcome, Prepared
from bandstand.producer.requests.stream import prepare, run_stream
from bandstand.producer.sessions.library import Library, project_summary
from bandstand.protocol.jsonvalue import JSONObject

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend

__all__ = ["Studio", "Timeouts"]


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds a request may take, and each call inside it (a generator, a model's turn)."""

    request: float = 300.0
    generator: float = 60.0
    model_turn: float = 60.0
    idle_comment: float = 8.0
    stall: float = 30.0
    """A request whose work says nothing for this long gets a `stallWarning` (it goes on)."""


@dataclass(slots=True)
class Studio:
    """See the module docstring. `backend` is an `agents.AgentBackend` (None: offline)."""

    out_dir: Path
    backend: AgentBackend | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)
    team: Callable[[Job], Awaitable[Outcome]] | None = None
    """The seam for agent teams: an async `team(job) -> Outcome` (`producer.requests.job.Job`,
    `producer.requests.job.Outcome`) that composes a new multi-part song when set — it says its events
    through `job.emit` between the stream's `state` and `complete`, writes into
    `job.studio.out_dir / job.prepared.project_id`, and ends with a variation (see
    `producer.requests.stream.wants_team`). None: the built-in musicians write every part."""
    folders: bool = False
    """Also take session folders elsewhere, named by their path (a client given a folder: the CLI)."""
    library: Library = field(init=False)
    conversations: ConversationStore = field(init=False)
    running: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The requests running now, by trace id (what `GET /api/v1/streams` lists)."""

    def __post_init__(self) -> None:
        self.out_dir = Path(self.out_dir).expanduser()
        self.library = Library(self.out_dir, folders=self.folders)
        self.conversations = ConversationStore(self.out_dir)

    # ------------------------------------------------------------------ requests in words

    def prepare(self, prompt: str, *, project_id: str | None = None, conversation_id: str | None = None) -> Prepared:
        """Read a request: routed, its project and conversation found; refused in one line when it
        cannot run (see `producer.requests.stream.prepare`)."""
        return prepare(self, prompt, project_id=project_id, conversation_id=conversation_id)

    async def stream(self, prepared: Prepared, sink: Callable[[JSONObject], None], *,
                     control: Control | None = None,
                     on_outcome: Callable[[Outcome], None] | None = None) -> dict[str, Any]:
        """Run a prepared request, its events to `sink` (from any thread); returns `complete`.
        `on_outcome` gets what the request did (`producer.requests.job.Outcome`) before `complete`."""
        return await run_stream(self, prepared, sink, control=control, on_outcome=on_outcome)

    def preview(self, prompt: str, *, project_id: str | None = None,
                conversation_id: str | None = None) -> dict[str, Any]:
        """What the request would do — its mode and plan — without doing it."""
        from bandstand.producer.requests.preview import preview

        return preview(self, self.prepare(prompt, project_id=project_id, conversation_id=conversation_id))

    def ask(self, project_id: str, question: str) -> dict[str, Any]:
        """A question about a project answered from its figures, offline (MCP's ask)."""
        reply = answer(self.library.session(project_id).head, question)
        return {"topic": reply.topic, "answer": reply.content, "reasoning": list(reply.reasoning),
                "figures": reply.figures}

    # ------------------------------------------------------------------ importing a MIDI file

    def import_midi(self, data: bytes, *, filename: str = "", name: str = "") -> dict[str, Any]:
        """A new project from an uploaded MIDI file's bytes (`producer.sessions.importing`): its summary
        and what the import found (parts and roles, key, tempo, sections)."""
        from bandstand.producer.sessions.importing import import_midi

        if not data:
            raise InvalidInput("the request body is empty; send the MIDI file's bytes as the body", field="body")
        made = import_midi(data, filename=filename, name=name, projects=self.out_dir)
        return {**project_summary(made.session.session_dir), "import": made.summary()}

    # ------------------------------------------------------------------ composing a new project

    def compose_project(self, prompt: str, *, seed: int | None = None, bars: int | None = None,
                        parts: Sequence[str] | None = None, on_event: Any = None, takes: int | None = None,
                        quality: str | None = None) -> dict[str, Any]:
        """A new project composed from `prompt` (the compose graph, defaults assumed for anything
        ambiguous): its revision 1. Returns the project's summary. `on_event` gets the compose
        graph's progress events (`protocol.compose`) as they happen; `takes` (or the `quality`
        preset) makes that many takes of each part and keeps the best."""
        from bandstand.producer.composing.compose import compose_song

        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidInput('prompt: describe the song, e.g. "funk groove in E minor, 96 bpm"', field="prompt")
        options: dict[str, Any] = {"out_dir": str(self.out_dir), "render_audio": False}
        if seed is not None:
            options["seed"] = seed
        if bars is not None:
            options["bars"] = bars
        if parts:
            options["parts"] = list(parts)
        composed = compose_song(prompt, assume_defaults=True, on_event=on_event, takes=takes, quality=quality,
                                **options)
        result = composed.result
        if result.status not in ("completed", "completed_partial"):
            raise InvalidInput(f"the song could not be composed: {result.status}")
        summary = project_summary(result.session_dir)
        return {**summary, "decisions": list(composed.decisions)}
