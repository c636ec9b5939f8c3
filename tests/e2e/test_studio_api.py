"""The studio API through a real `bandstand serve` process and an HTTP client:
each mode's exact event order over SSE (every event valid against the
protocol's schema), a plan with a refused step, a composition reviewed,
committed, exported and undone, conversations, a client that leaves (its work
stops; nothing is left running), the protocol documents, and the access
checks on the stream."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import mido
import pytest

from tests.e2e.sse import Read, stream
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

COMPOSE = """BANDSTAND PROMPT
Mode: compose
Style: funk
Tempo: 96
Key: E minor
Roles: [drums, bass, keys]
Bars: 16
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    out = tmp_path_factory.mktemp("projects")
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as found:
        yield found, out


@pytest.fixture(scope="module")
def client(served: tuple[Served, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served[0].base, headers=served[0].headers, timeout=120) as http:
        yield http


@pytest.fixture(scope="module")
def song(client: httpx.Client) -> str:
    made = client.post("api/v1/projects", json={"prompt": "funk groove in E minor", "seed": 3, "bars": 32})
    assert made.status_code == 201, made.text
    return str(made.json()["projectId"])


@pytest.fixture(scope="module")
def validator(client: httpx.Client) -> Any:
    document = client.get("api/v1/protocol/schema.json").json()
    return jsonschema.Draft202012Validator({**document, "$ref": "#/$defs/studio.serverToClient"})


def valid(read: Read, validator: Any) -> Read:
    assert read.status == 200 and read.events[0]["type"] == "state" and read.types[-1] == "complete", read
    for event in read.events:
        validator.validate(event)
    return read


def test_each_mode_says_its_events_in_order(client: httpx.Client, song: str, validator: Any) -> None:
    asked = valid(stream(client, "what key is this in?", projectId=song), validator)
    assert asked.types == ["state", "reasoning", "reasoning", "content", "complete"]
    assert asked.events[0]["executionMode"] == "none" and "minor" in asked.one("content")["content"]

    edited = valid(stream(client, "mute the drums and pan the bass left", projectId=song), validator)
    step = ["planStepUpdate", "toolStart", "toolCall", "planStepUpdate", "progress"]
    assert edited.types == ["state", "plan", "planSummary", *step, *step, "summary.final", "complete"]
    assert [s["label"] for s in edited.one("plan")["steps"]] == ["Mute Drums", "Pan Bass 50% left"]
    assert edited.events[-1]["revision"] == 2 and edited.headers["x-bandstand-project"] == song

    composed = valid(stream(client, "make the bass busier", projectId=song), validator)
    kinds = composed.types
    assert kinds[:4] == ["state", "status", "generatorStart", "generatorComplete"]
    meta, done = kinds.index("meta"), kinds.index("done")
    assert set(kinds[meta + 1:done]) == {"phrase"} and kinds[done:] == ["done", "summary.final", "complete"]
    assert composed.events[-1]["variationId"] == composed.one("meta")["variationId"]
    assert all(e["label"].startswith("Bass · bars ") for e in composed.events if e["type"] == "phrase")
    assert client.post(f"api/v1/variations/{composed.events[-1]['variationId']}/discard").json()["state"] == "discarded"


def test_a_refused_step_skips_the_rest_and_changes_nothing(client: httpx.Client, song: str, validator: Any) -> None:
    before = client.get(f"api/v1/projects/{song}", params={"notes": False}).json()["revision"]
    read = valid(stream(client, "set the tempo to 100, rename the bass to Drums and pan the keys left", projectId=song),
                 validator)
    updates = [(e["stepId"], e["status"]) for e in read.events if e["type"] == "planStepUpdate"]
    assert updates == [("s1", "active"), ("s1", "completed"), ("s2", "active"), ("s2", "failed"), ("s3", "skipped")]
    assert read.types[-2:] == ["error", "complete"] and read.events[-1]["success"] is False
    assert client.get(f"api/v1/projects/{song}", params={"notes": False}).json()["revision"] == before


def test_a_composition_is_reviewed_committed_exported_and_undone(client: httpx.Client, validator: Any,
                                                                 tmp_path: Path) -> None:
    read = valid(stream(client, COMPOSE), validator)
    pid, vid = read.events[0]["projectId"], read.events[-1]["variationId"]
    assert read.one("plan")["title"] == "Building a funk groove" and read.events[-1]["revision"] == 1
    shown = client.get(f"api/v1/variations/{vid}").json()
    assert shown["events"][0]["type"] == "meta" and shown["events"][-1]["type"] == "done"
    assert [e["phraseId"] for e in shown["events"][1:-1]] == [e["phraseId"] for e in read.events
                                                              if e["type"] == "phrase"]
    committed = client.post(f"api/v1/variations/{vid}/commit", json={})
    assert committed.status_code == 200 and committed.json()["revision"] == 2
    again = client.post(f"api/v1/variations/{vid}/commit", json={})
    assert again.status_code == 409 and "committed" in again.json()["detail"]
    exported = client.get(f"api/v1/projects/{pid}/export", params={"format": "mid"})
    assert exported.status_code == 200 and exported.headers["content-type"] == "audio/midi"
    (tmp_path / "song.mid").write_bytes(exported.content)
    assert sum(1 for t in mido.MidiFile(tmp_path / "song.mid").tracks if any(m.type == "note_on" for m in t)) == 3
    assert client.post(f"api/v1/projects/{pid}/undo", json={"steps": 1}).json()["revision"] == 1
    assert client.get(f"api/v1/projects/{pid}").json()["project"]["tracks"] == []
    assert client.post(f"api/v1/projects/{pid}/redo").json()["revision"] == 2
    history = client.get(f"api/v1/projects/{pid}/history").json()["entries"]
    assert [e["kind"] for e in history] == ["compose", "variation"]


def test_conversations_carry_the_project_and_what_it_was_about(client: httpx.Client, song: str) -> None:
    started = client.post("api/v1/conversations", json={"projectId": song})
    assert started.status_code == 201
    cid = started.json()["conversationId"]
    first = stream(client, "add a string pad to the chorus", conversationId=cid)
    assert first.events[0]["projectId"] == song and first.events[-1]["success"]
    client.post(f"api/v1/variations/{first.events[-1]['variationId']}/commit", json={})
    second = stream(client, "make it busier", conversationId=cid)
    assert {e["role"] for e in second.events if e["type"] == "generatorStart"} == {"pad"}
    turns = client.get(f"api/v1/conversations/{cid}").json()["turns"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    assert cid in [c["conversationId"] for c in client.get("api/v1/conversations").json()["conversations"]]
    assert client.get("api/v1/conversations/conv-0000000000000000").status_code == 404


def _first_generator(served: Served, prompt: str) -> tuple[socket.socket, str]:
    """Start a stream on a raw socket, read up to its first generatorStart; return the socket
    (still open) and the project's id."""
    host, port = served.base.split("//")[1].strip("/").split(":")
    body = json.dumps({"prompt": prompt}).encode()
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.sendall(b"POST /api/v1/stream HTTP/1.1\r\nHost: " + f"{host}:{port}".encode() +
                 f"\r\nAuthorization: Bearer {served.token}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    seen = b""
    while b'"type":"generatorStart"' not in seen:
        chunk = sock.recv(65536)
        assert chunk, seen[-500:]
        seen += chunk
    project = seen.split(b"x-bandstand-project: ", 1)[1].split(b"\r\n", 1)[0].decode()
    return sock, project


def test_a_client_that_leaves_cancels_its_work(served: tuple[Served, Path], client: httpx.Client) -> None:
    big = COMPOSE.replace("Bars: 16", "Bars: 512").replace("[drums, bass, keys]", "[drums, bass, keys, lead, pad, arp]")
    sock, pid = _first_generator(served[0], big)
    assert client.get("api/v1/streams").json()["streams"]
    sock.close()
    deadline = time.monotonic() + 20
    while client.get("api/v1/streams").json()["streams"] and time.monotonic() < deadline:
        time.sleep(0.05)
    # a stream leaves the list only once its work has stopped: what it left is final now
    assert client.get("api/v1/streams").json()["streams"] == []
    assert client.get(f"api/v1/projects/{pid}/variations").json()["variations"] == []
    assert not list((served[1] / pid).glob("variations/*.json"))
    assert client.get("api/v1/protocol").status_code == 200  # the server goes on


def test_mistakes_are_one_line_and_the_stream_is_protected(served: tuple[Served, Path], client: httpx.Client,
                                                          song: str) -> None:
    assert stream(client, "blorp the flux", projectId=song).error.startswith("not understood: 'blorp the flux'")
    unknown = stream(client, "mute the drums", projectId="session-20200101-000000")
    assert unknown.status == 404
    missing = client.post("api/v1/stream", json={})
    assert missing.status_code == 422 and missing.json()["detail"] == "prompt: Field required"
    # an unknown field is a warning, not a refusal; an edit with nothing else in it asks for nothing
    structured = stream(client, "BANDSTAND PROMPT\nMode: edit\nTempoo: 90", projectId=song)
    assert structured.status == 422 and "asks for no change" in str(structured.error)
    assert "did you mean 'Tempo'?" in str(structured.error)
    base = served[0].base
    body = {"prompt": "what key is this in?", "projectId": song}
    assert httpx.post(base + "api/v1/stream", json=body).status_code == 401
    foreign = httpx.post(base + "api/v1/stream", json=body, headers={**served[0].headers, "origin": "https://evil.example"})
    assert foreign.status_code == 403
    port = base.rstrip("/").rsplit(":", 1)[1]
    rebound = httpx.post(base + "api/v1/stream", json=body, headers={**served[0].headers, "host": f"evil.example:{port}"})
    assert rebound.status_code == 403
    with httpx.Client(follow_redirects=True) as browser:  # the page: the printed URL, then its cookie
        assert browser.get(served[0].url).status_code == 200
        with browser.stream("POST", base + "api/v1/stream", json=body,
                            headers={"origin": base.rstrip("/")}) as answer:
            assert answer.status_code == 200 and b'"type":"complete"' in answer.read()


def test_preview_and_the_protocol_documents(client: httpx.Client, song: str) -> None:
    shown = client.post("api/v1/preview", json={"prompt": "mute the drums and set the tempo to 90", "projectId": song})
    assert shown.status_code == 200 and shown.json()["executionMode"] == "apply"
    assert shown.json()["plan"]["steps"][0]["label"] == "Set tempo to 90 BPM"
    about = client.get("api/v1/protocol").json()
    assert "state" in about["streams"]["studio"]["serverToClient"] and about["tools"] >= 30
    tools = client.get("api/v1/protocol/tools.json").json()["tools"]
    assert {"set_tempo", "generate_part", "add_insert_effect"} <= {t["name"] for t in tools}
    events = client.get("api/v1/protocol/events.json").json()["streams"]["studio"]["serverToClient"]
    assert "projectId" in events["state"]["fields"] and "variationId" in events["complete"]["fields"]
    paths = set(client.get("openapi.json").json()["paths"])
    assert {"/api/v1/stream", "/api/v1/preview", "/api/v1/projects", "/api/v1/projects/{project_id}/undo",
            "/api/v1/variations/{variation_id}/commit", "/api/v1/conversations"} <= paths


def test_renders_from_the_server_run_side_by_side(client: httpx.Client, song: str) -> None:
    """Several WAV exports at once, of two songs, from the threaded server: the synthesis runs on
    threads of the serving process (no fork from a process with threads, which could deadlock
    on a lock another thread held), every render completes, and a song renders the same bytes
    whoever asked and whatever ran beside it."""
    from concurrent.futures import ThreadPoolExecutor

    other = client.post("api/v1/projects", json={"prompt": "slow jazz ballad, warm piano", "seed": 5, "bars": 16})
    assert other.status_code == 201, other.text
    second = str(other.json()["projectId"])

    def wav(project: str) -> bytes:
        got = client.get(f"api/v1/projects/{project}/export", params={"format": "wav"})
        assert got.status_code == 200, got.text
        return got.content

    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(wav, [song, second, song, second]))
    assert all(d[:4] == b"RIFF" and d[8:12] == b"WAVE" and len(d) > 100_000 for d in done)
    assert done[0] == done[2] == wav(song)
    assert done[1] == done[3] == wav(second)
    assert done[0] != done[1]
