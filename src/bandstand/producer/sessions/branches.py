"""Branches: several directions of one song kept alive side by side. A branch
is a name for a line of revisions (`studio.store`: its head, where undo and
redo leave it, and its tip, where redo leads); the current branch's head is
the song everyone sees — `export`, the page, the next edit. The use cases:

    create_branch(session, "darker")     a branch at HEAD, switched to
    checkout(session, "main" | "7")      switch branch, or go to a revision
    merge(session, "darker")             its changes made on the current branch
    graph(session)                       the history as a graph, newest first

Every change holds the session's lock and is one atomic write of HEAD.json
(a merge writes its revision first, as accept does), then the top-level files;
a process killed between them leaves files `open_project` repairs. Names and
targets that cannot be used are one line (`InvalidInput`, `NotFound`,
`Conflict`) and change nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from bandstand.errors import Conflict, InvalidInput, NotFound
from bandstand.producer.sessions import head_files
from bandstand.producer.sessions.projects import ProjectSession
from bandstand.studio.merge import merge_projects
from bandstand.studio.store import MAIN, HistoryEntry, RevisionStore, Step

__all__ = ["NAME_MAX", "Branch", "BranchJSON", "BranchesListing", "GraphLine", "GraphLineJSON", "Moved",
           "branches_json", "check_name", "checkout", "create_branch", "graph", "graph_json", "list_branches", "merge"]

NAME_MAX = 40
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_REVISION = re.compile(r"r?([0-9]{1,9})")


def _nothing(step: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Branch:
    name: str
    head: int
    tip: int
    current: bool


class BranchJSON(TypedDict):
    """A branch as the API answers it."""

    name: str
    head: int
    tip: int
    current: bool


class GraphLineJSON(TypedDict):
    """A line of the history graph as the API answers it (`GraphLine.to_json`)."""

    graph: str
    revision: int | None
    branch: str
    labels: list[str]
    head: bool
    undone: bool
    words: str


class BranchesListing(TypedDict):
    """The branches (the current one marked) and HEAD — with the graph when asked — as the API
    answers them (`branches_json`; the keys in this order)."""

    projectId: str  # the wire's name
    current: str
    revision: int
    branches: list[BranchJSON]
    graph: NotRequired[list[GraphLineJSON]]


@dataclass(frozen=True, slots=True)
class Moved:
    """Where a branch change left the project: the current branch and its HEAD revision."""

    branch: str
    revision: int
    created: bool = False


@dataclass(frozen=True, slots=True)
class GraphLine:
    """One line of the history graph: a revision's (`revision` set) or a line joining or
    parting lanes (`revision` None). `graph` is the lanes drawn in ASCII (`*` the revision)."""

    graph: str
    revision: int | None = None
    branch: str = ""
    labels: tuple[str, ...] = ()
    head: bool = False
    undone: bool = False
    words: str = ""

    def to_json(self) -> GraphLineJSON:
        return {"graph": self.graph, "revision": self.revision, "branch": self.branch, "labels": list(self.labels),
                "head": self.head, "undone": self.undone, "words": self.words}


def check_name(name: str, field: str = "name") -> str:
    """A branch name that can be used, or `InvalidInput` saying why not and what would do."""
    hint = "use letters, digits, '-', '_' or '.', e.g. darker-chorus"
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"the branch name is empty; {hint}", field=field)
    if "/" in name or ".." in name:
        raise InvalidInput(f"branch name {name!r} has '/' or '..' (which would read as a path); {hint}", field=field)
    if len(name) > NAME_MAX:
        raise InvalidInput(f"branch name {name[:NAME_MAX]!r}… is longer than {NAME_MAX} characters; "
                           "choose a shorter one", field=field)
    if _REVISION.fullmatch(name):
        raise InvalidInput(f"branch name {name!r} reads as a revision number; {hint}", field=field)
    if not _NAME.fullmatch(name):
        raise InvalidInput(f"branch name {name!r} has a character that cannot be used; {hint}", field=field)
    return name


def list_branches(session: ProjectSession) -> list[Branch]:
    """Every branch, by name."""
    pointer = session.store.pointer()
    return [Branch(name, b.head, b.tip, name == pointer.branch) for name, b in sorted(pointer.heads().items())]


def _unknown(session: ProjectSession, name: str, what: str) -> NotFound:
    known = ", ".join(b.name for b in list_branches(session))
    return NotFound(f"there is no branch {name!r} in {session.session_dir.name} {what}; the branches are {known} "
                    f"(make one with: bandstand branch {session.session_dir} {name})", field="branch")


def _show(session: ProjectSession, revision: int, step: Step) -> None:
    head_files.write_head_files(session.session_dir, session.project(revision))
    step("files")


def create_branch(session: ProjectSession, name: str, *, step: Step = _nothing) -> Moved:
    """A branch named `name` at HEAD, made current (the song does not change)."""
    check_name(name)
    with session.store.lock():
        pointer = session.store.pointer()
        heads = pointer.heads()
        if name in heads:
            raise Conflict(f"branch {name!r} already exists (at revision {heads[name].head}); switch to it with: "
                           f"bandstand checkout {session.session_dir} {name}", field="name")
        session.store.switch(name, pointer.head, tip=pointer.head, step=step)
        return Moved(name, pointer.head, created=True)


def checkout(session: ProjectSession, target: str, *, step: Step = _nothing) -> Moved:
    """Switch to branch `target` (its head becomes HEAD), or go to revision `target` ("7" or
    "r7"): on the current branch when the revision is on its line, else on the branch whose
    line holds it; a revision on no branch's line moves the current branch there."""
    if not isinstance(target, str) or not target.strip():
        raise InvalidInput("checkout: give a branch name or a revision number (e.g. main, or 3)", field="target")
    number = _REVISION.fullmatch(target.strip())
    if number is None:
        check_name(target, "target")
    with session.store.lock():
        pointer = session.store.pointer()
        heads = pointer.heads()
        if number is None:
            if target not in heads:
                raise _unknown(session, target, "to check out")
            branch, revision, tip = target, heads[target].head, heads[target].tip
        else:
            revision = int(number.group(1))
            if not 1 <= revision <= pointer.latest:
                raise NotFound(f"revision {revision} does not exist in {session.session_dir.name} (1..{pointer.latest}); "
                               f"see them with: bandstand history {session.session_dir} --graph", field="target")
            entries = session.store.entries(pointer.latest)
            made_on = entries[revision - 1].branch

            def holds(b: str) -> bool:
                line = {*RevisionStore.chain(entries, heads[b].tip), *RevisionStore.chain(entries, heads[b].head)}
                return revision in line

            order = [pointer.branch, *([made_on] if made_on in heads else []), *sorted(heads)]
            branch = next((b for b in order if holds(b)), pointer.branch)
            on_tip_line = revision in RevisionStore.chain(entries, heads[branch].tip)
            tip = heads[branch].tip if on_tip_line else revision
        session.store.switch(branch, revision, tip=tip, step=step)
        _show(session, revision, step)
        return Moved(branch, revision)


def _ancestors(entries: list[HistoryEntry], revision: int) -> set[int]:
    """`revision` and every revision it grew from, through both parents of a merge."""
    by_number = {e.revision: e for e in entries}
    seen: set[int] = set()
    todo = [revision]
    while todo:
        n = todo.pop()
        if n in seen or n not in by_number:
            continue
        seen.add(n)
        e = by_number[n]
        todo += [p for p in (e.parent, e.merged) if p is not None]
    return seen


def merge(session: ProjectSession, branch: str, *, author: str = "user", step: Step = _nothing) -> HistoryEntry:
    """Make branch `branch`'s changes (since it parted from the current branch) on the current
    branch as one new revision. Refused, naming each part, section or setting both branches
    changed, when they overlap; nothing changes then."""
    check_name(branch, "branch")
    with session.store.lock():
        pointer = session.store.pointer()
        heads = pointer.heads()
        if branch not in heads:
            raise _unknown(session, branch, "to merge")
        if branch == pointer.branch:
            raise InvalidInput(f"cannot merge branch {branch!r} into itself: check out the branch to merge it "
                               f"into first (bandstand checkout {session.session_dir} {MAIN})", field="branch")
        ours_rev, theirs_rev = pointer.head, heads[branch].head
        entries = session.store.entries(pointer.latest)
        ours_line, theirs_line = _ancestors(entries, ours_rev), _ancestors(entries, theirs_rev)
        if theirs_rev in ours_line:
            raise Conflict(f"nothing to merge: {pointer.branch} (revision {ours_rev}) already has everything of "
                           f"{branch} (revision {theirs_rev})", field="branch")
        base_rev = max(ours_line & theirs_line)
        ours = session.project(ours_rev)
        result = merge_projects(session.project(base_rev), ours, session.project(theirs_rev))
        if result.project is None:
            raise Conflict(f"cannot merge {branch} into {pointer.branch}: both branches changed "
                           f"{'; '.join(result.conflicts)} — undo that change on one of them, then merge again",
                           field="branch")
        return session._commit(ours, result.project, author=author, request=f"merge {branch}", kind="merge",
                               summary=f"merged {branch} (revision {theirs_rev}) into {pointer.branch}",
                               step=step, merged=theirs_rev)


def _value(v: object) -> str:
    return f"{v:g}" if isinstance(v, float) else "none" if v is None else str(v)


def _words(e: HistoryEntry, limit: int = 3) -> str:
    """The change in words: what was asked, then what changed ("Bass volume 0.84 → 0.3")."""
    said = [f"{c.label} {_value(c.before)} → {_value(c.after)}"
            if isinstance(c.before, (int, float, str, type(None))) and isinstance(c.after, (int, float, str, type(None)))
            else f"{c.label} changed" for c in e.changes[:limit] if c.path != "provenance"]
    more = f", and {len(e.changes) - limit} more" if len(e.changes) > limit else ""
    what = e.request or e.summary or e.kind
    return f"{what} ({e.author})" + (f": {', '.join(said)}{more}" if said and e.kind != "compose" else "")


def graph(session: ProjectSession) -> list[GraphLine]:
    """The history drawn like `git log --graph`: newest revision first, one lane per line of
    revisions, a merge's second parent parting to its own lane, lanes joining where lines part."""
    pointer = session.store.pointer()
    heads = pointer.heads()
    entries = session.store.entries(pointer.latest)
    on_a_line = {n for b in heads.values() for n in RevisionStore.chain(entries, b.head)}
    labels: dict[int, list[str]] = {}
    for name in sorted(heads, key=lambda n: (n != pointer.branch, n)):
        labels.setdefault(heads[name].head, []).append(f"HEAD -> {name}" if name == pointer.branch else name)

    def draw(lanes: list[int | None], marks: dict[int, str]) -> str:
        """Lanes two characters apart; a joining `/` or parting `\\` sits between its lane and the one left of it."""
        cells = [" "] * (2 * len(lanes))
        for i, x in enumerate(lanes):
            mark = marks.get(i)
            if mark in ("/", "\\"):
                cells[2 * i - 1] = mark
            elif mark is not None or x is not None:
                cells[2 * i] = mark or "|"
        return "".join(cells).rstrip()

    lanes: list[int | None] = []
    out: list[GraphLine] = []
    for e in reversed(entries):
        n = e.revision
        if n not in lanes:
            if None in lanes:
                lanes[lanes.index(None)] = n
            else:
                lanes.append(n)
        col = lanes.index(n)
        joining = [i for i, x in enumerate(lanes) if x == n and i != col]
        if joining:
            out.append(GraphLine(draw(lanes, {i: "/" for i in joining})))
            for i in joining:
                lanes[i] = None
        out.append(GraphLine(draw(lanes, {col: "*"}), n, e.branch, tuple(labels.get(n, ())), n == pointer.head,
                             n not in on_a_line, _words(e)))
        lanes[col] = e.parent
        if e.merged is not None and e.merged not in lanes:
            slot = next((i for i in range(col + 1, len(lanes)) if lanes[i] is None), len(lanes))
            if slot == len(lanes):
                lanes.append(e.merged)
            else:
                lanes[slot] = e.merged
            out.append(GraphLine(draw(lanes, {slot: "\\"})))
        while lanes and lanes[-1] is None:
            lanes.pop()
    return out


def graph_json(line: GraphLine) -> GraphLineJSON:
    return line.to_json()


def branches_json(session: ProjectSession, *, with_graph: bool = False) -> BranchesListing:
    """The branches (current marked) and HEAD — with the graph when asked — as the API answers."""
    found = list_branches(session)
    data: BranchesListing = {
        "projectId": session.session_dir.name, "current": next(b.name for b in found if b.current),
        "revision": session.revision,
        "branches": [{"name": b.name, "head": b.head, "tip": b.tip, "current": b.current} for b in found]}
    if with_graph:
        data["graph"] = [graph_json(g) for g in graph(session)]
    return data
