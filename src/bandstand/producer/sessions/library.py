"""Projects in an output folder: the use cases the HTTP API, MCP and the studio
page call to list projects, read one at any revision, undo, redo, see its
history and export it, and to read, commit or discard a variation by its id
alone.

A project is a session folder under the library's root; its id is the
folder's name (`session-YYYYMMDD-xxxxxx`), so `bandstand compose --out DIR`
and `bandstand serve --out DIR` see the same projects. Anything a client sends
as an id is checked against that pattern before it touches the disk; an
unknown id is answered with the closest ones. A library that takes `folders`
(the stdio MCP server, run by the person whose files they are) also takes any
session folder by its path, and knows it by its id from then on.

Reading never writes: `reader` (what the API's GETs use) opens a project as
it is on disk — no import of a composed session, no repair — and refuses a
session that is not a project yet (`Conflict`: `open` it first). `session`
is for changes: it imports a composed session as revision 1 and repairs
files a crash left behind HEAD, and it refuses a project folder that is a
symbolic link or holds one (`files.refuse_links`): a write through a link
would land outside the library's folder.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.compose.api import SESSION_RE, inspect
from bandstand.errors import CheckpointError, Conflict, InvalidInput, NotFound, VariationConflict
from bandstand.files import refuse_links
from bandstand.producer.sessions.projects import ProjectSession, open_project
from bandstand.producer.sessions.summaries import (
    arrangement_json,
    history_json,
    tool_outcome_json,
    variation_json,
)
from bandstand.producer.sessions.variation_tracks import added_tracks
from bandstand.protocol.jsonvalue import JSONObject
from bandstand.studio import Project, Variation

__all__ = ["VARIATION_ID", "Library", "project_json", "project_summary", "variation_events"]

VARIATION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{3,99}$")
"""What a variation id (or a unique prefix of one) looks like."""


def project_summary(root: Path) -> JSONObject:
    """A project as the list shows it (`producer.sessions.session_list`: the row `App.sessions` lists),
    from its manifest (cheap: no notes are read)."""
    from bandstand.producer.sessions.session_list import summary_of

    return summary_of(inspect(root)).wire()


def project_json(session: ProjectSession, project: Project, *, notes: bool = True,
                 view: bool = False) -> JSONObject:
    """A project at one revision as clients read it: the project itself (ids, tracks, regions,
    notes unless `notes` is False, mix, buses, sections) and where HEAD is; with `view`, what an
    arrangement view shows beside it (`summaries.arrangement_json`: chord symbols, instruments,
    drum names)."""
    data = project.model_dump(mode="json")
    if not notes:
        for track in data["tracks"]:
            for region in track["regions"]:
                region["noteCount"] = len(region.pop("notes"))
    head = session.revision
    out: JSONObject = {"projectId": session.session_dir.name, "revision": project.revision, "head": head,
           "isHead": project.revision == head, "project": data}
    if view:
        out["view"] = arrangement_json(project)
    return out


def _read(path: Path) -> JSONObject | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _mtime(root: Path) -> float:
    for name in ("revisions/HEAD.json", "manifest.json"):
        try:
            return (root / name).stat().st_mtime
        except OSError:
            continue
    return root.stat().st_mtime


@dataclass(slots=True)
class Library:
    """The projects under `root` (see the module docstring)."""

    root: Path
    generator: Any = None  # the part generator `generate_part` runs (the compose graph by default)
    folders: bool = False  # also take session folders elsewhere, named by their path
    _sessions: dict[Path, ProjectSession] = field(default_factory=dict, repr=False)
    _readers: dict[Path, ProjectSession] = field(default_factory=dict, repr=False)
    _folders: dict[str, Path] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root).expanduser()

    # ------------------------------------------------------------------ projects

    def ids(self) -> list[str]:
        """Every project here, newest change first."""
        if not self.root.is_dir():
            return []
        found = [p for p in self.root.iterdir() if SESSION_RE.match(p.name) and p.is_dir()
                 and ((p / "revisions" / "HEAD.json").is_file() or (p / "manifest.json").is_file())]
        return [p.name for p in sorted(found, key=_mtime, reverse=True)]

    def path(self, project_id: str) -> Path:
        """The folder of a project (see the module docstring)."""
        if isinstance(project_id, str) and (found := self._folder(project_id)) is not None:
            return found
        if not isinstance(project_id, str) or not SESSION_RE.match(project_id):
            raise NotFound(f"no project '{str(project_id)[:80]}': project ids look like session-20260101-abc123"
                           f"{self._hint(project_id)}")
        path = self.root / project_id
        if not path.is_dir():
            raise NotFound(f"no project '{project_id}' in {self.root}{self._hint(project_id)}")
        return path

    def _folder(self, ref: str) -> Path | None:
        """A folder named by its path (or by the id it was known by since), in a library that
        takes `folders`."""
        if not self.folders:
            return None
        known = self._folders.get(ref)
        if known is not None and known.is_dir():
            return known
        if "/" not in ref and os.sep not in ref:
            return None
        folder = Path(ref).expanduser().resolve()
        if not folder.is_dir():
            return None
        self._folders[folder.name] = folder
        return folder

    def _hint(self, given: Any) -> str:
        """'; did you mean …?' with the closest id, else the newest ids (or that there are none)."""
        here = self.ids()
        ids = [*here, *(k for k in self._folders if k not in here)]
        close = difflib.get_close_matches(str(given), ids, n=1, cutoff=0.6) if isinstance(given, str) else []
        if close:
            return f"; did you mean '{close[0]}'?"
        if not ids:
            return "; there are no projects here yet"
        return f"; the newest: {', '.join(ids[:3])}"

    def session(self, project_id: str) -> ProjectSession:
        """The project as a session to change (kept open: reading is cached per revision); a
        composed session is imported, a crash's leftovers repaired, a linked folder refused (see
        the module docstring)."""
        path = self.path(project_id)
        session = self._sessions.get(path)
        if session is None:
            refuse_links(path, "project folder")
            try:
                session = open_project(path, generator=self._generator())
            except InvalidInput as exc:
                raise NotFound(f"{project_id} is not a project yet: {exc}") from exc
            if len(self._sessions) > 32:
                self._sessions.clear()
            self._sessions[path] = session
            self._readers.pop(path, None)
        elif path.is_symlink():  # swapped for a link since it was opened
            self._sessions.pop(path, None)
            refuse_links(path, "project folder")
        return session

    def reader(self, project_id: str) -> ProjectSession:
        """The project as it is on disk, for reading only: nothing is imported, repaired or written.
        A composed session that is not a project yet is a `Conflict` (`open` it first)."""
        path = self.path(project_id)
        session = self._sessions.get(path) or self._readers.get(path)
        if session is None:
            session = ProjectSession(path, generator=self._generator())
            if not session.store.exists():
                raise Conflict(f"{path.name} is a composed song not opened as a project yet; open it first "
                               f"(POST /api/v1/projects/{path.name}/open, as the studio page does)")
            if len(self._readers) > 32:
                self._readers.clear()
            self._readers[path] = session
        return session

    def open(self, project_id: str) -> JSONObject:
        """Open the project for changes: a composed session becomes revision 1 (the first time),
        files a crash left behind are repaired. Answers its id and HEAD."""
        session = self.session(project_id)
        return {"projectId": session.session_dir.name, "revision": session.revision}

    def _generator(self) -> Any:
        if self.generator is None:
            from bandstand.producer.composing.generator import part_generator

            self.generator = part_generator
        return self.generator

    def project(self, project_id: str, revision: int | None = None, *, notes: bool = True,
                view: bool = False) -> JSONObject:
        session = self.reader(project_id)
        head = session.revision
        if revision is None:
            revision = head
        latest = session.store.pointer().latest
        if not 1 <= revision <= latest:
            raise NotFound(f"project {project_id} has no revision {revision}; its revisions are 1–{latest} "
                           f"(HEAD is {head})")
        return project_json(session, session.project(revision), notes=notes, view=view)

    def apply_tools(self, project_id: str, calls: Sequence[dict[str, Any]], *, request: str = "",
                    author: str = "studio page") -> JSONObject:
        """Tool calls on the project at HEAD, all or nothing, as one revision (a person's direct
        edits: the piano roll, the mixer). A refused call changes nothing (`ToolCallError`)."""
        outcome = self.session(project_id).apply_tools(calls, author=author, request=request, mode="direct")
        return {"projectId": project_id, **tool_outcome_json(outcome)}

    def history(self, project_id: str) -> JSONObject:
        session = self.reader(project_id)
        return {"projectId": project_id, "head": session.revision,
                "entries": [history_json(row) for row in session.history()]}

    def undo(self, project_id: str, steps: int = 1) -> JSONObject:
        session = self.session(project_id)
        try:
            head = session.undo(steps)
        except InvalidInput as exc:
            raise Conflict(str(exc)) from exc
        return {"projectId": project_id, "revision": head}

    def redo(self, project_id: str) -> JSONObject:
        session = self.session(project_id)
        try:
            head = session.redo()
        except InvalidInput as exc:
            raise Conflict(str(exc)) from exc
        return {"projectId": project_id, "revision": head}

    def export(self, project_id: str, fmt: str, out_dir: Path) -> Any:
        """Write the project at HEAD as `fmt` into `out_dir` (`producer.sessions.export`)."""
        from bandstand.producer.sessions.export import export_session

        return export_session(self.path(project_id), fmt, out_dir)

    # ------------------------------------------------------------------ variations

    def variations(self, project_id: str) -> JSONObject:
        """The project's variations, oldest first, each in brief (phrases without notes)."""
        session = self.reader(project_id)
        head = session.revision
        return {"projectId": project_id, "head": head,
                "variations": [variation_json(v, head=head) for v in session.variations(write=False)]}

    def find_variation(self, variation_id: str, *, write: bool = True) -> tuple[ProjectSession, str]:
        """The project holding a variation, and the variation's full id (opened for changes unless
        `write` is False)."""
        open_ = self.session if write else self.reader
        if not isinstance(variation_id, str) or not VARIATION_ID.match(variation_id):
            raise NotFound(f"no variation '{str(variation_id)[:80]}'")
        for pid in self.ids():
            folder = self.root / pid / "variations"
            if (folder / f"{variation_id}.json").is_file():
                return open_(pid), variation_id
        for pid in self.ids():  # a unique prefix, as the CLI accepts
            folder = self.root / pid / "variations"
            if folder.is_dir() and any(f.name.startswith(variation_id) and not f.name.endswith(".proposal.json")
                                       for f in folder.iterdir()):
                session = open_(pid)
                try:
                    return session, session.variation_store.resolve(variation_id)
                except VariationConflict as exc:
                    raise NotFound(str(exc)) from exc
        raise NotFound(f"no variation '{variation_id}' in any project here")

    def variation(self, variation_id: str) -> JSONObject:
        """A variation with its phrases so far (a client that reconnects reads it here)."""
        session, vid = self.find_variation(variation_id, write=False)
        variation = session.variation_store.load(vid, proposal=False)
        base = session.project(variation.base_revision)
        try:  # a variation that failed before its proposal was written adds nothing
            proposal = session.variation_store.load(vid).proposal if variation.affected_tracks else None
        except CheckpointError:
            proposal = None
        return {"projectId": session.session_dir.name, **variation_json(variation, head=session.revision),
                "events": variation_events(variation, base.beats_per_bar),
                "addedTracks": added_tracks(base, proposal)}

    def commit(self, variation_id: str, phrase_ids: Sequence[str] | None = None) -> JSONObject:
        session, vid = self.find_variation(variation_id)
        try:
            entry = session.accept(vid, phrase_ids)
        except VariationConflict as exc:
            raise Conflict(str(exc)) from exc
        return {"projectId": session.session_dir.name, "variationId": vid, "revision": entry.revision,
                "summary": entry.summary}

    def discard(self, variation_id: str) -> JSONObject:
        session, vid = self.find_variation(variation_id)
        try:
            variation = session.discard(vid)
        except VariationConflict as exc:
            raise Conflict(str(exc)) from exc
        return {"projectId": session.session_dir.name, "variationId": vid, "state": variation.state}


def variation_events(variation: Variation, beats_per_bar: float) -> list[dict[str, Any]]:
    """The variation as its stream says it — `meta`, each `phrase`, `done` — in the studio
    protocol's words (camelCase), numbered as a variation stream; only a variation that got
    as far as its phrases has them."""
    from bandstand.producer.sessions.wire import variation_stream
    from bandstand.protocol import VARIATION, Emitter

    sent: list[dict[str, Any]] = []
    emitter = Emitter(VARIATION)
    emitter.subscribe(sent.append)
    for event in variation_stream(variation, beats_per_bar):
        emitter.emit(event)
    return sent
