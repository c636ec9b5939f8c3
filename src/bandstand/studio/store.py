"""Revisions and history in the session folder.

    revisions/
      HEAD.json                 {"head": 5, "latest": 6} — the only file that changes
      000001.json               revision 1's history entry (parent, request, author, changes)
      000001.project.json       revision 1's project, whole
      …
      .lock                     held (flock) while a process changes the session
    variations/
      <id>.json                 one proposal, rewritten (atomically) as its state moves

A revision is immutable: its project and its entry are written (each to a
temporary name, fsynced, renamed) before HEAD.json moves, so a process killed
at any point leaves the previous HEAD intact and readable. Files of a
revision numbered above `latest` were never committed (a crash between the
writes) and are overwritten by the next commit. Undo and redo only move
`head`; an entry is *undone* when it is not on HEAD's chain of parents —
derived, never stored, never deleted. Redo goes to HEAD's newest child.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.errors import CheckpointError, InvalidInput, SessionBusy, VariationConflict
from bandstand.files import write_bytes, write_json
from bandstand.studio.changes import Change
from bandstand.studio.model import Project
from bandstand.studio.variations import Variation

__all__ = ["FORMAT", "HeadPointer", "HistoryEntry", "RevisionStore", "Step", "VariationStore", "read_json"]

FORMAT = 1
Step = Callable[[str], None]  # called after each durable step: "snapshot", "entry", "head"


class HeadPointer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT
    head: int = Field(ge=1)
    latest: int = Field(ge=1)


class HistoryEntry(BaseModel):
    """Why a revision exists: who or what made it, what was asked, what changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    revision: int = Field(ge=1)
    parent: int | None
    at: dt.datetime
    author: str
    request: str = ""
    kind: str = Field(description="compose, import, tools or variation")
    variation_id: str | None = None
    tools: list[dict[str, Any]] = []
    summary: str = ""
    changes: list[Change] = []


def _nothing(step: str) -> None:
    return None


class RevisionStore:
    """The `revisions/` folder of one session."""

    def __init__(self, session_dir: str | os.PathLike[str]) -> None:
        self.session_dir = Path(session_dir)
        self.dir = self.session_dir / "revisions"

    # ------------------------------------------------------------------ reading

    def exists(self) -> bool:
        return (self.dir / "HEAD.json").is_file()

    def pointer(self) -> HeadPointer:
        path = self.dir / "HEAD.json"
        try:
            return HeadPointer.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise InvalidInput(f"{self.session_dir} has no revisions yet (no {path.name}); compose into it "
                               "first or open it with bandstand's Python API") from None
        except (ValidationError, ValueError) as exc:
            raise CheckpointError(f"{path} is damaged: {str(exc).splitlines()[0]}") from exc

    def _path(self, revision: int, part: str = "") -> Path:
        return self.dir / f"{revision:06d}{part}.json"

    def entry(self, revision: int) -> HistoryEntry:
        path = self._path(revision)
        try:
            return HistoryEntry.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise InvalidInput(f"revision {revision} does not exist in {self.session_dir}") from None
        except (ValidationError, ValueError) as exc:
            raise CheckpointError(f"{path} is damaged: {str(exc).splitlines()[0]}") from exc

    def project(self, revision: int) -> Project:
        path = self._path(revision, ".project")
        try:
            return Project.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise InvalidInput(f"revision {revision} does not exist in {self.session_dir}") from None
        except (ValidationError, ValueError) as exc:
            raise CheckpointError(f"{path} is damaged: {str(exc).splitlines()[0]}") from exc

    def entries(self, latest: int | None = None) -> list[HistoryEntry]:
        """Every committed entry, oldest first."""
        last = self.pointer().latest if latest is None else latest
        return [self.entry(n) for n in range(1, last + 1)]

    @staticmethod
    def chain(entries: list[HistoryEntry], head: int) -> list[int]:
        """HEAD and its ancestors, newest first."""
        parents = {e.revision: e.parent for e in entries}
        out: list[int] = []
        at: int | None = head
        while at is not None:
            out.append(at)
            at = parents.get(at)
        return out

    @staticmethod
    def redo_target(entries: list[HistoryEntry], head: int) -> int | None:
        """The revision redo moves to: HEAD's newest child."""
        children = [e.revision for e in entries if e.parent == head]
        return max(children) if children else None

    # ------------------------------------------------------------------ writing (under `lock`)

    @contextlib.contextmanager
    def lock(self, timeout: float = 30.0) -> Iterator[None]:
        """Hold the session's lock (other processes and threads wait, up to `timeout` s)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise SessionBusy(f"{self.session_dir} is being changed by another process; "
                                          "try again in a moment", retryable=True) from None
                    time.sleep(0.005)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def commit(self, project: Project, *, parent: int | None, author: str, request: str, kind: str,
               changes: list[Change], summary: str = "", variation_id: str | None = None,
               tools: list[dict[str, Any]] | None = None, step: Step = _nothing) -> tuple[HistoryEntry, Project]:
        """Write a new revision (child of `parent`) and move HEAD to it; returns its entry and
        project. Call under `lock`."""
        latest = self.pointer().latest if self.exists() else 0
        revision = latest + 1
        stamped = project.model_copy(update={"revision": revision})
        write_bytes(self._path(revision, ".project"), stamped.model_dump_json().encode("utf-8"))
        step("snapshot")
        entry = HistoryEntry(revision=revision, parent=parent, at=dt.datetime.now(dt.UTC), author=author,
                             request=request, kind=kind, variation_id=variation_id, tools=tools or [],
                             summary=summary, changes=changes)
        write_json(self._path(revision), entry.model_dump(mode="json"))
        step("entry")
        self._point(HeadPointer(head=revision, latest=revision))
        step("head")
        return entry, stamped

    def move_head(self, revision: int, step: Step = _nothing) -> None:
        """Point HEAD at an existing revision (undo, redo). Call under `lock`."""
        latest = self.pointer().latest
        if not 1 <= revision <= latest:
            raise InvalidInput(f"revision {revision} does not exist (1..{latest})")
        self._point(HeadPointer(head=revision, latest=latest))
        step("head")

    def _point(self, pointer: HeadPointer) -> None:
        write_json(self.dir / "HEAD.json", pointer.model_dump(mode="json"))


def close_id(given: str, known: list[str]) -> str | None:
    """The known id the given one (or a mistyped prefix of it) most looks like."""
    by_prefix = {k[:len(given)]: k for k in known}
    close = difflib.get_close_matches(given, list(by_prefix), n=1, cutoff=0.6)
    return by_prefix[close[0]] if close else None


class VariationStore:
    """The `variations/` folder: `<id>.json` holds a variation's meta, state and phrases
    (rewritten, atomically, as its state moves); `<id>.proposal.json` the proposed project,
    written once."""

    def __init__(self, session_dir: str | os.PathLike[str]) -> None:
        self.dir = Path(session_dir) / "variations"

    def save(self, variation: Variation, *, proposal: bool = True) -> None:
        """Write the variation; `proposal=False` when only its state or meta changed."""
        if proposal and variation.proposal is not None:
            write_bytes(self.dir / f"{variation.id}.proposal.json",
                        variation.proposal.model_dump_json().encode("utf-8"))
        write_bytes(self.dir / f"{variation.id}.json",
                    variation.model_dump_json(exclude={"proposal"}).encode("utf-8"))

    def ids(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.name.removesuffix(".json") for p in self.dir.glob("*.json")
                      if not p.name.endswith(".proposal.json"))

    def resolve(self, variation_id: str) -> str:
        """The full id for an id or a unique prefix of at least 4 characters."""
        if (self.dir / f"{variation_id}.json").is_file() and not variation_id.endswith(".proposal"):
            return variation_id
        known = self.ids()
        matches = [k for k in known if len(variation_id) >= 4 and k.startswith(variation_id)]
        if len(matches) == 1:
            return matches[0]
        close = close_id(variation_id, known)
        hint = (f"; did you mean {close}?" if close else
                f"; the variations here are {', '.join(k[:8] for k in known)}" if known else
                "; there are no variations in this session yet")
        what = "is ambiguous" if matches else "is not a variation of this session"
        raise VariationConflict(f"'{variation_id}' {what}{hint}")

    def load(self, variation_id: str, *, proposal: bool = True) -> Variation:
        """The variation with this id (or unique prefix); without its proposal when not asked."""
        vid = self.resolve(variation_id)
        path = self.dir / f"{vid}.json"
        try:
            variation = Variation.model_validate_json(path.read_bytes())
            if proposal:
                path = self.dir / f"{vid}.proposal.json"
                variation.proposal = Project.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise CheckpointError(f"{path} is missing") from None
        except (ValidationError, ValueError) as exc:
            raise CheckpointError(f"{path} is damaged: {str(exc).splitlines()[0]}") from exc
        return variation

    def all(self) -> list[Variation]:
        """Every variation (without proposals), oldest first."""
        return sorted((self.load(i, proposal=False) for i in self.ids()), key=lambda v: (v.created_at, v.id))


def read_json(path: Path) -> Any:
    """A JSON file, or None when it is missing or unreadable."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
