"""`StudioDesk`: the studio's reads and tools as every client reaches them, through `App.desk()` — a project's
history and variations with the JSON every client prints (`summaries`), a studio tool applied by name, the tool
registry and how a mistake in a tool's arguments is explained, an export and where it goes, a MIDI file rendered,
alternatives of a part, and which language model a `--backend` names. What the CLI, MCP and the server each
decided for themselves is decided here once; the modules it calls are imported on use, so a command pays only
for what it runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.protocol.jsonvalue import JSONObject

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from bandstand.producer.app import App
    from bandstand.producer.engines.backends import AgentBackend, AgentsConfig
    from bandstand.producer.execution.running import Control
    from bandstand.producer.requests.alternatives import AlternativeSet
    from bandstand.producer.requests_models import ProjectRef
    from bandstand.producer.sessions.export import Clip, Export
    from bandstand.producer.sessions.projects import HistoryRow, ProjectSession, ToolOutcome
    from bandstand.protocol.jsonvalue import JSONValue
    from bandstand.studio import HistoryEntry, Variation
    from bandstand.studio.tools.registry import Tool, ToolRegistry

__all__ = ["BackendCheck", "FileRender", "History", "StudioDesk", "ToolApplied", "Variations"]


@dataclass(frozen=True, slots=True)
class History:
    """A project's history as every client shows it: its id, HEAD, and the rows oldest first."""

    project: str
    head: int
    rows: tuple[HistoryRow, ...]

    def rows_json(self) -> list[JSONObject]:
        from bandstand.producer.sessions.summaries import history_json

        return [history_json(r) for r in self.rows]

    def to_json(self) -> JSONObject:
        return {"project": self.project, "head": self.head, "history": self.rows_json()}


@dataclass(frozen=True, slots=True)
class Variations:
    """A project's variations as every client shows them: its id, HEAD (a variation made on another
    revision is `stale`), and the variations oldest first."""

    project: str
    head: int
    variations: tuple[Variation, ...]

    def rows_json(self) -> list[JSONObject]:
        from bandstand.producer.sessions.summaries import variation_json

        return [variation_json(v, head=self.head) for v in self.variations]

    def to_json(self) -> JSONObject:
        return {"project": self.project, "head": self.head, "variations": self.rows_json()}

    @staticmethod
    def diff_lines(variation: Variation) -> list[str]:
        """The variation's musical diff in lines, a part a line."""
        from bandstand.producer.sessions.studio_tools import diff_lines

        return diff_lines(variation.diff)


@dataclass(frozen=True, slots=True)
class ToolApplied:
    """A studio tool applied to a project: the project as it is after it, and what the call did."""

    session: ProjectSession
    outcome: ToolOutcome

    def to_json(self) -> JSONObject:
        """What `bandstand tool --json` and MCP's studio tools answer (`summaries.tool_outcome_json`)."""
        from bandstand.producer.sessions.summaries import tool_outcome_json

        return tool_outcome_json(self.outcome)


@dataclass(frozen=True, slots=True)
class BackendCheck:
    """Whether a language-model backend is usable here, why (or what it needs), and — probed — what
    one short turn answered."""

    backend: str
    usable: bool
    detail: str
    probe: str | None = None

    def to_json(self) -> JSONObject:
        row: JSONObject = {"backend": self.backend, "usable": self.usable, "detail": self.detail}
        return row if self.probe is None else {**row, "probe": self.probe}


@dataclass(frozen=True, slots=True)
class FileRender:
    """A MIDI file rendered: its title line, the piano roll and the WAV (None: not asked for) and how long it
    plays."""

    title: str
    pianoroll: Path | None
    wav: Path | None
    seconds: float


def _writable(path: Path, flag: str) -> Path:
    """`path` if a file can be written there, checked before anything is written (`flag` names it)."""
    from bandstand.errors import OutputNotWritable
    from bandstand.files import unwritable

    if path.is_dir():
        raise OutputNotWritable(f"{flag} {path} is a folder; give a file name, e.g. {flag} {path / ('song' + flag.replace('--', '.'))}")
    why = unwritable(path.parent)
    if why:
        raise OutputNotWritable(f"cannot write {flag} {path}: {why}; choose another path")
    return path


@dataclass(frozen=True, slots=True)
class StudioDesk:
    """See the module docstring. A project is a `ProjectRef`, found as `app.project` finds it: a path object is
    the session folder itself (the CLI's SESSION_DIR), a str the app's project by id (or folder)."""

    app: App

    # ------------------------------------------------------------------ reads

    def history(self, project: ProjectRef) -> History:
        session = self.app.project(project)
        return History(session.session_dir.name, session.revision, tuple(session.history()))

    def variations(self, project: ProjectRef) -> Variations:
        session = self.app.project(project)
        head = session.revision
        return Variations(session.session_dir.name, head, tuple(session.variations()))

    @staticmethod
    def audio(session: ProjectSession) -> JSONObject:
        """The project's WAV and whether it shows HEAD (`summaries.audio_json`; a change leaves it stale until rendered)."""
        from bandstand.producer.sessions.summaries import audio_json

        return audio_json(session)

    @classmethod
    def moved(cls, session: ProjectSession, entry: HistoryEntry) -> JSONObject:
        """The revision HEAD moved to (accepted, undone, redone) and the WAV (`summaries.revision_json`)."""
        from bandstand.producer.sessions.summaries import revision_json

        return {**revision_json(entry), "audio": cls.audio(session)}

    # ------------------------------------------------------------------ the studio's tools

    def apply_tool(self, project: ProjectRef, name: str, args: Mapping[str, JSONValue], *, author: str,
                   strict: bool = False) -> ToolApplied:
        """One studio tool called by name on the project (one revision when it changes something, undoable),
        the history's request naming it; `strict`: the arguments' types as JSON has them ("yes" is no boolean)."""
        session = self.app.project(project)
        outcome = session.apply_tools([{"name": name, "args": dict(args)}], author=author, request=f"tool {name}",
                                      strict=strict)
        return ToolApplied(session, outcome)

    @staticmethod
    def tools() -> ToolRegistry:
        """Every studio tool a client may call (`bandstand.studio.tools.TOOLS`), in the registry's order."""
        from bandstand.producer.sessions.studio_tools import TOOLS

        return TOOLS

    @staticmethod
    def signature(tool: Tool) -> str:
        """The tool's call as it is written, e.g. `set_track_volume(track, volume)`."""
        from bandstand.producer.sessions.studio_tools import signature

        return signature(tool)

    @staticmethod
    def explain(name: str, params: type[BaseModel], exc: ValidationError) -> tuple[str, str]:
        """A mistake in the arguments of the tool `name` (its parameter model `params`) in one line, with its call
        as it is written where that helps, and the parameter at fault."""
        from bandstand.producer.sessions.studio_tools import explain_validation, model_signature

        return explain_validation(params, exc, model_signature(name, params))

    @staticmethod
    def unknown_tool(name: str, names: list[str]) -> str:
        """What to say after "unknown tool 'x'": the closest of `names`, or the list of them."""
        from bandstand.producer.sessions.studio_tools import suggest

        return suggest(name, names, "tools")

    # ------------------------------------------------------------------ files out

    @staticmethod
    def export_formats() -> tuple[str, ...]:
        from bandstand.producer.sessions.export import FORMATS

        return tuple(FORMATS)

    def export(self, project: ProjectRef, fmt: str, out: str | os.PathLike[str] | None = None, *,
               control: Control | None = None) -> Export:
        """The project's song at HEAD as `fmt` (`sessions.export`). Where it goes is the one rule of that module:
        the local user, who names the session folder by a path object, names any folder (`out`; None: the
        session's export/) and the folder is read as it is; a project named by id goes to its export/ folder
        or the sub-folder `out` of it (`export_folder`: nothing is written outside the project)."""
        from bandstand.producer.sessions.export import export_folder, export_session

        if isinstance(project, os.PathLike):
            return export_session(Path(project), fmt, out, control=control)
        root = self.app.session(project).session_dir
        return export_session(root, fmt, export_folder(root, None if out is None else str(out)), control=control)

    def export_folder(self, project: ProjectRef, out: str | None = None) -> Path:
        """The project's export/ folder, or its sub-folder `out` (refused, in one line, when it leaves it)."""
        from bandstand.producer.sessions.export import export_folder

        return export_folder(Path(project) if isinstance(project, os.PathLike) else self.app.library.path(project), out)

    @staticmethod
    def midi_clip(path: str | os.PathLike[str], track: int) -> Clip:
        """One track of a MIDI file as Strudel code, a cycle a bar (`sessions.export.midi_clip`)."""
        from bandstand.producer.sessions.export import midi_clip

        return midi_clip(path, track)

    @staticmethod
    def soundfont() -> Path:
        """The SoundFont the renders and the pages' synthesizer play (`SoundFontNotFound`, saying where it was
        looked for and how to get one, when there is none)."""
        from bandstand.producer.engines.rendering import find_soundfont

        return find_soundfont()

    @staticmethod
    def render_file(file: Path, *, wav: Path | None = None, png: Path | None = None, audio: bool = True,
                    pianoroll: bool = True, width: int = 1600, height: int = 900,
                    sample_rate: int = 44100) -> FileRender:
        """A MIDI file (not a project) as a piano roll (with `pianoroll`) and a WAV (with `audio`) — each beside it
        unless `png`/`wav` say where; asking for neither is a mistake. The file is read first (one refused never
        loads the synthesizer, 300 MB for any input), the synthesizer warms while every output is checked
        (`--png`, `--wav`: refused before anything is written), a missing SoundFont is said before the piano roll
        is written, and the roll is drawn while the WAV plays."""
        from bandstand.producer.engines.rendering import (
            find_soundfont,
            read_midi,
            render_pianoroll,
            render_wav,
            title_line,
            warm,
        )

        if not (audio or pianoroll):
            from bandstand.errors import InvalidInput

            raise InvalidInput("--no-audio and --no-png leave nothing to render: drop one of them")
        song = read_midi(file)
        if audio:
            warm()
        png_out = _writable(png or file.with_suffix(".png"), "--png") if pianoroll else None
        wav_out = _writable(wav or file.with_suffix(".wav"), "--wav") if audio else None
        if wav_out is None:
            roll = render_pianoroll(song, png_out, width=width, height=height) if png_out is not None else None
            return FileRender(title_line(song), roll, None, song.duration_seconds)
        find_soundfont()
        if png_out is None:
            return FileRender(title_line(song), None, render_wav(song, wav_out, sample_rate=sample_rate),
                              song.duration_seconds)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bandstand-pianoroll") as pool:
            drawing = pool.submit(render_pianoroll, song, png_out, width=width, height=height)
            played = render_wav(song, wav_out, sample_rate=sample_rate)
            roll = drawing.result()
        return FileRender(title_line(song), roll, played, song.duration_seconds)

    # ------------------------------------------------------------------ other takes

    def alternatives(self, project: ProjectRef, target: str, *, count: int = 3,
                     control: Control | None = None) -> AlternativeSet:
        """`count` alternatives of a part, the progression or the arrangement, each a variation
        (`requests.alternatives`); a session folder is read as it is on disk."""
        from bandstand.producer.requests.alternatives import alternatives

        session = self.app.project(project, regenerate=False)
        return alternatives(session.session_dir, target, count=count, session=session, control=control)

    # ------------------------------------------------------------------ language models

    @staticmethod
    def backend(name: str | None, *, model: str | None = None, base_url: str | None = None) -> AgentBackend | None:
        """The language model a `--backend NAME` (with `--model`, `--base-url`) names for reading requests, built
        from ./bandstand.toml and the environment: None for no name and for "algorithmic" (the rules and the
        built-in musicians read them); claude-code takes no base URL."""
        if not name or name == "algorithmic":
            return None
        from bandstand.producer.engines.backends import load_config, make_backend

        overrides = {f"{name}.model": model, f"{name}.base_url": base_url if name != "claude-code" else None}
        return make_backend(name, load_config(overrides=overrides))

    @staticmethod
    def agents_config(path: str | os.PathLike[str] | None = None, *,
                      runs_dir: str | os.PathLike[str] | None = None) -> AgentsConfig:
        """The agents' configuration: `path` (None: ./bandstand.toml) and the environment, `runs_dir` over both."""
        from bandstand.producer.engines.backends import load_config

        return load_config(path, overrides={"runs_dir": None if runs_dir is None else str(runs_dir)})

    @classmethod
    def check_backends(cls, config: str | os.PathLike[str] | None = None, *, probe: bool = False) -> list[BackendCheck]:
        """Which backends are usable here and what the others need; `probe`: each usable one is also sent one short
        turn, and one whose turn failed is not usable, whatever its settings say. Blocking (off any event loop)."""
        from bandstand.producer.engines.backends import check_backends

        settings = cls.agents_config(config)
        rows = [BackendCheck(s.name, s.usable, s.detail) for s in check_backends(settings)]
        if not probe:
            return rows
        import asyncio

        from bandstand.producer.engines.backends import probe_backends

        said = asyncio.run(probe_backends(settings, [r.backend for r in rows if r.usable]))
        return [replace(r, probe=said[r.backend], usable=not said[r.backend].startswith("failed"))
                if r.backend in said else r for r in rows]
