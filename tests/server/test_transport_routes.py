"""The transport and scratch routes in process, over `App.live()`: a command answers the new state with
the project's id, the state reads it back, the stream sends it (then each change), a mistake is one line
naming the field; `POST /patterns/play` answers what code plays and the song a page loops."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.producer.sessions.projects import create_from_song
from bandstand.producer.sessions.studio import Studio
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from bandstand.studio import Provenance, SeededIds

from ..studio.songs import small_song

TOKEN = "t" * 32
PROJECT = "session-20260101-abc123"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    create_from_song(tmp_path / PROJECT, small_song(), Provenance(prompt="small", seeds={"song": 1}), ids=SeededIds(3))
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), studio=Studio(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as client:
        yield client


def test_a_command_the_state_and_the_stream(client: TestClient) -> None:
    url = f"/api/v1/projects/{PROJECT}/transport"
    first = client.get(url).json()
    assert first["projectId"] == PROJECT and first["bar"] == 1 and not first["playing"] and first["seq"] == 0
    played = client.post(url, json={"action": "play", "bar": 5}).json()
    assert played["projectId"] == PROJECT and played["playing"] and played["bar"] == 5 and played["seq"] == 1
    assert client.get(url).json() == played
    with client.stream("GET", f"{url}/stream") as stream:
        data = next(line for line in stream.iter_lines() if line.startswith("data:"))
    assert json.loads(data.removeprefix("data:")) == played
    for body, words in (({"action": "play", "bar": 17}, "past the song's end"),
                        ({"action": "loop", "section": "coda"}, "no section 'coda'"),
                        ({"action": "rewind"}, "action")):
        answer = client.post(url, json=body)
        assert answer.status_code == 422 and words in answer.json()["detail"], answer.json()
    assert client.get("/api/v1/projects/session-20260101-ffffff/transport").status_code == 404


def test_scratch_code_plays_as_a_song_the_page_loops(client: TestClient) -> None:
    answer = client.post("/api/v1/patterns/play", json={"code": 'note("c3 e3 g3")', "cycles": 32, "key": "C major",
                                                        "tempo": 90}).json()
    assert answer["played"]["bpm"] == 90 and answer["played"]["in_key"] == 1.0
    assert answer["song"]["length"] == 32 * 4 and len(answer["song"]["tracks"][0]["notes"]) == 3 * 32
    wrong = client.post("/api/v1/patterns/play", json={"code": 'note("c3'})
    assert wrong.status_code == 422 and len(wrong.json()["detail"].splitlines()) == 1
