"""Tool calling through the claude-code backend: the fake CLI speaks the SDK MCP
bridge of CLI 2.1.332 (tools/list and tools/call over the control channel);
the same flow also runs against the real bundled CLI and the local Anthropic
peer when the claude-agent-sdk wheel ships the binary."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bandstand.agents import ClaudeCodeBackend, ProcessRegistry, ToolResult, ToolSpec
from bandstand.agents.claude_tools import ToolBridge
from bandstand.errors import TurnFailed
from bandstand.runtime import Session, SessionLimits
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.claude import fake_claude_bin, process_exists

TOOLS = (
    ToolSpec("set_tempo", "Set the tempo in BPM.", {"type": "object", "properties": {"bpm": {"type": "number"}}}),
    ToolSpec("add_midi_track", "Add a MIDI track.", {"type": "object", "properties": {"name": {"type": "string"}}}),
)


def calls(*items: tuple[str, Any], text: str = "") -> str:
    return "[[calls]] " + json.dumps({"text": text, "calls": [{"name": n, "arguments": a} for n, a in items]})


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def logged_backend(tmp_path: Path) -> Any:
    log = tmp_path / "stdin.jsonl"
    backend = ClaudeCodeBackend(bin=str(fake_claude_bin(tmp_path / "bin", env={"FAKE_CLAUDE_LOG": str(log)})),
                                registry=ProcessRegistry(tmp_path / "pids"), init_timeout=10, term_grace=0.5)
    yield backend, log
    backend.registry.reap_own()


async def test_several_calls_go_to_the_host_and_the_results_back_to_the_model(logged_backend) -> None:
    backend, log = logged_backend
    async with Session(backend, options={"tools": TOOLS}) as session:
        asked = await session.send(calls(("set_tempo", {"bpm": 96}), ("add_midi_track", {"name": "Bass"}),
                                         text="Building a funk groove."), tools=TOOLS)
        assert [(c.name, dict(c.arguments), c.error) for c in asked.tool_calls] == [
            ("set_tempo", {"bpm": 96}, None), ("add_midi_track", {"name": "Bass"}, None)]
        assert asked.text == "Building a funk groove." and asked.tool_calls[0].id.startswith("toolu_")
        first, second = asked.tool_calls
        done = await session.send("", tool_results=[ToolResult(first.id, "tempo is 96"),
                                                    ToolResult(second.id, "no such program", is_error=True)], tools=TOOLS)
        assert json.loads(done.text) == {"results": [
            {"id": first.id, "content": "tempo is 96", "isError": False},
            {"id": second.id, "content": "no such program", "isError": True}]}
        assert done.tool_calls == () and session.turns == 2
        again = await session.send("[[say]] and now?", tools=TOOLS)  # the same process goes on
        assert again.text == "and now?"
    lines = logged(log)
    answers = [m["response"]["response"]["mcp_response"] for m in lines if m.get("type") == "control_response"]
    listed = next(a["result"]["tools"] for a in answers if "tools" in a.get("result", {}))
    assert [t["name"] for t in listed] == ["set_tempo", "add_midi_track"] and listed[0]["inputSchema"]["type"] == "object"
    results = [a["result"] for a in answers if "content" in a.get("result", {})]
    assert results == [{"content": [{"type": "text", "text": "tempo is 96"}], "isError": False},
                       {"content": [{"type": "text", "text": "no such program"}], "isError": True}]
    assert sum(m.get("type") == "user" for m in lines) == 2  # the results turn wrote no user line


async def test_an_unknown_tool_and_a_bad_input_are_flagged_and_the_cli_answers_them(logged_backend) -> None:
    backend, _log = logged_backend
    async with Session(backend, options={"tools": TOOLS}) as session:
        asked = await session.send(calls(("set_temp", {"bpm": 96}), ("set_tempo", "[96]"), ("set_tempo", {"bpm": 90})),
                                   tools=TOOLS)
        unknown, bad, good = asked.tool_calls
        assert unknown.error is not None and "set_temp" in unknown.error
        assert bad.error == "the arguments must be a JSON object, not list"
        assert good.error is None
        done = await session.send("", tool_results=[ToolResult(unknown.id, "error: unknown", True),
                                                    ToolResult(bad.id, "error: bad", True), ToolResult(good.id, "ok")])
    results = json.loads(done.text)["results"]
    assert [r["isError"] for r in results] == [True, True, False]
    assert "No such tool available" in results[0]["content"] and "InputValidationError" in results[1]["content"]
    assert results[2]["content"] == "ok"  # only the good call reached the host


async def test_a_new_tool_set_restarts_the_process_with_the_conversation(logged_backend) -> None:
    backend, log = logged_backend
    async with Session(backend) as session:
        plain = await session.send("[[say]] hello")
        assert plain.text == "hello"
        asked = await session.send(calls(("set_tempo", {"bpm": 120})), tools=TOOLS)
        assert [c.name for c in asked.tool_calls] == ["set_tempo"]
        await session.send("", tool_results=[ToolResult(asked.tool_calls[0].id, "ok")])
    users = [m for m in logged(log) if m.get("type") == "user"]
    assert "replayed after a restart" in users[-1]["message"]["content"]


async def test_results_with_nothing_waiting_or_with_text_are_refused(logged_backend) -> None:
    backend, _log = logged_backend
    conversation = await backend.open("", {"tools": TOOLS})
    try:
        from bandstand.agents import TurnRequest

        with pytest.raises(TurnFailed, match="no tool calls waiting"):
            await conversation.turn(TurnRequest("", tool_results=(ToolResult("toolu_x", "ok"),), tools=TOOLS), lambda *_: None)
        asked = await conversation.turn(TurnRequest(calls(("set_tempo", {"bpm": 1})), tools=TOOLS), lambda *_: None)
        with pytest.raises(TurnFailed, match="carries only the results"):
            await conversation.turn(TurnRequest("and more", tool_results=(ToolResult(asked.tool_calls[0].id, "ok"),),
                                                tools=TOOLS), lambda *_: None)
    finally:
        await conversation.close()


async def test_stop_while_the_cli_waits_for_a_result_leaves_no_process(logged_backend) -> None:
    backend, _log = logged_backend
    session = Session(backend, options={"tools": TOOLS}, limits=SessionLimits(turn_timeout=10))
    asked = await session.send(calls(("set_tempo", {"bpm": 96})), tools=TOOLS)
    assert asked.tool_calls and len(backend.registry.entries()) == 1
    pid = backend.registry.entries()[0]["pid"]
    await session.stop()
    assert backend.registry.entries() == [] and not process_exists(pid)


def test_the_bridge_answers_mcp_and_holds_early_results() -> None:
    bridge = ToolBridge(TOOLS)
    init = bridge.control({"request_id": "r1", "request": {"subtype": "mcp_message", "server_name": "bandstand",
                                                          "message": {"method": "initialize", "id": 0, "params": {}}}})
    assert init is not None and init["response"]["response"]["mcp_response"]["result"]["serverInfo"]["name"] == "bandstand"
    bridge.block({"type": "tool_use", "id": "toolu_1", "name": "mcp__bandstand__set_tempo", "input": {"bpm": 1}})
    assert bridge.answer([ToolResult("toolu_1", "early")]) == []  # no request yet: kept
    call = {"request_id": "r2", "request": {"subtype": "mcp_message", "server_name": "bandstand", "message": {
        "method": "tools/call", "id": 5, "params": {"name": "set_tempo", "arguments": {"bpm": 1}}}}}  # no _meta: matched
    answered = bridge.control(call)
    assert answered is not None and answered["response"]["response"]["mcp_response"]["result"]["content"][0]["text"] == "early"
    unknown = bridge.control({"request_id": "r3", "request": {"subtype": "mcp_message", "server_name": "bandstand",
                                                             "message": {"method": "resources/list", "id": 6}}})
    assert unknown is not None and unknown["response"]["response"]["mcp_response"]["error"]["code"] == -32601


def _bundled_cli() -> str | None:
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(path) if path.exists() and os.access(path, os.X_OK) else None


@pytest.mark.skipif(_bundled_cli() is None, reason="the claude-agent-sdk wheel with its bundled CLI is not installed")
async def test_the_real_cli_calls_our_tools_through_the_local_anthropic_peer(tmp_path: Path) -> None:
    with AnthropicServer(api_key="test-key") as peer:
        backend = ClaudeCodeBackend(
            bin=str(_bundled_cli()), bare=True, model="claude-haiku-4-5", registry=ProcessRegistry(tmp_path / "pids"),
            init_timeout=60, env={"ANTHROPIC_BASE_URL": peer.url, "ANTHROPIC_API_KEY": "test-key",
                                  "HOME": str(tmp_path), "DISABLE_AUTOUPDATER": "1",
                                  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
        try:
            async with Session(backend, options={"tools": TOOLS}, limits=SessionLimits(turn_timeout=60)) as session:
                asked = await session.send(calls(("mcp__bandstand__set_tempo", {"bpm": 96}),
                                                 ("mcp__bandstand__add_midi_track", {"name": "Bass"}), text="On it."),
                                           tools=TOOLS)
                assert [(c.name, dict(c.arguments)) for c in asked.tool_calls] == [
                    ("set_tempo", {"bpm": 96}), ("add_midi_track", {"name": "Bass"})]
                done = await session.send("", tool_results=[ToolResult(c.id, f"{c.name} done") for c in asked.tool_calls])
            assert [r["content"] for r in json.loads(done.text)["results"]] == ["set_tempo done", "add_midi_track done"]
        finally:
            backend.registry.reap_own()
