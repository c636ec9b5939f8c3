"""What the studio page adds to the projects routes: a person's direct edits as tool
calls (one revision, undoable; a refused call is one line and changes nothing), the
arrangement view's extras (chords, instruments, drum names), and a new song with the
compose graph's progress over SSE."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.producer.sessions.studio import Studio
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from tests.producer.conftest import composed  # noqa: F401

TOKEN = "t" * 32


@pytest.fixture
def served(composed: Callable[..., Path], tmp_path: Path) -> Iterator[tuple[TestClient, str]]:  # noqa: F811
    source = composed("funk groove with a synth pad", 3, 16)
    shutil.copytree(source, tmp_path / source.name)
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), studio=Studio(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as client:
        yield client, source.name


def test_direct_edits_are_tool_calls_and_revisions(served: tuple[TestClient, str]) -> None:
    client, pid = served
    project = client.get(f"/api/v1/projects/{pid}").json()["project"]
    bass = next(t for t in project["tracks"] if t["role"] == "bass")
    region = next(r for r in bass["regions"] if r["notes"])
    first = region["notes"][0]
    done = client.post(f"/api/v1/projects/{pid}/tools", json={"request": "piano roll: edit 1 note", "calls": [
        {"name": "update_notes", "args": {"region": region["id"], "notes": [{"id": first["id"], "pitch": first["pitch"] + 1}]}},
        {"name": "set_track_volume", "args": {"track": bass["id"], "volume": 0.6}}]})
    assert done.status_code == 200, done.text
    assert (done.json()["revision"], done.json()["changed"]) == (2, True)
    after = client.get(f"/api/v1/projects/{pid}").json()["project"]
    bass_after = next(t for t in after["tracks"] if t["id"] == bass["id"])
    moved = next(n for r in bass_after["regions"] for n in r["notes"] if n["id"] == first["id"])
    assert moved["pitch"] == first["pitch"] + 1 and bass_after["volume"] == 0.6
    history = client.get(f"/api/v1/projects/{pid}/history").json()["entries"]
    assert history[-1]["request"] == "piano roll: edit 1 note" and history[-1]["author"] == "studio page"

    refused = client.post(f"/api/v1/projects/{pid}/tools", json={"calls": [
        {"name": "remove_notes", "args": {"region": region["id"], "note_ids": ["nope"]}}]})
    assert refused.status_code == 422 and "has no note 'nope'" in refused.json()["detail"]
    assert client.get(f"/api/v1/projects/{pid}").json()["revision"] == 2  # nothing changed
    assert client.post(f"/api/v1/projects/{pid}/undo").json()["revision"] == 1


def test_the_arrangement_view_comes_when_asked(served: tuple[TestClient, str]) -> None:
    client, pid = served
    assert "view" not in client.get(f"/api/v1/projects/{pid}").json()
    view = client.get(f"/api/v1/projects/{pid}?view=true").json()["view"]
    assert view["chords"] and view["chords"][0]["beat"] == 0 and view["drum_names"]["38"] == "Acoustic Snare"
    assert set(view["instruments"].values()) >= {"Drum kit"}


def test_a_new_song_streams_the_compose_graph_progress(served: tuple[TestClient, str]) -> None:
    client, pid = served
    with client.stream("POST", "/api/v1/projects/stream", json={"prompt": "lofi hip hop, 80 bpm", "bars": 8,
                                                                 "seed": 4}) as answer:
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[6:]) for line in answer.iter_lines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "pipeline_started" and kinds[-1] == "pipeline_finished"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    done = {e["node"] for e in events if e["type"] == "node_completed"}
    assert {"intent", "harmony", "arrangement", "parts:drums", "output"} <= done
    new = Path(events[0]["sessionDir"]).name
    assert new != pid and client.get(f"/api/v1/projects/{new}").json()["revision"] == 1  # ready when the stream ends
    bad = client.post("/api/v1/projects/stream", json={"prompt": "x", "bars": 2})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("bars")
