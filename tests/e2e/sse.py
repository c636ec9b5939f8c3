"""Reading the studio stream over HTTP as a client does: each SSE message's `id`
and `data`, keep-alive comments counted."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Read:
    status: int
    events: list[dict[str, Any]] = field(default_factory=list)
    comments: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def one(self, kind: str) -> dict[str, Any]:
        [found] = [e for e in self.events if e["type"] == kind]
        return found


def stream(client: httpx.Client, prompt: str, **fields: Any) -> Read:
    """POST /api/v1/stream and read it to its end (or its 4xx answer)."""
    body = {"prompt": prompt, **{k: v for k, v in fields.items() if v is not None}}
    with client.stream("POST", "api/v1/stream", json=body, timeout=120) as answer:
        read = Read(answer.status_code, headers=dict(answer.headers))
        if answer.status_code != 200:
            answer.read()
            read.error = answer.json()["detail"]
            return read
        ids = []
        for line in answer.iter_lines():
            if line.startswith(":"):
                read.comments += 1
            elif line.startswith("id: "):
                ids.append(int(line[4:]))
            elif line.startswith("data: "):
                read.events.append(json.loads(line[6:]))
        assert ids == [e["seq"] for e in read.events] == list(range(1, len(read.events) + 1))
    return read
