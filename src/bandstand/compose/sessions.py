"""Compose sessions on disk: list them (newest first) and clean them up.

A session folder is finished when it has a `manifest.json`; without one it
is incomplete (crashed, cancelled, paused or still running). Cleaning
removes incomplete sessions, sessions older than N days, and the temporary
files an interrupted atomic write leaves behind (`.<name>.<random>.tmp`).
A session whose checkpoint changed in the last minutes is left alone: it
may still be running. `inspect` reads what a list shows of a session — from
its manifest (HEAD's, once the studio has revised it) and, for an unfinished
one, its checkpoint; `producer.App.sessions` is what every client lists.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.files import TMP_SUFFIX

__all__ = ["ACTIVE_SECONDS", "SESSION_RE", "CleanPlan", "SessionInfo", "clean", "inspect", "list_sessions",
           "plan_clean"]

SESSION_RE = re.compile(r"^session-\d{8}-[0-9a-f]{6}$")
ACTIVE_SECONDS = 120


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A session folder as a list shows it. `complete`: it has a manifest; `revised`: the studio
    keeps its revisions (revisions/HEAD.json); `changed_at`: when HEAD (else the manifest, else
    the folder) last changed; `modified`: the newest file of its state and MIDI (what `clean`
    reads to leave a running session alone)."""

    path: Path
    session_id: str
    created_at: dt.datetime
    status: str
    complete: bool
    genre: str
    key: str
    tempo: float | None
    prompt: str
    modified: float
    name: str = ""
    revised: bool = False
    revision: int | None = None
    time_signature: str | None = None
    bars: int | None = None
    tracks: tuple[str, ...] = ()
    changed_at: dt.datetime | None = None


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _modified(folder: Path) -> float:
    times = [folder.stat().st_mtime]
    for sub in ("state", "midi"):
        p = folder / sub
        if p.is_dir():
            times += [f.stat().st_mtime for f in p.iterdir() if f.is_file()]
    return max(times)


def _changed(folder: Path) -> dt.datetime:
    for name in ("revisions/HEAD.json", "manifest.json"):
        try:
            return dt.datetime.fromtimestamp((folder / name).stat().st_mtime, dt.UTC)
        except OSError:
            continue
    return dt.datetime.fromtimestamp(folder.stat().st_mtime, dt.UTC)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def inspect(folder: Path) -> SessionInfo:
    manifest = _read_json(folder / "manifest.json")
    state = _read_json(folder / "state" / "pipeline-state.json") or _read_json(
        folder / "state" / "pipeline-state.json.bak") or {}
    intent = state.get("intent") or {}
    status = str(state.get("status") or ("completed" if manifest else "incomplete"))
    created_text = (manifest or {}).get("created_at") or state.get("created_at")
    try:
        created = dt.datetime.fromisoformat(str(created_text))
    except ValueError:
        created = dt.datetime.fromtimestamp(folder.stat().st_mtime, dt.UTC)
    genre = (manifest or {}).get("genre") or intent.get("genre") or []
    key = (manifest or {}).get("key") or (f"{intent['key']} {intent['mode']}" if intent.get("key") else "")
    tempo = (manifest or {}).get("tempo") or intent.get("tempo")
    prompt = str((manifest or {}).get("prompt") or state.get("raw_prompt") or "")
    found = (manifest or {}).get("parts")
    tracks = tuple(str(p.get("name")) for p in found if isinstance(p, dict)) if isinstance(found, list) else ()
    metre = (manifest or {}).get("time_signature")
    return SessionInfo(path=folder, session_id=folder.name, created_at=created, status=status,
                       complete=manifest is not None, genre=", ".join(genre) if isinstance(genre, list) else str(genre),
                       key=str(key), tempo=float(tempo) if tempo else None, prompt=prompt,
                       modified=_modified(folder), name=str((manifest or {}).get("name") or prompt or folder.name),
                       revised=(folder / "revisions" / "HEAD.json").is_file(),
                       revision=_int((manifest or {}).get("revision")),
                       time_signature=str(metre) if metre else None, bars=_int((manifest or {}).get("total_bars")),
                       tracks=tracks, changed_at=_changed(folder))


def list_sessions(out_dir: str | Path) -> list[SessionInfo]:
    """Every session folder under `out_dir`, newest first."""
    root = Path(out_dir)
    if not root.is_dir():
        return []
    infos = [inspect(p) for p in root.iterdir() if p.is_dir() and SESSION_RE.match(p.name)]
    return sorted(infos, key=lambda s: (s.created_at, s.session_id), reverse=True)


@dataclass(frozen=True, slots=True)
class CleanPlan:
    sessions: list[tuple[SessionInfo, str]]  # (session, why)
    temp_files: list[Path]
    kept: list[SessionInfo] = field(default_factory=list)  # unfinished, but changed too recently: maybe running

    @property
    def empty(self) -> bool:
        return not self.sessions and not self.temp_files


def plan_clean(out_dir: str | Path, *, older_than_days: float | None = None, incomplete: bool = False,
               now: float | None = None) -> CleanPlan:
    """What `clean` would delete. With no option: incomplete sessions and temporary files;
    `older_than_days` adds finished sessions older than that; `incomplete` alone limits the
    sessions to unfinished ones."""
    now = time.time() if now is None else now
    chosen: list[tuple[SessionInfo, str]] = []
    kept: list[SessionInfo] = []
    for info in list_sessions(out_dir):
        age_days = (now - info.created_at.timestamp()) / 86400
        recent = now - info.modified < ACTIVE_SECONDS
        if older_than_days is not None and age_days > older_than_days and not (incomplete and info.complete):
            chosen.append((info, f"older than {older_than_days:g} days"))
        elif not info.complete and (incomplete or older_than_days is None) and not recent:
            chosen.append((info, f"incomplete ({info.status})"))
        elif not info.complete and (incomplete or older_than_days is None):
            kept.append(info)
    doomed = {info.path for info, _ in chosen}
    temps = []
    root = Path(out_dir)
    if root.is_dir():
        for session in root.iterdir():
            if session.is_dir() and SESSION_RE.match(session.name) and session not in doomed:
                temps += [p for p in session.rglob(f".*{TMP_SUFFIX}")
                          if p.is_file() and now - p.stat().st_mtime >= ACTIVE_SECONDS]
    return CleanPlan(chosen, sorted(temps), kept)


def clean(plan: CleanPlan) -> int:
    """Delete what `plan` names; returns how many sessions and files went."""
    count = 0
    for info, _ in plan.sessions:
        shutil.rmtree(info.path, ignore_errors=True)
        count += 1
    for path in plan.temp_files:
        path.unlink(missing_ok=True)
        count += 1
    return count
