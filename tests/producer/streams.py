"""Running studio requests in process and reading their events (shared by the stream tests)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bandstand.producer.sessions.studio import Studio

Events = list[dict[str, Any]]


def run(studio: Studio, prompt: str, project_id: str | None = None, conversation_id: str | None = None) -> Events:
    """The events of one request, in order (the request is read and run as the server does)."""
    prepared = studio.prepare(prompt, project_id=project_id, conversation_id=conversation_id)
    events: Events = []
    asyncio.run(studio.stream(prepared, events.append))
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "state" and events[-1]["type"] == "complete"
    return events


def types(events: Events) -> list[str]:
    return [e["type"] for e in events]


def one(events: Events, kind: str) -> dict[str, Any]:
    [found] = [e for e in events if e["type"] == kind]
    return found


def studio_with(composed: Callable[..., Path], tmp_path: Path, prompt: str = "funk groove", seed: int = 3,
                bars: int = 32) -> tuple[Studio, str]:
    """A studio over a fresh copy of a composed project; returns it and the project's id."""
    source = composed(prompt, seed, bars)
    shutil.copytree(source, tmp_path / "out" / source.name)
    return Studio(tmp_path / "out"), source.name
