"""Tools for a `claude` process: the host's side of the CLI's SDK MCP bridge.

The CLI is started with ``--mcp-config {"mcpServers": {"bandstand": {"type":
"sdk", …}}}`` and ``--allowedTools mcp__bandstand``; it then talks MCP to the
host over its control channel (``control_request`` with subtype
``mcp_message``): ``initialize``, ``notifications/initialized``,
``tools/list`` — answered at once from the offered tools — and one
``tools/call`` per call, which carries the model's ``tool_use`` id in
``_meta["claudecode/toolUseId"]`` and waits for the host's answer. The model
sees the tools as ``mcp__bandstand__<name>``; the host sees plain names.

A turn ends for the host when the model's message stops with tool calls
(the ``message_stop`` stream event, from ``--include-partial-messages``):
the calls are returned, the CLI keeps waiting, and the next turn's results
answer the ``tools/call`` requests — those already made and those the CLI
makes later (it calls one tool at a time). Observed with CLI 2.1.332.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bandstand.agents.base import ToolCall, ToolResult, ToolSpec
from bandstand.agents.tools import read_call
from bandstand.version import __version__

SERVER = "bandstand"
PREFIX = f"mcp__{SERVER}__"


def cli_args(tools: Sequence[ToolSpec]) -> list[str]:
    """The CLI flags that offer `tools` (none when there are none)."""
    if not tools:
        return []
    config = {"mcpServers": {SERVER: {"type": "sdk", "name": SERVER}}}
    return ["--mcp-config", json.dumps(config, separators=(",", ":")), "--allowedTools", f"mcp__{SERVER}",
            "--include-partial-messages"]


def _respond(request_id: str, mcp: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": {"mcp_response": mcp}}}


class ToolBridge:
    """The offered tools of one process, the calls it waits on and the results given ahead of its requests."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        self.tools = tuple(tools)
        self.waiting: dict[str, tuple[str, Any]] = {}  # tool_use id → (control request id, JSON-RPC id)
        self.answers: dict[str, ToolResult] = {}  # results that came before their tools/call
        self.message_calls: list[ToolCall] = []  # calls of the model's current message
        self.known: list[ToolCall] = []  # every call of the CLI's current turn

    def control(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to a control request from the CLI, or None when it must wait (a tools/call)."""
        request = msg.get("request") or {}
        request_id = str(msg.get("request_id", ""))
        if request.get("subtype") != "mcp_message":
            return {"type": "control_response", "response": {
                "subtype": "error", "request_id": request_id, "error": f"unsupported request {request.get('subtype')}"}}
        message = request.get("message") or {}
        method, rpc_id = message.get("method"), message.get("id")
        if method == "tools/call":
            params = message.get("params") or {}
            use_id = str((params.get("_meta") or {}).get("claudecode/toolUseId") or self._guess(params))
            if use_id in self.answers:
                return _respond(request_id, self._result(rpc_id, self.answers.pop(use_id)))
            self.waiting[use_id] = (request_id, rpc_id)
            return None
        if rpc_id is None:  # a notification: no JSON-RPC answer, but the control request is acknowledged
            return _respond(request_id, {"jsonrpc": "2.0", "result": {}})
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": (message.get("params") or {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": SERVER, "version": __version__}}
        elif method == "tools/list":
            result = {"tools": [{"name": t.name, "description": t.description, "inputSchema": dict(t.parameters)}
                                for t in self.tools]}
        else:
            return _respond(request_id, {"jsonrpc": "2.0", "id": rpc_id,
                                         "error": {"code": -32601, "message": f"method not found: {method}"}})
        return _respond(request_id, {"jsonrpc": "2.0", "id": rpc_id, "result": result})

    def block(self, block: dict[str, Any]) -> ToolCall | None:
        """A `tool_use` block of the model's message, as the host's call (None for the CLI's own tools)."""
        name = str(block.get("name", ""))
        if not name.startswith(PREFIX):
            return None
        call = read_call(str(block.get("id", "")), name[len(PREFIX):], block.get("input", {}), self.tools)
        self.message_calls.append(call)
        self.known.append(call)
        return call

    def take_calls(self) -> tuple[ToolCall, ...]:
        calls, self.message_calls = tuple(self.message_calls), []
        return calls

    def turn_ended(self) -> None:
        """The CLI's turn is over: nothing waits any more."""
        self.waiting.clear()
        self.answers.clear()
        self.message_calls.clear()
        self.known.clear()

    def answer(self, results: Sequence[ToolResult]) -> list[dict[str, Any]]:
        """Control responses for the calls the CLI waits on; the other results wait for their request."""
        out = []
        for result in results:
            found = self.waiting.pop(result.call_id, None)
            if found is None:
                self.answers[result.call_id] = result
            else:
                out.append(_respond(found[0], self._result(found[1], result)))
        return out

    def _result(self, rpc_id: Any, result: ToolResult) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rpc_id,
                "result": {"content": [{"type": "text", "text": result.content}], "isError": result.is_error}}

    def _guess(self, params: dict[str, Any]) -> str:
        """A tools/call without the tool_use id: the first call of the message with this name and input."""
        for call in self.known:
            if call.name == params.get("name") and dict(call.arguments) == params.get("arguments"):
                return call.id
        return f"unmatched-{params.get('name')}"
