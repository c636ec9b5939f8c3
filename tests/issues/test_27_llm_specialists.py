"""Issue 27 over real HTTP/SSE: `bandstand serve --backend openai` against a local
OpenAI-compatible model. A request the rules do not read is routed by the model to a
specialist, and that specialist is an LLM with its own prompt and only its subset of the
studio's tools (the peer checks both before it calls anything) — over the stream and over
MCP at /mcp, whose answer names the specialist and the tokens spent; a call outside the subset is
refused with the specialist's tools named. Every model turn is said as `budgetUpdate`, and `complete.usage` ends
with the same totals; a request the rules handle spends nothing and says no budget."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from bandstand.producer.requests.specialists import BRIEFS
from tests.e2e.sse import stream
from tests.peers.specialist_model import SpecialistModel
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

MIX_TOOLS = frozenset({"read_project", "set_track_volume", "set_track_pan", "mute_track", "solo_track",
                       "ensure_bus", "add_send", "add_automation"})
HARMONY_TOOLS = frozenset({"read_project", "set_key", "transpose_notes", "update_notes", "remove_notes",
                           "clear_notes"})


SERVERS: dict[str, Served] = {}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, str, SpecialistModel]]:
    out = tmp_path_factory.mktemp("specialists")
    expected = {"mix": (BRIEFS["mix"].prompt, MIX_TOOLS), "harmony": (BRIEFS["harmony"].prompt, HARMONY_TOOLS)}
    with SpecialistModel(expected) as peer, bandstand_server(
            "serve", "--members", "beat", "--out", str(out), "--backend", "openai", "--model", "local",
            "--base-url", peer.url + "/v1", env={"OPENAI_API_KEY": "test-key"}) as server, \
            httpx.Client(base_url=server.base, headers=server.headers, timeout=120) as http:
        made = http.post("api/v1/projects", json={"prompt": "funk groove in E minor with a synth pad", "seed": 3, "bars": 8})
        assert made.status_code == 201, made.text
        SERVERS["served"] = server
        yield http, made.json()["projectId"], peer


def scripted(specialist: str, *calls: tuple[str, dict[str, object]]) -> str:
    return ("[[calls]] " + json.dumps([{"name": n, "arguments": a} for n, a in calls])
            + f" [[specialist:{specialist}]]")


def test_the_mix_specialist_is_a_model_with_its_prompt_and_only_its_tools(
        served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    http, pid, peer = served
    asked = len(peer.seen)
    read = stream(http, scripted("mix", ("set_track_volume", {"track": "Drums", "volume": 0.3}),
                                 ("set_track_pan", {"track": "Bass", "pan": 0.4})), projectId=pid)
    assert read.events[0]["state"] == "EDITING" and read.events[0]["specialist"] == "mix"
    assert peer.complaints == [] and len(peer.seen) > asked
    system, tools = peer.seen[asked]
    assert system == BRIEFS["mix"].prompt and tools == MIX_TOOLS
    plan = read.one("plan")
    assert {s["agentId"] for s in plan["steps"]} == {"mix"}
    assert [e["name"] for e in read.events if e["type"] == "toolCall"] == ["set_track_volume", "set_track_pan"]
    assert read.events[-1]["success"] is True, read.events[-1]
    tracks = http.get(f"api/v1/projects/{pid}", params={"notes": False}).json()["project"]["tracks"]
    assert next(t for t in tracks if t["name"] == "Drums")["volume"] == pytest.approx(0.3)


def test_a_call_outside_the_specialists_tools_is_refused_and_nothing_changes(
        served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    http, pid, peer = served
    before = http.get(f"api/v1/projects/{pid}/history").json()["head"]
    read = stream(http, scripted("harmony", ("mute_track", {"track": "Drums"})), projectId=pid)
    assert read.events[0]["specialist"] == "harmony" and peer.complaints == []
    assert peer.seen[-1] == (BRIEFS["harmony"].prompt, HARMONY_TOOLS)
    error = read.one("toolError")
    assert error["error"].startswith("there is no tool 'mute_track'; the tools are read_project, set_key")
    assert read.types[-2:] == ["error", "complete"] and read.events[-1]["success"] is False
    assert http.get(f"api/v1/projects/{pid}/history").json()["head"] == before


def test_each_model_turn_is_a_budget_update_and_complete_has_the_totals(
        served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    http, pid, _ = served
    read = stream(http, scripted("mix", ("mute_track", {"track": "Pad"})), projectId=pid)
    budget = [e for e in read.events if e["type"] == "budgetUpdate"]
    assert [b["source"] for b in budget] == ["classify", "edit", "edit"]  # routing, the calls, the last word
    assert read.types.index("budgetUpdate") == 1  # the classifier's turn, said right after state
    for b in budget:
        assert b["turn"]["inputTokens"] > 0 and b["turn"]["outputTokens"] > 0
    assert [b["usage"]["inputTokens"] for b in budget] == [
        sum(x["turn"]["inputTokens"] for x in budget[:i + 1]) for i in range(len(budget))]
    complete = read.events[-1]
    assert complete["success"] is True and complete["usage"] == budget[-1]["usage"]


def test_a_request_the_rules_read_spends_nothing(served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    http, pid, _ = served
    read = stream(http, "drums too loud", projectId=pid)
    assert read.events[0]["specialist"] == "mix" and read.events[-1]["success"] is True
    assert "budgetUpdate" not in read.types
    assert read.events[-1]["usage"]["inputTokens"] == 0


def test_the_served_protocol_describes_budget_update(served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    http, _, _ = served
    studio = http.get("api/v1/protocol/events.json").json()["streams"]["studio"]["serverToClient"]
    assert set(studio["budgetUpdate"]["fields"]) >= {"type", "seq", "protocolVersion", "source", "turn", "usage"}
    schema = http.get("api/v1/protocol/schema.json").text
    assert "BudgetUpdate" in schema


def test_mcp_edit_goes_to_the_specialist_model_and_says_what_it_spent(
        served: tuple[httpx.Client, str, SpecialistModel]) -> None:
    pytest.importorskip("mcp.server", reason="the mcp extra")
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    _, pid, peer = served
    server = SERVERS["served"]
    asked = len(peer.seen)

    async def call() -> object:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}, timeout=120) as http, \
                Client(streamable_http_client(server.base + "mcp", http_client=http)) as client:
            return await client.call_tool("edit", {"project": pid, "request": scripted(
                "mix", ("set_track_pan", {"track": "Drums", "pan": 0.3}))})

    answer = anyio.run(call)
    assert not answer.is_error, answer.content[0].text  # type: ignore[attr-defined]
    data = answer.structured_content  # type: ignore[attr-defined]
    assert data["kind"] == "revision" and data["specialist"] == "mix", data
    assert data["usage"]["inputTokens"] > 0 and data["usage"]["outputTokens"] > 0
    assert peer.complaints == [] and peer.seen[asked] == (BRIEFS["mix"].prompt, MIX_TOOLS)


@pytest.mark.parametrize("name", sorted(BRIEFS))
def test_each_specialists_tools_are_studio_tools_the_editing_mode_allows(name: str) -> None:
    from bandstand.errors import InvalidInput
    from bandstand.studio.tools import TOOLS

    brief = BRIEFS[name]
    given = {s["name"] for s in TOOLS.schemas("editing", only=brief.tools)}
    assert given == (set(brief.tools) if brief.tools is not None else set(TOOLS.names("editing")))
    with pytest.raises(InvalidInput, match="no tool mute_trak; did you mean 'mute_track'"):
        TOOLS.schemas("editing", only=("mute_trak",))
