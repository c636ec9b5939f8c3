"""The band's own MCP tools: compose, edit, the variations, undo/redo, history,
alternatives, export, import, the projects (the jam and `ask` are in `jam_tools`).

Each is one row of `BAND_TOOLS`: a parameter model (its docstring is the
tool's description, its JSON schema the input schema) and a body that calls
the producer exactly as the CLI command of the same job does, answering the
JSON that command's `--json` prints. Values are checked by the producer, so a
mistake is refused with the CLI's message; the model only checks types, strictly
(`check_arguments` first holds the arguments to their limits).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.errors import InvalidInput, RuntimeFailure
from bandstand.mcp.adapter import McpTool, check_arguments, error_text, failure, make_tool, respond
from bandstand.mcp.band import Answer, Band
from bandstand.mcp.studio_tools import PROJECT_PARAMETER
from bandstand.producer import App
from bandstand.producer.app import ComposeRequest, Control, ImportRequest, WordsRequest

__all__ = ["BAND_TOOLS", "BandTool", "band_tools", "tool_schema"]

EXPORT_FORMATS = App().desk().export_formats()  # what `export` takes (`producer.sessions.export.FORMATS`)

Body = Callable[[Band, Any, Control], Answer] | Callable[[Band, Any, Control], Awaitable[Answer]]


@dataclass(frozen=True, slots=True)
class BandTool:
    """A band tool: name, parameter model, body (sync: on a worker thread; async: on the loop)."""

    name: str
    params: type[BaseModel]
    body: Body
    read_only: bool = False
    idempotent: bool = False

    @property
    def description(self) -> str:
        return " ".join((self.params.__doc__ or self.name).split())


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProjectParams(Params):
    project: str = Field(description=PROJECT_PARAMETER["description"])


# --------------------------------------------------------------------------- parameters


class ComposeParams(Params):
    """Compose a finished multi-track song from a prompt: drums, bass, chords, lead, pad … as MIDI, a WAV,
    a piano roll, a lead sheet and producer notes, in a new session folder — a project the other tools take
    by its id. Ambiguities take their defaults (named in `decisions`). Reports progress; cancelling stops
    it (the session is left resumable)."""

    prompt: str = Field(description='What to make, e.g. "Frank Ocean meets Burial, late-night vibes".')
    bars: int | None = Field(None, description="Length in bars (4–512; default: the genre's form).")
    seed: int | None = Field(None, ge=0, description="Seed: the same prompt and seed give the same song.")
    parts: list[str] | None = Field(None, description="Parts to make: drums, bass, chords, lead, pad, arp, "
                                                      "percussion, counter_melody, sub_bass (default: the genre's).")
    tempo: float | None = Field(None, description="Tempo in BPM (overrides the prompt).")
    key: str | None = Field(None, description="Key, e.g. Am, F#, Eb (overrides the prompt).")
    mode: str | None = Field(None, description="Mode: major, minor, dorian, … (overrides the prompt).")
    genre: str | None = Field(None, description="Genre to use first (any genre name or alias).")
    takes: int | None = Field(None, ge=1, le=8, description="Takes of each part, scored by the quality model; "
                                                            "the best is kept, the others' scores are in the manifest.")
    quality: str | None = Field(None, description="A preset of takes instead of `takes`: fast (1), balanced (3) or "
                                                  "best (6).")
    audio: bool = Field(True, description="Render the WAV now (a second or two); false leaves it to export "
                                          "or to reading the WAV resource.")
    team: bool = Field(False, description="Compose with an agent team — one agent per instrument and per section, "
                                          "a mixer — as `bandstand compose --team` does: the song is a variation "
                                          "of an empty project, to accept (or `accept` at once).")
    accept: bool = Field(False, description="With team: accept the team's variation at once.")


class EditParams(ProjectParams):
    """Change the song in words ("make the bass busier", "change the key to F# minor", "double-time drums in
    the bridge", "try something different"): a variation — nothing changes until accept_variation — with
    the parts it redoes and keeps, its cost, a musical diff per part and its phrases (`kind` "variation").
    The mixer's words ("less reverb on the lead", "mute the drums", "turn the lead down") are applied at once
    as one undoable revision (`kind` "revision"); a question is answered (`kind` "answer"). With a language
    model configured it also reads free text. "keep the drums" freezes a part (a revision of its own)."""

    request: str = Field(description='What to change, e.g. "make the bass busier".')


class ListVariationsParams(ProjectParams):
    """The project's variations: state, the revision each was made against, what it changes (a musical
    diff per part) and its phrases."""


class AcceptParams(ProjectParams):
    """Accept a variation — all of it, or only the phrases named — as a new revision (undoable)."""

    variation_id: str | None = Field(None, description="The variation's id or a unique prefix of it "
                                                       "(default: the newest one waiting).")
    phrase_ids: list[str] | None = Field(None, min_length=1, description="Only these phrases (ids or unique "
                                                                          "prefixes; default: all).")


class DiscardParams(ProjectParams):
    """Discard a variation (discarding twice is fine)."""

    variation_id: str | None = Field(None, description="The variation's id or a unique prefix of it "
                                                       "(default: the newest one waiting).")


class UndoParams(ProjectParams):
    """Undo the last change(s): HEAD moves back, nothing is deleted (redo brings it back)."""

    steps: int = Field(1, ge=1, le=10_000, description="How many changes to undo.")


class RedoParams(ProjectParams):
    """Redo the change undone last: HEAD moves forward again (after a new change, along the newest line)."""


class HistoryParams(ProjectParams):
    """Every revision, oldest first: who asked what, what changed, which entries are undone, where HEAD is."""


class AlternativesParams(ProjectParams):
    """Alternatives of a part, the progression or the arrangement (A: a fresh seed, B: the creativity dials
    raised, C: a structural change, D/E: further seeds), each scored and described, each a variation to
    accept or discard. Reports progress; cancelling drops the takes made so far."""

    target: str = Field(description="A part (drums, bass, chords, lead, pad, …), progression or arrangement.")
    count: int = Field(3, description="How many (1–5).")


class ExportParams(ProjectParams):
    """Export the song at HEAD: mid (the full arrangement and one file per part), wav (mixed and mastered),
    stems (one WAV per part and bus), png (the piano roll), musicxml (the lead sheet) or strudel (a Strudel program
    playing the song) → the files written.
    Audio reports progress; cancelling writes nothing."""

    format: str = Field(description=" | ".join(EXPORT_FORMATS), json_schema_extra={"enum": list(EXPORT_FORMATS)})
    out: str | None = Field(None, max_length=200, description="A sub-folder of the project's export/ folder to write "
                            "into, e.g. 'mix-2' (default: export/ itself); no absolute path, '~', '..' or "
                            "project name.")


class ImportMidiParams(Params):
    """Import a MIDI file as a new project to direct like a composed song: its tracks become parts with roles
    guessed (drums, bass, chords, lead), the key and tempo read or detected, sections from markers or repetition
    → the project id, its parts and roles, key, tempo and sections."""

    file: str = Field(description="The .mid file: a path on this machine (relative paths from the projects folder).")
    name: str = Field("", max_length=200, description="The song's title (default: the file's).")


class ListProjectsParams(Params):
    """The projects (composed sessions) this server knows, newest first: id, prompt, genre, key, tempo."""


# --------------------------------------------------------------------------- bodies


def _compose(band: Band, p: ComposeParams, control: Control) -> Answer:
    if p.team:
        return _compose_with_team(band, p, control)
    App.check_team_choices(p.team, {"accept": p.accept})
    parts = tuple(p.parts) if p.parts is not None else None
    request = ComposeRequest(p.prompt, bars=p.bars, seed=p.seed, parts=parts, tempo=p.tempo, key=p.key, mode=p.mode,
                             genre=p.genre, audio=p.audio, takes=p.takes, quality=p.quality)
    composed = App(band.library.root).compose(request, control=control)
    result = composed.result
    state = result.state
    if state.status == "cancelled":
        control.check("composing")
    if state.status not in ("completed", "completed_partial"):
        why = f"{state.error.message} ({state.error.recovery_hint})" if state.error else state.status
        raise RuntimeFailure(f"compose {state.status}: {why}; the session {result.session_dir} can be continued "
                             f"with 'bandstand resume {result.session_dir}'")
    summary = result.summary()
    root = result.session_dir
    data = {"project": root.name, **summary, "decisions": composed.decisions,
            "file_paths": [str(root / rel) for rel in summary["files"]]}
    return Answer(data, band.links(root))


def _compose_with_team(band: Band, p: ComposeParams, control: Control) -> Answer:
    """`bandstand compose --team` over MCP (`App.team`): the team runs on this worker thread's own loop; each
    agent that finishes is reported as progress; a cancel stops every agent and nothing is proposed."""
    from bandstand.producer.app import TeamRequest

    steps, done = [0], [0]

    def heard(event: dict[str, Any]) -> None:
        if event["type"] == "plan":
            steps[0] = len(event["steps"])
        elif event["type"] == "agentComplete":
            done[0] += 1
            mark = "✓" if event["success"] else "✗"
            control.report(done[0], max(steps[0], done[0]), f"{mark} {event.get('agentId')}: {event.get('summary', '')}")

    request = TeamRequest(p.prompt, seed=p.seed, bars=p.bars, parts=None if p.parts is None else tuple(p.parts),
                          tempo=p.tempo, key=p.key, mode=p.mode, genre=p.genre, accept=p.accept, audio=p.audio)
    run = App(band.library.root).team(request, on_event=heard, control=control)
    outcome = run.outcome
    data = {"project": outcome.session_dir.name, "team": True, **outcome.to_json(), "log": str(run.log)}
    return Answer(data, band.links(outcome.session_dir) if outcome.accepted else ())


def _edit(band: Band, p: EditParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    directed = App(band.library.root, backend=band.backend, folders=True).direct(
        WordsRequest(str(session.session_dir), p.request))
    links = band.links(session.session_dir) if directed.kind == "revision" else ()
    return Answer({"project": session.session_dir.name, **directed.to_json()}, links)


def _list_variations(band: Band, p: ListVariationsParams, control: Control) -> Answer:
    return Answer(App.over(band.library).desk().variations(p.project).to_json())


def _moved(band: Band, session: Any, entry: Any) -> Answer:
    return Answer({"project": session.session_dir.name, **App().desk().moved(session, entry)},
                  band.links(session.session_dir))


def _accept(band: Band, p: AcceptParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    return _moved(band, session, session.accept(p.variation_id, p.phrase_ids))


def _discard(band: Band, p: DiscardParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    variation = session.discard(p.variation_id)
    return Answer({"project": session.session_dir.name, "variation_id": variation.id,
                   "state": variation.state})


def _undo(band: Band, p: UndoParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    return _moved(band, session, session.store.entry(session.undo(p.steps)))


def _redo(band: Band, p: RedoParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    return _moved(band, session, session.store.entry(session.redo()))


def _history(band: Band, p: HistoryParams, control: Control) -> Answer:
    return Answer(App.over(band.library).desk().history(p.project).to_json())


def _alternatives(band: Band, p: AlternativesParams, control: Control) -> Answer:
    session = band.library.session(p.project)  # the library keeps it open: the desk finds this one
    made = App.over(band.library).desk().alternatives(p.project, p.target, count=p.count, control=control)
    return Answer({"project": session.session_dir.name, **made.to_json()})


def _export(band: Band, p: ExportParams, control: Control) -> Answer:
    session = band.library.session(p.project)  # the library keeps it open: the desk finds this one
    done = App.over(band.library).desk().export(p.project, p.format, p.out, control=control)
    return Answer({"project": session.session_dir.name, **done.to_json()},
                  band.links_to(session.session_dir, done.files))


def _import_midi(band: Band, p: ImportMidiParams, control: Control) -> Answer:
    root = band.library.root.expanduser().resolve()
    path = (root / Path(p.file).expanduser()).resolve()
    if not band.library.folders and not path.is_relative_to(root):  # over HTTP: only under the projects
        raise InvalidInput(f"file {p.file} is outside {root}; this server reads only under it", field="file")
    made = App(root).import_midi(ImportRequest(path, name=p.name))
    return Answer({**made.summary(), "project": made.session.session_dir.name}, band.links(made.session.session_dir))


def _list_projects(band: Band, p: ListProjectsParams, control: Control) -> Answer:
    return Answer({"root": str(band.library.root), "projects": [s.wire() for s in App(band.library.root).sessions()]})


BAND_TOOLS: tuple[BandTool, ...] = (
    BandTool("compose", ComposeParams, _compose),
    BandTool("edit", EditParams, _edit),
    BandTool("list_variations", ListVariationsParams, _list_variations, read_only=True),
    BandTool("accept_variation", AcceptParams, _accept),
    BandTool("discard_variation", DiscardParams, _discard, idempotent=True),
    BandTool("undo", UndoParams, _undo),
    BandTool("redo", RedoParams, _redo),
    BandTool("history", HistoryParams, _history, read_only=True),
    BandTool("alternatives", AlternativesParams, _alternatives),
    BandTool("export", ExportParams, _export, idempotent=True),
    BandTool("import_midi", ImportMidiParams, _import_midi),
    BandTool("list_projects", ListProjectsParams, _list_projects, read_only=True),
)


# --------------------------------------------------------------------------- as MCP tools


def tool_schema(params: type[BaseModel]) -> dict[str, Any]:
    schema = params.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    return schema


def _call(band: Band, tool: BandTool) -> Any:
    async def call(arguments: dict[str, Any], ctx: Context) -> CallToolResult:
        try:
            check_arguments(arguments)
        except InvalidInput as exc:
            return failure(error_text(exc))
        try:  # strict, as JSON: "yes" is not a boolean, "5" not a number
            params = tool.params.model_validate_json(pydantic_core.to_json(arguments), strict=True)
        except ValidationError as exc:
            message, field = App().desk().explain(tool.name, tool.params, exc)
            return failure(error_text(InvalidInput(message, field=field)))
        body: Any = tool.body

        async def run_async(control: Control) -> Answer:
            answer: Answer = await body(band, params, control)
            return answer

        def run_sync(control: Control) -> Answer:
            answer: Answer = body(band, params, control)
            return answer

        return await respond(tool.name, ctx, run_async if _is_async(body) else run_sync)
    return call


def _is_async(fn: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(fn)


def band_tools(band: Band, tools: tuple[BandTool, ...] = BAND_TOOLS) -> list[McpTool]:
    return [make_tool(t.name, t.description, tool_schema(t.params), _call(band, t), read_only=t.read_only,
                      idempotent=t.idempotent) for t in tools]
