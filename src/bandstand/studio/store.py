"""Revisions and history in the session folder.

    revisions/
      HEAD.json                 {"head": 5, "latest": 6, "branch": "alt", "branches": {…}} — the only
                                file that changes (the branch fields only once there is more than main)
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

Branches live in HEAD.json too, so switching, creating and moving them is one
atomic rename: each branch has a `head` (where undo and redo have left it) and
a `tip` (the newest revision made or checked out on it, where redo leads). The
current branch's head is `head`. A HEAD.json written before branches (no
branch fields) reads as the single branch `main`. An entry says which branch
it was made on, and a merge's entry the revision it merged in (`merged`).
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

__all__ = ["FORMAT", "MAIN", "BranchHead", "HeadPointer", "HistoryEntry", "RevisionStore", "Step", "VariationStore", "read_json"]

FORMAT = 1
MAIN = "main"  # the branch every project starts on (and a project made before branches is)
Step = Callable[[str], None]  # called after each durable step: "snapshot", "entry", "head"


class BranchHead(BaseModel):
    """Where one branch is: its head (undo and redo move it) and its tip (where redo leads)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    head: int = Field(ge=1)
    tip: int = Field(ge=1)


class HeadPointer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT
    head: int = Field(ge=1)
    latest: int = Field(ge=1)
    branch: str = MAIN
    branches: dict[str, BranchHead] = {}

    def heads(self) -> dict[str, BranchHead]:
        """Every branch, the current one's head being `head` (a pointer written before branches:
        main alone, its tip unknown — redo then takes HEAD's newest child, as it always did)."""
        current = self.branches.get(self.branch)
        tip = current.tip if current is not None else self.head
        return {**self.branches, self.branch: BranchHead(head=self.head, tip=tip)}

    def to_json(self) -> dict[str, Any]:
        """What HEAD.json holds: without the branch fields while main is the only branch and its
        head is its tip (the file a linear history has always had, byte for byte)."""
        data = self.model_dump(mode="json")
        heads = self.heads()
        if self.branch == MAIN and list(heads) == [MAIN] and heads[MAIN].tip == self.head:
            data.pop("branch")
            data.pop("branches")
        else:
            data["branches"] = {k: v.model_dump(mode="json") for k, v in sorted(heads.items())}
        return data


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
    branch: str = MAIN
    merged: int | None = Field(default=None, ge=1, description="a merge's other parent: the branch head merged in")

    def to_json(self) -> dict[str, Any]:
        """What the entry's file holds (no branch fields for main's plain entries, as before branches)."""
        data = self.model_dump(mode="json")
        if self.branch == MAIN:
            data.pop("branch")
        if self.merged is None:
            data.pop("merged")
        return data


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
    def redo_target(entries: list[HistoryEntry], head: int, tip: int | None = None) -> int | None:
        """The revision redo moves to: the next one on the way from HEAD to the branch's `tip`,
        else HEAD's newest child made on the same branch as the tip (or any, without a tip)."""
        if tip is not None and tip != head:
            line = RevisionStore.chain(entries, tip)
            if head in line[1:]:
                return line[line.index(head) - 1]
        by_number = {e.revision: e for e in entries}
        branch = by_number[tip].branch if tip is not None and tip in by_number else None
        children = [e.revision for e in entries if e.parent == head and (branch is None or e.branch == branch)]
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
               tools: list[dict[str, Any]] | None = None, step: Step = _nothing,
               merged: int | None = None) -> tuple[HistoryEntry, Project]:
        """Write a new revision (child of `parent`, and of `merged` for a merge) on the current
        branch and move HEAD (and the branch's tip) to it; returns its entry and project. Call
        under `lock`."""
        before = self.pointer() if self.exists() else None
        revision = (before.latest if before is not None else 0) + 1
        branch = before.branch if before is not None else MAIN
        stamped = project.model_copy(update={"revision": revision})
        write_bytes(self._path(revision, ".project"), stamped.model_dump_json().encode("utf-8"))
        step("snapshot")
        entry = HistoryEntry(revision=revision, parent=parent, at=dt.datetime.now(dt.UTC), author=author,
                             request=request, kind=kind, variation_id=variation_id, tools=tools or [],
                             summary=summary, changes=changes, branch=branch, merged=merged)
        write_json(self._path(revision), entry.to_json())
        step("entry")
        heads = before.heads() if before is not None else {}
        heads[branch] = BranchHead(head=revision, tip=revision)
        self._point(HeadPointer(head=revision, latest=revision, branch=branch, branches=heads))
        step("head")
        return entry, stamped

    def move_head(self, revision: int, step: Step = _nothing) -> None:
        """Point HEAD at an existing revision (undo, redo) on the current branch. Call under `lock`."""
        pointer = self.pointer()
        self.switch(pointer.branch, revision, tip=pointer.heads()[pointer.branch].tip, step=step)

    def switch(self, branch: str, revision: int, *, tip: int, step: Step = _nothing) -> None:
        """Make `branch` current (created when new) with its head at `revision` and its tip at
        `tip`, the other branches kept — one atomic write. Call under `lock`."""
        pointer = self.pointer()
        for n in (revision, tip):
            if not 1 <= n <= pointer.latest:
                raise InvalidInput(f"revision {n} does not exist (1..{pointer.latest})")
        heads = pointer.heads()
        heads[branch] = BranchHead(head=revision, tip=tip)
        self._point(HeadPointer(head=revision, latest=pointer.latest, branch=branch, branches=heads))
        step("head")

    def _point(self, pointer: HeadPointer) -> None:
        write_json(self.dir / "HEAD.json", pointer.to_json())


class _Listed(BaseModel):
    """What choosing among variations needs of one (the rest of its file is skipped)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    state: str
    created_at: dt.datetime


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

    def newest(self, state: str) -> str | None:
        """The id of the newest variation (by creation, then id) in `state`, None when there is
        none. Each file is read for its id, state and creation time only: building every
        variation's phrases to choose one made accepting cost the whole session's variations."""
        listed = []
        for vid in self.ids():
            path = self.dir / f"{vid}.json"
            try:
                listed.append(_Listed.model_validate_json(path.read_bytes()))
            except FileNotFoundError:
                raise CheckpointError(f"{path} is missing") from None
            except (ValidationError, ValueError) as exc:
                raise CheckpointError(f"{path} is damaged: {str(exc).splitlines()[0]}") from exc
        chosen = [v for v in sorted(listed, key=lambda v: (v.created_at, v.id)) if v.state == state]
        return chosen[-1].id if chosen else None


def read_json(path: Path) -> Any:
    """A JSON file, or None when it is missing or unreadable."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
