"""The fake `claude` is faithful enough for the official claude-agent-sdk client to drive it.

This checks the peer itself (not our backend): if the SDK, written against
the real CLI, can initialize it, run turns, read errors and interrupt it, the
tests that use the fake exercise the real protocol.
"""

from __future__ import annotations

import json

import pytest

claude_agent_sdk = pytest.importorskip("claude_agent_sdk")


async def test_sdk_runs_turns_errors_and_interrupts(claude_bin) -> None:
    options = claude_agent_sdk.ClaudeAgentOptions(
        cli_path=str(claude_bin), system_prompt="You are BEAT.", tools=[], model="haiku"
    )
    async with claude_agent_sdk.ClaudeSDKClient(options=options) as client:
        await client.query("hello")
        messages = [m async for m in client.receive_response()]
        result = messages[-1]
        assert type(result).__name__ == "ResultMessage" and not result.is_error
        assert json.loads(result.result)["persona"] == "You are BEAT."
        assert any(type(m).__name__ == "AssistantMessage" for m in messages)

        await client.query("[[is_error]] again")
        result = [m async for m in client.receive_response()][-1]
        assert result.is_error and "529" in result.result

        await client.query("[[hang]] forever")
        await client.interrupt()
        result = [m async for m in client.receive_response()][-1]
        assert result.subtype == "error_during_execution"

        await client.query("still here")
        result = [m async for m in client.receive_response()][-1]
        assert json.loads(result.result)["turn"] == 4
