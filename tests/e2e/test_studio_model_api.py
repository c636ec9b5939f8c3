"""`bandstand serve --backend openai` against a local OpenAI-compatible model
(real HTTP both ways): what the rules do not route the model routes; EDITING is
real tool calling — a made-up id is refused with a `toolError`, the model reads
it and fixes the call; three failed calls stop the retries and nothing changes;
a question is answered in the model's words, streamed. And `--backend anthropic`
against the local Anthropic peer: the same tool calling on the Messages wire."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.sse import stream
from tests.peers.studio_model import ANSWER, StudioAnthropic, StudioModel
from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, str]]:
    out = tmp_path_factory.mktemp("projects")
    with StudioModel() as peer, bandstand_server(
            "serve", "--members", "beat", "--out", str(out), "--backend", "openai", "--model", "local",
            "--base-url", peer.url + "/v1", env={"OPENAI_API_KEY": "test-key"}) as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=120) as http:
        made = http.post("api/v1/projects", json={"prompt": "funk groove in E minor", "seed": 3, "bars": 16})
        assert made.status_code == 201, made.text
        yield http, made.json()["projectId"]


def script(*calls: tuple[str, dict[str, object]]) -> str:
    return "[[calls]] " + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + " [[retry]]"


def test_a_made_up_id_is_refused_and_fixed(client: tuple[httpx.Client, str]) -> None:
    http, pid = client
    read = stream(http, script(("set_track_volume", {"track": "trk_0000_made_up", "volume": 0.5}),
                               ("mute_track", {"track": "Drums"})), projectId=pid)
    assert read.events[0]["state"] == "EDITING" and read.events[0]["intent"].startswith("llm.")
    error = read.one("toolError")
    assert "no track 'trk_0000_made_up'" in error["error"]
    assert [(e["name"], e["stepId"]) for e in read.events if e["type"] == "toolCall"] == [
        ("mute_track", "s2"), ("set_track_volume", "s1")]
    assert read.events[-1]["success"] and read.events[-1]["revision"] == 2
    tracks = http.get(f"api/v1/projects/{pid}", params={"notes": False}).json()["project"]["tracks"]
    assert next(t for t in tracks if t["name"] == "Drums")["mute"] is True


def test_three_failed_calls_stop_the_retries(client: tuple[httpx.Client, str]) -> None:
    http, pid = client
    before = http.get(f"api/v1/projects/{pid}/history").json()["head"]
    read = stream(http, script(*[("set_track_pan", {"track": f"ghost {i}", "pan": 0.1}) for i in range(5)]),
                  projectId=pid)
    assert len([e for e in read.events if e["type"] == "toolError"]) == 3
    assert read.types[-2:] == ["error", "complete"] and "stopped after 3 failed tool calls" in read.events[-1]["error"]
    assert http.get(f"api/v1/projects/{pid}/history").json()["head"] == before


def test_a_question_is_answered_in_the_models_words(client: tuple[httpx.Client, str]) -> None:
    http, pid = client
    read = stream(http, "why does the chorus feel flat?", projectId=pid)
    assert read.types[0:2] == ["state", "reasoning"] and read.events[0]["executionMode"] == "none"
    assert "".join(e["content"] for e in read.events if e["type"] == "content") == ANSWER


def test_serve_with_an_anthropic_model_edits_with_its_tool_calls(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`bandstand serve --backend anthropic` against the local Anthropic peer: the same EDITING
    by tool calls, on the Messages API's wire (tool_use blocks, tool_result answers)."""
    out = tmp_path_factory.mktemp("anthropic")
    with StudioAnthropic() as peer, bandstand_server(
            "serve", "--members", "beat", "--out", str(out), "--backend", "anthropic", "--model", "claude-haiku-4-5",
            "--base-url", peer.url, env={"ANTHROPIC_API_KEY": "test-key"}) as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=120) as http:
        made = http.post("api/v1/projects", json={"prompt": "funk groove in E minor", "seed": 3, "bars": 8})
        pid = made.json()["projectId"]
        read = stream(http, script(("set_track_volume", {"track": "trk_0000_made_up", "volume": 0.5}),
                                   ("mute_track", {"track": "Drums"})), projectId=pid)
        assert read.events[0]["state"] == "EDITING" and read.events[0]["intent"].startswith("llm.")
        assert "no track 'trk_0000_made_up'" in read.one("toolError")["error"]
        assert read.events[-1]["success"] and read.events[-1]["revision"] == 2
        sent = [r["body"] for r in peer.requests if r["body"].get("tools")]
        assert sent and all("input_schema" in t for t in sent[0]["tools"])
        assert any(b.get("type") == "tool_result" for r in sent for m in r["messages"]
                   if isinstance(m.get("content"), list) for b in m["content"])
