"""A real jam whose LLM member answers hostile patterns: every one is refused (the member keeps
its last good pattern and says why), the band plays on, and the server answers
`/api/v1/jam/state` all the while (each answer within the HTTP client's 10 s timeout — the
times themselves are measured by benchmarks/jam_server.py)."""

from __future__ import annotations

import pytest

from tests.e2e.hostile_jam import GOOD, HOSTILE, hostile_jam, play

pytestmark = pytest.mark.e2e


async def test_hostile_patterns_are_refused_and_the_server_keeps_answering() -> None:
    with hostile_jam() as served:
        watch = await play(served, rounds=3)
    assert len(watch.answers) >= 10 and {status for status, _ in watch.answers} == {200}
    beat = watch.thoughts("BEAT")
    assert len(beat) == 4 and all(t["status"] == "error" and t["pattern"] == "silence" for t in beat)
    assert all("invalid pattern" in t["note"] for t in beat), [t["note"] for t in beat]
    assert not any(code in t["pattern"] for t in beat for code in HOSTILE)
    groove = watch.thoughts("GROOVE")
    assert groove and all(t["status"] == "idle" and t["pattern"] == GOOD for t in groove)
    played = [m for m in watch.messages if m["type"] == "events"]
    assert played and all(e["member"] == "GROOVE" for m in played for e in m["events"])
