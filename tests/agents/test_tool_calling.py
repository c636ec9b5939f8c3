"""Real tool calling through the openai and anthropic backends, against the local
peers speaking the APIs' tool-call wire formats (plain and streamed): several
calls per turn, results round-tripped through the session's history, an
unknown tool, malformed arguments, tool_choice, and a peer that times out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bandstand.agents import Message, ToolCall, ToolResult, ToolSpec, TurnRequest
from bandstand.agents.anthropic_backend import AnthropicBackend
from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.agents.tools import check_results, check_tools, error_result, read_call
from bandstand.errors import CircuitOpen, InvalidInput, TurnFailed, TurnTimeout
from bandstand.runtime import Session, SessionLimits
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.openai_server import OpenAIServer

TOOLS = (
    ToolSpec("set_tempo", "Set the song's tempo in BPM.",
             {"type": "object", "properties": {"bpm": {"type": "number", "minimum": 40, "maximum": 240}}, "required": ["bpm"]}),
    ToolSpec("add_midi_track", "Add a MIDI track.",
             {"type": "object", "properties": {"name": {"type": "string"}, "gm_program": {"type": "integer"}}, "required": ["name"]}),
)


def calls(*items: tuple[str, Any], text: str = "") -> str:
    """A user message that makes the peer call these tools (see tests.peers.tool_script)."""
    return "[[calls]] " + json.dumps({"text": text, "calls": [{"name": n, "arguments": a} for n, a in items]})


@pytest.fixture(params=["openai-stream", "openai-plain", "anthropic-stream", "anthropic-plain"])
async def peer(request, openai_server: OpenAIServer, anthropic_server: AnthropicServer) -> AsyncIterator[tuple]:
    kind, mode = request.param.split("-")
    common = {"api_key": "test-key", "stream": mode == "stream", "backoff": 0.001, "breaker_threshold": 2}
    if kind == "openai":
        backend: Any = OpenAIBackend(base_url=openai_server.url + "/v1", model="local-model", **common)
        server: Any = openai_server
    else:
        backend = AnthropicBackend(base_url=anthropic_server.url, model="claude-haiku-4-5", **common)
        server = anthropic_server
    yield kind, mode, backend, server
    await backend.aclose()


async def test_several_calls_in_one_turn_and_the_results_go_back(peer) -> None:
    kind, _mode, backend, server = peer
    async with Session(backend, persona="You are the studio.") as session:
        first = await session.send(calls(("set_tempo", {"bpm": 96}), ("add_midi_track", {"name": "Bass", "gm_program": 33}),
                                         text="Building a funk groove."), tools=TOOLS)
        assert [(c.name, dict(c.arguments), c.error) for c in first.tool_calls] == [
            ("set_tempo", {"bpm": 96}, None), ("add_midi_track", {"name": "Bass", "gm_program": 33}, None)]
        ids = [c.id for c in first.tool_calls]
        assert len(set(ids)) == 2 and all(i.startswith("call_" if kind == "openai" else "toolu_") for i in ids)
        assert first.text == "Building a funk groove."
        results = [ToolResult(ids[0], "tempo is 96 BPM"), ToolResult(ids[1], '{"trackId": "t-1"}')]
        second = await session.send("", tool_results=results, tools=TOOLS)
    assert second.tool_calls == ()
    assert json.loads(second.text) == {"results": [
        {"id": ids[0], "content": "tempo is 96 BPM", "isError": False},
        {"id": ids[1], "content": '{"trackId": "t-1"}', "isError": False}]}
    sent = server.requests[-1]["body"]
    if kind == "openai":  # the assistant's calls echoed, then one tool message per call
        assistant, *answers = sent["messages"][-3:]
        assert assistant["role"] == "assistant" and [c["id"] for c in assistant["tool_calls"]] == ids
        assert assistant["tool_calls"][0]["function"] == {"name": "set_tempo", "arguments": '{"bpm": 96}'}
        assert [(m["role"], m["tool_call_id"]) for m in answers] == [("tool", ids[0]), ("tool", ids[1])]
        assert sent["tools"][0] == {"type": "function", "function": {
            "name": "set_tempo", "description": "Set the song's tempo in BPM.", "parameters": dict(TOOLS[0].parameters)}}
    else:  # text + tool_use blocks, then one user message with a tool_result block per call
        assistant, answer = sent["messages"][-2:]
        assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use"]
        assert [b["tool_use_id"] for b in answer["content"]] == ids and answer["role"] == "user"
        assert sent["tools"][1]["input_schema"] == dict(TOOLS[1].parameters)
    assert session.history[1].tool_calls == first.tool_calls and session.history[2].tool_results == tuple(results)


async def test_an_unknown_tool_and_malformed_arguments_come_back_flagged(peer) -> None:
    kind, mode, backend, _server = peer
    async with Session(backend) as session:
        asked = await session.send(calls(("set_temp", {"bpm": 96}), ("set_tempo", '{"bpm": 96'), ("set_tempo", "[96]")),
                                   tools=TOOLS)
        unknown, torn, listed = asked.tool_calls
        assert unknown.error == "there is no tool 'set_temp'; did you mean set_tempo?"
        assert torn.error is not None and torn.arguments == {}
        if kind == "anthropic" and mode == "plain":  # the Messages API only ever sends input objects
            assert "must be a JSON object" in torn.error
        else:
            assert "not valid JSON" in torn.error and torn.raw == '{"bpm": 96'
        assert listed.error == "the arguments must be a JSON object, not list"
        answered = await session.send("", tool_results=[error_result(c) for c in asked.tool_calls])
    results = json.loads(answered.text)["results"]
    assert results[0]["content"] == "error: there is no tool 'set_temp'; did you mean set_tempo?"
    assert all(r["isError"] for r in results) or kind == "openai"  # OpenAI's tool messages have no error flag


async def test_tool_choice_none_suppresses_calls_and_required_is_sent(peer) -> None:
    kind, _mode, backend, server = peer
    async with Session(backend) as session:
        plain = await session.send(calls(("set_tempo", {"bpm": 90})), tools=TOOLS, tool_choice="none")
        assert plain.tool_calls == () and "echo" in plain.text
        forced = await session.send(calls(("set_tempo", {"bpm": 90})), tools=TOOLS, tool_choice="set_tempo")
        assert [c.name for c in forced.tool_calls] == ["set_tempo"]
    body = server.requests[-1]["body"]
    want = {"type": "function", "function": {"name": "set_tempo"}} if kind == "openai" else {"type": "tool", "name": "set_tempo"}
    assert body["tool_choice"] == want
    assert server.requests[-2]["body"]["tool_choice"] == ("none" if kind == "openai" else {"type": "none"})


async def test_results_must_answer_exactly_the_calls(peer) -> None:
    _kind, _mode, backend, server = peer
    async with Session(backend) as session:
        asked = await session.send(calls(("set_tempo", {"bpm": 96}), ("set_tempo", {"bpm": 97})), tools=TOOLS)
        first = asked.tool_calls[0]
        with pytest.raises(TurnFailed, match="no result for " + asked.tool_calls[1].id):
            await session.send("", tool_results=[ToolResult(first.id, "ok")])
        with pytest.raises(TurnFailed, match="no call nope to answer"):
            await session.send("", tool_results=[ToolResult(c.id, "ok") for c in asked.tool_calls] + [ToolResult("nope", "x")])
        requests = len(server.requests)
        done = await session.send("", tool_results=[ToolResult(c.id, "ok") for c in asked.tool_calls])
        assert len(server.requests) == requests + 1 and len(json.loads(done.text)["results"]) == 2


async def test_the_peers_refuse_a_history_that_leaves_calls_unanswered(openai_server: OpenAIServer,
                                                                          anthropic_server: AnthropicServer) -> None:
    # what a backend that forgot the results would get from the real APIs: HTTP 400, not retried
    for backend in (OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key", backoff=0.001),
                    AnthropicBackend(base_url=anthropic_server.url, api_key="test-key", backoff=0.001)):
        conversation = await backend.open("", {})
        history = (Message("user", "tempo please"), Message("assistant", "", (ToolCall("call_9", "set_tempo", {"bpm": 96}),)))
        requests = len(backend_server(backend, openai_server, anthropic_server).requests)
        with pytest.raises(TurnFailed, match=r"400.*call_9") as failed:
            await conversation.turn(TurnRequest("go on", history, tools=TOOLS), lambda *_: None)
        assert not failed.value.retryable
        assert len(backend_server(backend, openai_server, anthropic_server).requests) == requests + 1
        await backend.aclose()


def backend_server(backend: Any, openai_server: OpenAIServer, anthropic_server: AnthropicServer) -> Any:
    return openai_server if isinstance(backend, OpenAIBackend) else anthropic_server


async def test_a_peer_that_times_out_is_retried_then_the_breaker_opens(openai_server: OpenAIServer) -> None:
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key", backoff=0.001,
                            breaker_threshold=2, breaker_cooldown=60, request_timeout=0.3, retries=2)
    try:
        async with Session(backend, limits=SessionLimits(turn_timeout=30, max_consecutive_failures=10)) as session:
            for _ in range(2):
                with pytest.raises(TurnFailed, match=r"connection failed|timed out|Timeout"):
                    await session.send("[[slow:2]]" + calls(("set_tempo", {"bpm": 96})), tools=TOOLS)
            slow_requests = len(openai_server.requests)
            assert slow_requests == 4  # two attempts per turn
            with pytest.raises(CircuitOpen):
                await session.send(calls(("set_tempo", {"bpm": 96})), tools=TOOLS)
            assert len(openai_server.requests) == slow_requests  # the open breaker sent nothing
    finally:
        await backend.aclose()


async def test_a_turn_that_hangs_times_out_and_the_session_goes_on(anthropic_server: AnthropicServer) -> None:
    backend = AnthropicBackend(base_url=anthropic_server.url, api_key="test-key", backoff=0.001)
    try:
        async with Session(backend, limits=SessionLimits(turn_timeout=60)) as session:
            with pytest.raises(TurnTimeout):  # only the hanging turn has a short limit: the next must not race it
                await session.send("[[hang]]", tools=TOOLS, timeout=0.5)
            asked = await session.send(calls(("set_tempo", {"bpm": 100})), tools=TOOLS)
            assert asked.tool_calls[0].arguments == {"bpm": 100}
    finally:
        await backend.aclose()


def test_the_shared_rules() -> None:
    check_tools(TOOLS, "auto")
    for tools, choice, word in ((TOOLS, "play", "tool_choice 'play'"), ((), "required", "needs at least one tool"),
                                ((ToolSpec("bad name", "x"),), "auto", "1-64 letters"),
                                ((ToolSpec("x", "x", {"type": "array"}),), "auto", "type 'object'"),
                                ((TOOLS[0], TOOLS[0]), "auto", "unique")):
        with pytest.raises(InvalidInput, match=word):
            check_tools(tools, choice)
    assert read_call("c1", "set_tempo", {"bpm": 90}, TOOLS) == ToolCall("c1", "set_tempo", {"bpm": 90}, '{"bpm": 90}')
    assert read_call("c1", "set_tempo", "", TOOLS).arguments == {}  # no arguments at all is an empty object
    assert read_call("c1", "x" * 80, "{}", ()).error == f"there is no tool '{'x' * 80}'"
    check_results([], [])
    with pytest.raises(InvalidInput, match="more than one result for a"):
        check_results([ToolCall("a", "t")], [ToolResult("a", "1"), ToolResult("a", "2")])


async def test_sixteen_sessions_call_tools_at_once(openai_server: OpenAIServer) -> None:
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key")

    async def one(n: int) -> str:
        async with Session(backend, name=f"s{n}") as session:
            asked = await session.send(calls(("set_tempo", {"bpm": 60 + n})), tools=TOOLS)
            done = await session.send("", tool_results=[ToolResult(asked.tool_calls[0].id, f"bpm {60 + n}")])
            return json.loads(done.text)["results"][0]["content"]

    try:
        assert await asyncio.gather(*(one(n) for n in range(16))) == [f"bpm {60 + n}" for n in range(16)]
    finally:
        await backend.aclose()
