"""Projects: a session folder opened as a studio project, and the use cases
that change it — tool calls, variations (propose, accept, discard,
audition), undo and redo, history. Every client (CLI, HTTP, MCP, the studio
page) calls these functions; none of them decides anything of its own.

Each change takes the session's lock, checks against HEAD, writes the new
revision, moves HEAD, and rewrites the top-level files (all but the WAV,
which `ensure_audio` renders on demand) before letting go. A session whose
files are behind HEAD (a crash mid-rewrite) is repaired when it is opened.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from bandstand.errors import InvalidInput, RenderError, VariationConflict
from bandstand.files import TMP_SUFFIX, write_json
from bandstand.producer.execution.collector import pausing
from bandstand.producer.sessions import head_files

if TYPE_CHECKING:  # the tool registry (every tool's parameter model) loads when a tool is called
    from bandstand.compose.api import Recipe
    from bandstand.producer.sessions.audition import Audition
    from bandstand.studio.tools import Strikes, ToolCall, ToolContext, ToolResult
from bandstand.compose.api import SONG_JSON, read_session_song
from bandstand.errors import BandstandError
from bandstand.score import Song
from bandstand.studio import (
    HistoryEntry,
    IdIssuer,
    Project,
    Provenance,
    RandomIds,
    RevisionStore,
    SeededIds,
    Variation,
    VariationStore,
    commit_project,
    describe_changes,
    from_song,
    new_variation,
    project_changes,
    transition,
)
from bandstand.studio.store import Step, read_json

__all__ = ["HistoryRow", "ProjectSession", "ToolOutcome", "VariationEvent", "create_from_project", "create_from_song",
           "open_project"]

VariationEvent = Callable[[str, dict[str, Any]], None]  # ("meta" | "phrase" | "done", payload)
EXPIRE_AFTER = dt.timedelta(minutes=10)  # a variation still generating after this long is expired


def _nothing(step: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What `apply_tools` did: each call's result, the HEAD revision after it, and the history
    entry it made (None when the calls only read)."""

    results: list[ToolResult]
    revision: int
    entry: HistoryEntry | None


class HistoryRow(BaseModel):
    """One history entry as `history()` lists it."""

    model_config = ConfigDict(frozen=True)

    entry: HistoryEntry
    undone: bool
    head: bool


@dataclass(slots=True)
class ProjectSession:
    """One session folder as a project. Cheap to make; holds no lock between calls, so
    several processes may open the same session (each change re-reads HEAD under the lock)."""

    session_dir: Path
    ids: IdIssuer = field(default_factory=RandomIds)
    generator: Any = None  # a `studio.tools.PartGenerator` for generate_part (the compose use case supplies it)
    store: RevisionStore = field(init=False)
    variation_store: VariationStore = field(init=False)
    _cache: dict[int, Project] = field(default_factory=dict, init=False, repr=False)
    _proposals: dict[str, Project] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.store = RevisionStore(self.session_dir)
        self.variation_store = VariationStore(self.session_dir)

    # ------------------------------------------------------------------ reading

    @property
    def revision(self) -> int:
        """The HEAD revision number (read from disk: another process may have moved it)."""
        return self.store.pointer().head

    @property
    def head(self) -> Project:
        """The project at HEAD."""
        return self.project(self.revision)

    @pausing
    def project(self, revision: int) -> Project:
        """The project at any committed revision."""
        if revision not in self._cache:
            if len(self._cache) > 8:
                self._cache.clear()
            self._cache[revision] = self.store.project(revision)
        return self._cache[revision]

    def history(self) -> list[HistoryRow]:
        """Every entry, oldest first, marked undone when it is not on the chain of any branch's head."""
        pointer = self.store.pointer()
        entries = self.store.entries(pointer.latest)
        chain = {n for b in pointer.heads().values() for n in self.store.chain(entries, b.head)}
        return [HistoryRow(entry=e, undone=e.revision not in chain, head=e.revision == pointer.head)
                for e in entries]

    def variations(self, *, write: bool = True) -> list[Variation]:
        """Every variation, oldest first (ones stuck generating for too long are expired: on disk,
        or with `write` False only in what is returned)."""
        out = []
        for v in self.variation_store.all():
            if v.state in ("created", "streaming") and dt.datetime.now(dt.UTC) - v.updated_at > EXPIRE_AFTER:
                if not write:
                    out.append(transition(v, "expired", error="generation did not finish"))
                    continue
                with self.store.lock():
                    v = self.variation_store.load(v.id, proposal=False)
                    if v.state in ("created", "streaming"):
                        v = transition(v, "expired", error="generation did not finish")
                        self.variation_store.save(v, proposal=False)
            out.append(v)
        return out

    def variation(self, variation_id: str | None = None) -> Variation:
        """A variation by id (or unique prefix); None means the newest one waiting to be accepted."""
        if variation_id is None:
            variation_id = self.variation_store.newest("ready")
            if variation_id is None:
                raise VariationConflict(f"no variation is waiting in {self.session_dir}; propose one first "
                                        "(bandstand edit SESSION \"make the bass busier\")")
        vid = self.variation_store.resolve(variation_id)
        cached = self._proposals.get(vid)  # proposals never change once written
        variation = self.variation_store.load(vid, proposal=cached is None)
        if cached is not None:
            variation.proposal = cached
        return variation

    # ------------------------------------------------------------------ variations

    @pausing
    def propose(self, proposal: Project, *, request: str = "", intent: str = "", explanation: str = "",
                author: str = "", recipe: dict[str, Any] | None = None, details: dict[str, Any] | None = None,
                base_revision: int | None = None, on_event: VariationEvent | None = None) -> Variation:
        """A variation from HEAD (or `base_revision`) to `proposal`: meta, phrases, done — each
        reported to `on_event` as it is made. Nothing in the song changes until it is accepted."""
        emit = on_event or (lambda kind, payload: None)
        base = self.project(self.revision if base_revision is None else base_revision)
        variation = new_variation(base, proposal, ids=self.ids, intent=intent, explanation=explanation,
                                  request=request, author=author, recipe=recipe, details=details,
                                  describe=describe_changes)
        phrases = variation.phrases
        emit("meta", variation.meta())
        variation = transition(variation, "streaming")
        for phrase in phrases:
            emit("phrase", phrase.model_dump(mode="json"))
        variation = transition(variation, "ready")
        with self.store.lock():
            self.variation_store.save(variation)
        if variation.proposal is not None:
            if len(self._proposals) > 8:
                self._proposals.clear()
            self._proposals[variation.id] = variation.proposal
        emit("done", {"variation_id": variation.id, "state": variation.state})
        return variation

    @pausing
    def accept(self, variation_id: str | None = None, phrase_ids: Sequence[str] | None = None, *,
               step: Step = _nothing) -> HistoryEntry:
        """Commit a ready variation (all of it, or the phrases named) as a new revision (a key
        change accepted in some phrases: see `producer.requests.key_accept`)."""
        from bandstand.producer.requests.key_accept import (  # the compose recipe, only when accepting
            accepted_bars,
            key_accept,
            with_tempo_map,
        )
        from bandstand.producer.requests.metre_plan import metre_accept

        with self.store.lock():
            variation = self.variation(variation_id)
            head = self.revision
            if variation.state == "ready" and variation.base_revision != head:
                raise VariationConflict(
                    f"variation {variation.id} was made against revision {variation.base_revision}, but the "
                    f"project is now at revision {head}; propose it again (or undo to revision "
                    f"{variation.base_revision} first)", variation_id=variation.id,
                    base_revision=variation.base_revision, head_revision=head)
            transition(variation, "committed")  # refuses every state but ready, with the reason
            base = self.project(head)
            # a key change accepted in some phrases takes whole bars and moves the key map there only
            keyed = key_accept(base, variation, phrase_ids)
            # a metre change accepted in some phrases: whole bars, each laid where the new map puts it
            remetred = metre_accept(base, variation, keyed.phrase_ids if keyed else phrase_ids)
            result = remetred or commit_project(base, variation, keyed.phrase_ids if keyed else phrase_ids)
            if keyed is not None:
                result = keyed.apply(result)
            if phrase_ids is not None and remetred is None:  # the tempo map moves in the accepted bars only
                result = with_tempo_map(result, base, keyed.bars if keyed else accepted_bars(variation, phrase_ids))
            chosen = len(variation.phrases) if phrase_ids is None else len(set(phrase_ids))
            summary = (f"accepted {chosen} of {len(variation.phrases)} phrases" if phrase_ids is not None
                       else f"accepted {variation.intent or 'the variation'}")

            def after(entry: HistoryEntry) -> None:
                self.variation_store.save(transition(variation, "committed", result_revision=entry.revision),
                                          proposal=False)
                step("variation")

            return self._commit(base, result, author=variation.author or "unknown", request=variation.request,
                                kind="variation", variation_id=variation.id, summary=summary, step=step,
                                after=after)

    def _commit(self, base: Project, result: Project, *, author: str, request: str, kind: str, summary: str,
                step: Step, variation_id: str | None = None, tools: list[dict[str, Any]] | None = None,
                after: Callable[[HistoryEntry], None] | None = None, merged: int | None = None) -> HistoryEntry:
        """Under the lock: write the revision, move HEAD, then the top-level files (prepared
        first, so the piano roll draws while the revision is written)."""
        revision = self.store.pointer().latest + 1
        stamped = result.model_copy(update={"revision": revision})
        prepared = head_files.HeadFiles(self.session_dir, stamped)
        try:
            entry, committed = self.store.commit(stamped, parent=base.revision, author=author, request=request,
                                                 kind=kind, variation_id=variation_id, tools=tools,
                                                 changes=project_changes(base, stamped), summary=summary,
                                                 step=step, merged=merged)
            self._cache[entry.revision] = committed
            if after is not None:
                after(entry)
            prepared.install()
        except BaseException:
            prepared.discard()
            raise
        step("files")
        return entry

    def discard(self, variation_id: str | None = None) -> Variation:
        """Discard a variation (discarding twice is fine; a committed one cannot be)."""
        with self.store.lock():
            variation = self.variation(variation_id)
            discarded = transition(variation, "discarded")
            if discarded is not variation:
                self.variation_store.save(discarded, proposal=False)
            return discarded

    def fail(self, variation_id: str, error: str) -> Variation:
        """Mark a variation that could not be made as failed."""
        with self.store.lock():
            failed = transition(self.variation_store.load(variation_id, proposal=False), "failed", error=error)
            self.variation_store.save(failed, proposal=False)
            return failed

    # ------------------------------------------------------------------ tools

    def _context(self) -> ToolContext:
        from bandstand.producer.sessions.tool_context import tool_context

        return tool_context(self.ids, self.generator)

    @pausing
    def apply_tools(self, calls: Sequence[ToolCall | dict[str, Any]], *, author: str, request: str = "",
                    mode: str = "direct", strikes: Strikes | None = None, step: Step = _nothing,
                    strict: bool = False) -> ToolOutcome:
        """Run a batch of tool calls on HEAD, all or nothing, as one revision (none when they only
        read). A refused call raises `ToolCallError` and nothing changes. `strict`: see `run_batch`."""
        from bandstand.studio.tools import run_batch

        with self.store.lock():
            base = self.project(self.revision)
            outcome = run_batch(base, calls, ctx=self._context(), mode=mode, strikes=strikes, strict=strict)
            if not outcome.changed or outcome.project == base:
                return ToolOutcome(outcome.results, base.revision, None)
            names = list(dict.fromkeys(c.name for c in outcome.calls))
            entry = self._commit(base, outcome.project, author=author, request=request or ", ".join(names),
                                 kind="tools", summary=", ".join(names), step=step,
                                 tools=[c.model_dump(mode="json") for c in outcome.calls])
            return ToolOutcome(outcome.results, entry.revision, entry)

    def propose_tools(self, calls: Sequence[ToolCall | dict[str, Any]], *, author: str, request: str = "",
                      intent: str = "", explanation: str = "", mode: str = "composing",
                      strikes: Strikes | None = None,
                      on_event: VariationEvent | None = None) -> tuple[Variation, list[ToolResult]]:
        """Run a batch of tool calls on a copy of HEAD and offer the result as a variation (how
        AI-made music arrives: nothing changes until it is accepted)."""
        from bandstand.studio.tools import run_batch

        base = self.head
        outcome = run_batch(base, calls, ctx=self._context(), mode=mode, strikes=strikes)
        variation = self.propose(outcome.project, request=request, intent=intent, explanation=explanation,
                                 author=author, base_revision=base.revision, on_event=on_event,
                                 details={"tools": [c.model_dump(mode="json") for c in outcome.calls]})
        return variation, outcome.results

    # ------------------------------------------------------------------ direct changes

    @pausing
    def commit(self, project: Project, *, author: str, request: str, kind: str = "tools",
               tools: list[dict[str, Any]] | None = None, summary: str = "", step: Step = _nothing) -> HistoryEntry:
        """Make `project` the new HEAD directly (structural edits; AI-made music goes through
        `propose`). `project.revision` says which revision it was made from: when HEAD has moved
        since, it is refused (`VariationConflict`) — use `edit` to change HEAD under the lock."""
        with self.store.lock():
            head = self.revision
            if project.revision != head:
                raise VariationConflict(f"this change was made against revision {project.revision}, but the "
                                        f"project is now at revision {head}; make it again from HEAD")
            return self._commit(self.project(head), project, author=author, request=request, kind=kind,
                                summary=summary, step=step, tools=tools)

    @pausing
    def edit(self, change: Callable[[Project], Project], *, author: str, request: str, kind: str = "tools",
             tools: list[dict[str, Any]] | None = None, summary: str = "",
             step: Step = _nothing) -> HistoryEntry | None:
        """Apply `change` to HEAD under the lock and commit what it returns (None when it
        returns HEAD unchanged: no revision)."""
        with self.store.lock():
            base = self.project(self.revision)
            result = change(base)
            if result == base:
                return None
            return self._commit(base, result, author=author, request=request, kind=kind, summary=summary,
                                step=step, tools=tools)

    @pausing
    def undo(self, steps: int = 1, *, step: Step = _nothing) -> int:
        """Move HEAD `steps` entries back along its chain; returns the new HEAD revision."""
        if steps < 1:
            raise InvalidInput(f"undo --steps {steps}: give a number of steps of at least 1")
        with self.store.lock():
            pointer = self.store.pointer()
            chain = self.store.chain(self.store.entries(pointer.latest), pointer.head)
            if len(chain) == 1:
                raise InvalidInput(f"nothing to undo: revision {pointer.head} is the first take")
            if steps >= len(chain):
                raise InvalidInput(f"cannot undo {steps} steps: only {len(chain) - 1} can be undone from "
                                   f"revision {pointer.head} (revision {chain[-1]} is the first take)")
            return self._move(chain[steps], step)

    @pausing
    def redo(self, *, step: Step = _nothing) -> int:
        """Move HEAD to the change undone last; returns the new HEAD revision."""
        with self.store.lock():
            pointer = self.store.pointer()
            target = self.store.redo_target(self.store.entries(pointer.latest), pointer.head,
                                            pointer.heads()[pointer.branch].tip if pointer.branches else None)
            if target is None:
                raise InvalidInput(f"nothing to redo: revision {pointer.head} is the newest change on this line")
            return self._move(target, step)

    def _move(self, target: int, step: Step) -> int:
        self.store.move_head(target, step)
        head_files.write_head_files(self.session_dir, self.project(target))
        step("files")
        return target

    # ------------------------------------------------------------------ audio

    def ensure_audio(self, progress: Callable[[str], None] | None = None) -> Path:
        """The session's WAV (and stems) for HEAD, rendered now when stale — playing only the
        tracks the session's render cache does not hold. The render runs outside the lock, into a
        staging folder; only moving it into place takes the lock. `progress` is told what the
        render does now ("played 1 of 1 parts (Bass)", "mastering")."""
        root = self.session_dir
        for _ in range(3):  # HEAD may move while we render: render again for the new HEAD
            project = self.head
            if head_files.audio_revision(root) == project.revision:
                return root / head_files.WAV
            staging = root / "audio" / f".render-{os.getpid()}-{project.revision}{TMP_SUFFIX}"
            try:
                problems = head_files.render_audio(root, project, staging, progress)
                if problems:
                    raise RenderError(problems[0])
                with self.store.lock():
                    head = self.revision
                    if head_files.audio_revision(root) != head:  # never replace a WAV that shows HEAD
                        head_files.install_audio(root, project, staging)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        return root / head_files.WAV

    def audition(self, variation_id: str | None = None, *, whole_song: bool = False,
                 progress: Callable[[str], None] | None = None) -> Audition:
        """Base and proposal of a variation as WAVs and piano rolls (the bars it changes, or the
        whole song) in `auditions/<variation id>/`, telling `progress` what it renders — see
        `producer.sessions.audition`."""
        from bandstand.producer.sessions.audition import audition

        return audition(self, variation_id, whole_song=whole_song, progress=progress)

    def repair(self) -> bool:
        """Bring the top-level files (and the variation HEAD came from) up to HEAD after a crash.
        Returns whether anything had to be done."""
        with self.store.lock():
            pointer = self.store.pointer()
            entry = self.store.entry(pointer.head)
            fixed = False
            if entry.variation_id:
                try:
                    variation = self.variation_store.load(entry.variation_id, proposal=False)
                except VariationConflict:
                    variation = None
                if variation is not None and variation.state == "ready":
                    self.variation_store.save(transition(variation, "committed", result_revision=entry.revision),
                                              proposal=False)
                    fixed = True
            if head_files.files_revision(self.session_dir) != pointer.head:
                head_files.write_head_files(self.session_dir, self.project(pointer.head))
                fixed = True
            for leftover in head_files.staged_leftovers(self.session_dir):
                if leftover.is_dir():
                    shutil.rmtree(leftover, ignore_errors=True)
                else:
                    leftover.unlink(missing_ok=True)
                fixed = True
            return fixed


# --------------------------------------------------------------------------- opening and creating


def _session_dir(path: str | os.PathLike[str]) -> Path:
    root = Path(path).expanduser()
    if not root.is_dir():
        what = "is a file, not a session folder" if root.exists() else "does not exist"
        raise InvalidInput(f"{root} {what}; give a session folder such as output/session-20260101-abc123")
    return root


def _ids_for(provenance: Provenance) -> IdIssuer:
    if not provenance.seeds:
        return RandomIds()
    key = json.dumps([provenance.prompt, sorted(provenance.seeds.items())])
    return SeededIds(int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big"))


def _import(session: ProjectSession) -> None:
    """A session composed before it could be a project becomes revision 1: the mixed song compose
    kept (`state/song.json`, with every insert, send and bus; its WAV was rendered from it, so the
    WAV is current), else the full arrangement's MIDI (the WAV is then marked stale). From then
    on the revisions are the song's one truth and `state/song.json` goes."""
    from bandstand.midi import read_midi

    root = session.session_dir
    song, source = read_session_song(root), SONG_JSON
    if song is None:
        source = head_files.FULL_MIDI
        if not (root / source).is_file():
            raise InvalidInput(f"{root} is not a session: it has neither revisions/ nor {head_files.FULL_MIDI}")
        song = read_midi(root / source)
    manifest = read_json(root / head_files.MANIFEST) or {}
    recipe = _checkpoint_recipe(root, song)
    provenance = Provenance(prompt=str(manifest.get("prompt", "")),
                            seeds={"song": manifest["seed"]} if isinstance(manifest.get("seed"), int) else {},
                            generator=recipe.generator if recipe is not None else "import",
                            recipe=recipe.model_dump(mode="json") if recipe is not None else {})
    with session.store.lock():
        if session.store.exists():
            return
        project = from_song(song, ids=_ids_for(provenance), provenance=provenance)
        entry, first = session.store.commit(project, parent=None, author="import",
                                            request=f"imported from {source}", kind="import",
                                            changes=project_changes(None, project), summary="first take")
        if source == SONG_JSON and (root / head_files.WAV).is_file():
            write_json(root / head_files.AUDIO_STAMP, {"file": head_files.WAV, "revision": entry.revision})
        _retire_song_json(root)  # revision 1 holds it now (before the manifest, which then does not list it)
        head_files.write_head_files(root, first)


def _checkpoint_recipe(root: Path, song: Song) -> Recipe | None:
    """The recipe of a session compose finished before it made projects, rebuilt from its
    pipeline checkpoint (the plans and every part's record), so `bandstand edit` can run its
    nodes again; None when there is no finished checkpoint or it cannot be read."""
    from pydantic import ValidationError

    from bandstand.compose.api import Pipeline

    if not (root / head_files.PIPELINE_STATE).is_file():
        return None
    try:
        pipeline = Pipeline.load(root)
        if pipeline.state.status not in ("completed", "completed_partial"):
            return None
        pipeline.restore()
        return pipeline.recipe({t.role: t.name for t in song.tracks})
    except (BandstandError, ValidationError, KeyError, TypeError, ValueError):
        return None


def _retire_song_json(root: Path) -> None:
    """A project's revisions are its one truth: the mixed song compose kept for a session that was
    not one (`state/song.json`) is now revision 1, and would only fall behind HEAD; it goes."""
    (root / SONG_JSON).unlink(missing_ok=True)


def open_project(session_dir: str | os.PathLike[str], *, ids: IdIssuer | None = None,
                 generator: Any = None) -> ProjectSession:
    """The session folder as a project (a composed session without revisions is imported:
    its full arrangement becomes revision 1). Repairs files left behind HEAD by a crash."""
    session = ProjectSession(_session_dir(session_dir), ids=ids or RandomIds(), generator=generator)
    if not session.store.exists():
        _import(session)
    elif head_files.files_revision(session.session_dir) != session.revision or \
            head_files.staged_leftovers(session.session_dir):
        session.repair()
    return session


def create_from_project(session_dir: str | os.PathLike[str], project: Project, *, author: str, request: str = "",
                        ids: IdIssuer | None = None, kind: str = "compose") -> ProjectSession:
    """Revision 1 of a new project that is already laid out as `project` (an agent team's setup:
    tracks and sections, no music yet), and the top-level files to match."""
    root = Path(session_dir).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    session = ProjectSession(root, ids=ids or _ids_for(project.provenance))
    with session.store.lock():
        if session.store.exists():
            raise InvalidInput(f"{root} is already a project (revision {session.revision}); choose a new folder")
        _, first = session.store.commit(project, parent=None, author=author,
                                        request=request or project.provenance.prompt, kind=kind,
                                        changes=project_changes(None, project), summary="set up")
        head_files.write_head_files(root, first)
    return session


def create_from_song(session_dir: str | os.PathLike[str], song: Song, provenance: Provenance, *,
                     author: str = "compose", request: str = "", ids: IdIssuer | None = None,
                     overwrite: bool = False, pianoroll_source: str | None = None,
                     lead_sheet_source: str | None = None) -> ProjectSession:
    """Revision 1 of a new project holding `song` (what compose made), and the top-level files
    to match (`state/song.json`, which compose writes for a session that is not a project, goes:
    the revisions are the one truth). A WAV already in the folder is taken to be this song's
    render; so is the piano roll when `pianoroll_source` says what it was drawn from
    (`head_files.pianoroll_source` of the song compose drew), and the lead sheet when
    `lead_sheet_source` says what it was made from. Ids are seeded from the
    provenance's seeds when it has some, so the same song gives the same files."""
    root = Path(session_dir).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    session = ProjectSession(root, ids=ids or RandomIds())
    if session.store.exists():
        if not overwrite:
            raise InvalidInput(f"{root} is already a project (revision {session.revision}); change it with tools or "
                               "variations, or pass overwrite=True to start its history again")
        shutil.rmtree(session.store.dir)
        shutil.rmtree(session.variation_store.dir, ignore_errors=True)
    project = from_song(song, ids=ids or _ids_for(provenance), provenance=provenance)
    with session.store.lock():
        entry, first = session.store.commit(project, parent=None, author=author,
                                            request=request or provenance.prompt, kind="compose",
                                            changes=project_changes(None, project), summary="first take")
        if (root / head_files.WAV).is_file():
            write_json(root / head_files.AUDIO_STAMP, {"file": head_files.WAV, "revision": entry.revision})
        _retire_song_json(root)  # revision 1 holds it now (before the manifest, which then does not list it)
        head_files.write_head_files(root, first, drawn=pianoroll_source, lead_written=lead_sheet_source)
    return session
