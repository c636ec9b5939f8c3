"""The projects and variations routes over the studio service, in process: list,
read at a revision, history, undo/redo, export, a variation by id (its stream's
events), commit and discard — every mistake one line with its status (404 unknown,
409 conflict, 422 invalid), and the OpenAPI document lists them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import mido
import pytest
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.producer.requests.iteration import edit
from bandstand.producer.sessions.studio import Studio
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from tests.producer.conftest import composed  # noqa: F401

TOKEN = "t" * 32


@pytest.fixture
def served(composed: Callable[..., Path], tmp_path: Path) -> Iterator[tuple[TestClient, str, Path]]:  # noqa: F811
    source = composed("funk groove", 3, 16)
    shutil.copytree(source, tmp_path / source.name)
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), studio=Studio(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as client:
        yield client, source.name, tmp_path / source.name


def test_projects_are_read_by_id(served: tuple[TestClient, str, Path]) -> None:
    client, pid, _ = served
    assert [p["projectId"] for p in client.get("/api/v1/projects").json()["projects"]] == [pid]
    project = client.get(f"/api/v1/projects/{pid}").json()
    assert project["revision"] == project["head"] == 1 and project["project"]["tracks"][0]["regions"][0]["notes"]
    assert client.get(f"/api/v1/projects/{pid}/history").json()["entries"][0]["revision"] == 1
    for url, status, words in ((f"/api/v1/projects/{pid}?revision=7", 404, "no revision 7"),
                               ("/api/v1/projects/nope", 404, "no project 'nope'"),
                               (f"/api/v1/projects/{pid}?revision=seven", 422, "revision:"),
                               (f"/api/v1/projects/{pid}/export?format=mp3", 422, "format:")):
        answer = client.get(url)
        assert answer.status_code == status and words in answer.json()["detail"], answer.json()
    assert client.post(f"/api/v1/projects/{pid}/undo").status_code == 409


def test_export_gives_the_file(served: tuple[TestClient, str, Path], tmp_path: Path) -> None:
    client, pid, _ = served
    answer = client.get(f"/api/v1/projects/{pid}/export", params={"format": "mid"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "audio/midi"
    (tmp_path / "song.mid").write_bytes(answer.content)
    assert len(mido.MidiFile(tmp_path / "song.mid").tracks) >= 5


def test_variations_by_id_commit_undo_and_discard(served: tuple[TestClient, str, Path]) -> None:
    client, pid, folder = served
    vid = edit(folder, "make the bass busier").variation.id
    shown = client.get(f"/api/v1/variations/{vid}").json()
    assert shown["projectId"] == pid and shown["events"][0]["type"] == "meta" and shown["state"] == "ready"
    committed = client.post(f"/api/v1/variations/{vid}/commit", json={"acceptedPhraseIds": None})
    assert committed.json()["revision"] == 2
    again = client.post(f"/api/v1/variations/{vid}/commit")
    assert again.status_code == 409 and "committed" in again.json()["detail"]
    assert client.post(f"/api/v1/projects/{pid}/undo", json={"steps": 1}).json()["revision"] == 1
    assert client.post(f"/api/v1/projects/{pid}/redo").json()["revision"] == 2
    other = edit(folder, "simpler drums").variation.id
    assert client.post(f"/api/v1/variations/{other}/discard").json()["state"] == "discarded"
    assert client.get("/api/v1/variations/zzzz-unknown").status_code == 404
    bad = client.post(f"/api/v1/variations/{other}/commit", json={"acceptedPhraseIds": "all"})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("acceptedPhraseIds")


def test_the_openapi_document_and_the_tools(served: tuple[TestClient, str, Path]) -> None:
    client, _, _ = served
    document = client.get("/openapi.json").json()
    assert {"/api/v1/projects", "/api/v1/projects/{project_id}/export", "/api/v1/variations/{variation_id}/commit"} \
        <= set(document["paths"])
    assert document["components"]["schemas"]["HTTPValidationError"]["properties"] == {
        "detail": {"type": "string", "title": "Detail"}}
    tools = client.get("/api/v1/protocol/tools.json").json()["tools"]
    assert len(tools) == 32 and tools[0]["name"] == "read_project" and "parameters" in tools[0]


@pytest.mark.parametrize(("call", "field"), [
    ({}, "name"), ({"name": 7}, "name"), ({"name": None}, "name"), ({"name": "read_project", "args": "x"}, "args"),
    ({"name": "read_project", "args": [1]}, "args"), ({"name": "read_project", "extra": 1}, "extra"),
    ({"name": "x" * 101}, "name"),
])
def test_a_malformed_tool_call_is_a_422_naming_its_field(served: tuple[TestClient, str, Path], call: object,
                                                          field: str) -> None:
    client, project_id, _ = served
    answer = client.post(f"/api/v1/projects/{project_id}/tools", json={"calls": [{"name": "read_project"}, call]})
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert detail.startswith(f"call 1: {field}"), detail
    assert "\n" not in detail


@pytest.mark.parametrize("call", ["read_project", None, 3, []])
def test_a_call_that_is_not_an_object_is_named_by_the_route(served: tuple[TestClient, str, Path], call: object) -> None:
    client, project_id, _ = served
    answer = client.post(f"/api/v1/projects/{project_id}/tools", json={"calls": [call]})
    assert (answer.status_code, answer.json()["detail"]) == (422, "calls.0: Input should be a valid dictionary")
