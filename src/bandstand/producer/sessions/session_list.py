"""The sessions in a projects folder, listed one way for every client.

`App.sessions` is the one list: the CLI's `sessions list`, the HTTP
`GET /projects`, MCP's `list_projects` and its projects resource all show
these `SessionSummary` rows (camelCase on the wire, like every reply), newest
change first. A row comes from `compose.sessions.inspect` — the manifest
(HEAD's once the studio revised the song) and, for an unfinished session, its
checkpoint. By default only songs a client can open are listed (a manifest or
revisions); `unfinished=True` adds the crashed, cancelled and paused runs
(`sessions list` shows them, so that `resume` and `clean` can be chosen). `plan_clean`/`clean`
(what `sessions clean` removes) and `ACTIVE_SECONDS` are compose's own, re-exported.
"""

from __future__ import annotations

from pathlib import Path

from bandstand.compose.api import ACTIVE_SECONDS, SessionInfo, clean, list_sessions, plan_clean
from bandstand.protocol.wire import WireModel

__all__ = ["ACTIVE_SECONDS", "SessionSummary", "clean", "list_summaries", "plan_clean", "summary_of"]


class SessionSummary(WireModel):
    """One session: its id (the project id clients open it by), where it is, its name and
    prompt, its run status (`completed`, `paused`, … ; `complete`: it has a manifest), the
    genre, key, tempo, metre and length, its tracks, its revision (None before the studio has
    one) and when it was made and last changed (ISO 8601)."""

    project_id: str
    path: str
    name: str
    prompt: str
    status: str
    complete: bool
    genre: str
    key: str | None
    tempo: float | None
    time_signature: str | None
    bars: int | None
    tracks: tuple[str, ...]
    revision: int | None
    created_at: str
    updated_at: str


def summary_of(info: SessionInfo) -> SessionSummary:
    changed = info.changed_at or info.created_at
    return SessionSummary(project_id=info.session_id, path=str(info.path), name=info.name[:200],
                          prompt=info.prompt[:500], status=info.status, complete=info.complete, genre=info.genre,
                          key=info.key or None, tempo=info.tempo, time_signature=info.time_signature, bars=info.bars,
                          tracks=info.tracks, revision=info.revision, created_at=info.created_at.isoformat(),
                          updated_at=changed.isoformat())


def list_summaries(root: Path, *, unfinished: bool = False) -> list[SessionSummary]:
    """The sessions under `root`, newest change first (see the module docstring)."""
    infos = [i for i in list_sessions(root) if unfinished or i.complete or i.revised]
    infos.sort(key=lambda i: ((i.changed_at or i.created_at).timestamp(), i.session_id), reverse=True)
    return [summary_of(i) for i in infos]
