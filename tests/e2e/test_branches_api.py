"""Branches through a real `bandstand serve` and an HTTP client: make one, edit on it,
check out main (the exported song back to main's bytes), merge disjoint changes (both
present), a clashing merge refused naming the part and section (409), every bad name,
unknown branch and self-merge one line naming the field — and the access checks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio import Provenance, SeededIds
from tests.server.jam_process import Served, bandstand_server
from tests.studio.songs import small_song

pytestmark = pytest.mark.e2e

PID = "session-20260101-b7a9c3"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    out = tmp_path / "projects"
    create_from_song(out / PID, small_song(), Provenance(prompt="small", seeds={"song": 1}), ids=SeededIds(5))
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as found:
        yield found, out


@pytest.fixture
def client(served: tuple[Served, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served[0].base + f"api/v1/projects/{PID}/", headers=served[0].headers,
                      timeout=120) as http:
        yield http


def tool(client: httpx.Client, name: str, **args: object) -> int:
    answer = client.post("tools", json={"calls": [{"name": name, "args": args}]})
    assert answer.status_code == 200, answer.text
    return int(answer.json()["revision"])


def region(client: httpx.Client, track: str, section: str) -> str:
    project = client.get(str(client.base_url).rstrip("/"), params={"notes": False}).json()["project"]
    return next(r["id"] for t in project["tracks"] if t["name"] == track for r in t["regions"] if r["name"] == section)


def midi(client: httpx.Client) -> bytes:
    answer = client.get("export", params={"format": "mid"})
    assert answer.status_code == 200, answer.text
    return answer.content


def test_branch_checkout_and_merge_over_http(client: httpx.Client) -> None:
    on_main = midi(client)
    made = client.post("branches", json={"name": "quiet-bass"})
    assert made.status_code == 201, made.text
    assert made.json()["current"] == "quiet-bass"
    assert tool(client, "set_track_volume", track="Bass", volume=0.3) == 2
    assert midi(client) != on_main
    moved = client.post("checkout", json={"target": "main"})
    assert moved.json() == {"projectId": PID, "branch": "main", "revision": 1}
    assert midi(client) == on_main  # the export is main's song again, byte for byte
    assert tool(client, "transpose_notes", region=region(client, "Chords", "Chorus"), semitones=2) == 3
    merged = client.post("merge", json={"branch": "quiet-bass"})
    assert merged.status_code == 200, merged.text
    assert (merged.json()["revision"], merged.json()["merged"]) == (4, 2)
    tracks = {t["name"]: t for t in client.get(str(client.base_url).rstrip("/"), params={"notes": False}).json()["project"]["tracks"]}
    assert tracks["Bass"]["volume"] == 0.3
    listed = client.get("branches").json()
    assert listed["current"] == "main" and {b["name"]: b["head"] for b in listed["branches"]} == \
        {"main": 4, "quiet-bass": 2}
    assert [(g["graph"], g["revision"]) for g in listed["graph"]] == [
        ("*", 4), ("|\\", None), ("* |", 3), ("| *", 2), ("|/", None), ("*", 1)]
    assert listed["graph"][0]["labels"] == ["HEAD -> main"] and listed["graph"][3]["labels"] == ["quiet-bass"]
    assert client.post("undo").json()["revision"] == 3  # undo within main: back before the merge


def test_mistakes_are_one_line_with_their_status(client: httpx.Client, served: tuple[Served, Path]) -> None:
    chorus = region(client, "Bass", "Chorus")
    assert client.post("branches", json={"name": "up"}).status_code == 201
    tool(client, "transpose_notes", region=chorus, semitones=2)
    client.post("checkout", json={"target": "main"})
    tool(client, "transpose_notes", region=chorus, semitones=-2)
    before = client.get("branches").json()
    for path, body, status, words in (
            ("branches", {"name": "a/b"}, 422, "has '/' or '..'"),
            ("branches", {"name": "x..y"}, 422, "has '/' or '..'"),
            ("branches", {"name": ""}, 422, "the branch name is empty"),
            ("branches", {"name": "up"}, 409, "branch 'up' already exists"),
            ("branches", {}, 422, "name:"),
            ("checkout", {"target": "nope"}, 404, "there is no branch 'nope'"),
            ("checkout", {"target": "42"}, 404, "revision 42 does not exist"),
            ("merge", {"branch": "main"}, 422, "cannot merge branch 'main' into itself"),
            ("merge", {"branch": "nope"}, 404, "there is no branch 'nope'"),
            ("merge", {"branch": 3}, 422, "branch:"),
            ("merge", {"branch": "up"}, 409, "both branches changed Bass in Chorus (bars 13–16)")):
        answer = client.post(path, json=body)
        assert answer.status_code == status and words in answer.json()["detail"], (path, body, answer.text)
        assert "\n" not in answer.json()["detail"]
    assert client.get("branches").json() == before  # nothing changed
    base = served[0].base + f"api/v1/projects/{PID}/"
    assert httpx.post(base + "branches", json={"name": "z"}).status_code == 401
    foreign = httpx.post(base + "merge", json={"branch": "up"}, headers={**served[0].headers,
                                                                          "origin": "https://evil.example"})
    assert foreign.status_code == 403
    assert client.get("branches").json() == before
