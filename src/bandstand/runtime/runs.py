"""Runs on disk: the JSONL event logs that sessions and teams leave under the
runs folder, read back for the session log view — listed, replayed and
followed while they grow, within budgets.

A run is a folder of logs (a team: `team.jsonl` and one `<member>-<id>.jsonl`
per member session) or a single log file (one session; or a team composing,
`compose-team-….jsonl`, its agents named in each event). `RunFollower` reads a
run incrementally: each `read()` returns the complete events appended since the
previous one, from every log of the run (logs that appear later included),
merged by time. A line being written (no newline yet) waits for the next read;
a line over the budget is skipped and counted, and once the run's byte budget
is spent the follower stops reading and says so (`truncated`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.errors import NotFound

__all__ = ["RunBudget", "RunFollower", "RunInfo", "list_runs", "run_path"]

LOG_SUFFIX = ".jsonl"
_NAME = re.compile(r"^[\w.@:+-]{1,200}$")


@dataclass(frozen=True, slots=True)
class RunBudget:
    """How much of a run the view reads."""

    files: int = 64
    """Logs read per run (a team with more members shows the first ones by name)."""
    bytes: int = 32 * 1024 * 1024
    """Bytes read per run over its whole life; past it the follower stops (`truncated`)."""
    line_bytes: int = 256 * 1024
    """One event; a longer line is skipped (`skipped`)."""
    runs: int = 200
    """Runs listed (the newest)."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run as the list shows it: `kind` is "team" (a folder) or "session" (one log)."""

    name: str
    kind: str
    modified: float
    bytes: int
    logs: int

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "modified": self.modified, "bytes": self.bytes, "logs": self.logs}


def _logs(path: Path, budget: RunBudget) -> list[Path]:
    if path.is_file():
        return [path]
    try:
        found = sorted(p for p in path.iterdir() if p.suffix == LOG_SUFFIX and p.is_file())
    except OSError:
        return []
    team = [p for p in found if p.name == "team.jsonl"]
    return (team + [p for p in found if p.name != "team.jsonl"])[: budget.files]


def _kind(path: Path) -> str:
    """"team" for a folder of logs or the one log of `compose --team`, else "session"."""
    return "session" if path.is_file() and not path.name.startswith("compose-team-") else "team"


def _info(path: Path, budget: RunBudget) -> RunInfo | None:
    logs = _logs(path, budget)
    if not logs:
        return None
    stats = [p.stat() for p in logs]
    return RunInfo(name=path.name, kind=_kind(path),
                   modified=max(s.st_mtime for s in stats), bytes=sum(s.st_size for s in stats), logs=len(logs))


def list_runs(root: str | os.PathLike[str], budget: RunBudget = RunBudget()) -> list[RunInfo]:
    """The runs under `root`, newest first (at most `budget.runs`); none when it does not exist."""
    base = Path(root)
    try:
        entries = sorted(base.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    runs = []
    for entry in entries:
        if not (entry.is_dir() or entry.suffix == LOG_SUFFIX):
            continue
        info = _info(entry, budget)
        if info is not None:
            runs.append(info)
        if len(runs) >= budget.runs:
            break
    return sorted(runs, key=lambda r: r.modified, reverse=True)


def run_path(root: str | os.PathLike[str], name: str) -> Path:
    """The run `name` directly under `root` (a folder or a `.jsonl`), or `NotFound`."""
    if not _NAME.match(name) or name in (".", ".."):
        raise NotFound(f"no run named {name!r} (a run is a folder or a .jsonl file under the runs folder)")
    path = Path(root) / name
    if not (path.is_dir() or (path.is_file() and path.suffix == LOG_SUFFIX)):
        raise NotFound(f"no run named {name!r} under {root}; see GET /api/v1/runs")
    return path


@dataclass
class _Cursor:
    offset: int = 0


@dataclass
class RunFollower:
    """Reads a run's events as they are appended (see the module docstring)."""

    path: Path
    budget: RunBudget = RunBudget()
    read_bytes: int = 0
    skipped: int = 0
    truncated: bool = False
    pending: int = 0
    """Bytes the last read left for the next one (it was given `max_bytes`)."""
    _cursors: dict[Path, _Cursor] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return _kind(self.path)

    def read(self, max_bytes: int | None = None) -> list[dict[str, Any]]:
        """The complete events appended since the last read, ordered by time; with `max_bytes`,
        only as many as that many bytes of the logs hold (the rest waits for the next read,
        and `pending` says how many bytes do)."""
        events: list[dict[str, Any]] = []
        if max_bytes is not None and max_bytes <= self.budget.line_bytes:
            raise ValueError(f"a read of {max_bytes} bytes cannot hold one event of {self.budget.line_bytes} bytes")
        limit = max_bytes if max_bytes is not None else self.budget.bytes
        self.pending = 0
        spent = 0
        for log in _logs(self.path, self.budget):
            if self.truncated:
                break
            before = self.read_bytes
            events.extend(self._read_log(log, self._cursors.setdefault(log, _Cursor()), limit - spent))
            spent += self.read_bytes - before
        events.sort(key=lambda e: (e.get("ts") if isinstance(e.get("ts"), int | float) else 0.0, e.get("seq") or 0))
        return events

    def _read_log(self, log: Path, cursor: _Cursor, limit: int) -> list[dict[str, Any]]:
        try:
            size = log.stat().st_size
        except OSError:
            return []
        if size < cursor.offset:  # replaced by a shorter file: read it again from the start
            cursor.offset = 0
        room = self.budget.bytes - self.read_bytes
        want = min(size - cursor.offset, room, limit)
        if want <= 0:
            self.pending += max(0, min(size - cursor.offset, room))
            return []
        if want < min(size - cursor.offset, room):  # this read is full: the rest waits for the next
            self.pending += min(size - cursor.offset, room) - want
        if want < size - cursor.offset and want == room:  # the budget ends inside this log: read what fits, stop
            self.truncated = True
        with open(log, "rb") as fh:
            fh.seek(cursor.offset)
            chunk = fh.read(want)
        end = chunk.rfind(b"\n")
        if end < 0:  # no complete line yet
            if len(chunk) >= self.budget.line_bytes:  # … and one that will never fit: skip what there is
                cursor.offset += len(chunk)
                self.read_bytes += len(chunk)
                self.skipped += 1
            return []
        chunk = chunk[: end + 1]
        cursor.offset += len(chunk)
        self.read_bytes += len(chunk)
        out = []
        for line in chunk.splitlines():
            if not line.strip():
                continue
            if len(line) > self.budget.line_bytes:
                self.skipped += 1
                continue
            try:
                event = json.loads(line)
            except ValueError:
                self.skipped += 1
                continue
            if isinstance(event, dict):
                out.append(event)
        return out
