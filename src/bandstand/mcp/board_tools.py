"""The board tools as an MCP server: `bandstand mcp --board URL --as SESSION --role musician|conductor`.

One session's board tools (`App.board(URL).tools`, over
`board.tools.BoardToolbox`) for an MCP client that is itself the session — a
Claude Code session started by hand, an editor agent. The toolbox checks
every call against the protocol (schema, session, transitions, fencing) and
answers a refused one with one line; here that line becomes an error result
(``isError``) and the server goes on. The work runs on a worker thread (a
``wait_for_review`` call waits there)."""

from __future__ import annotations

import functools
import os
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

from bandstand.mcp.adapter import McpTool, make_tool
from bandstand.mcp.server import BandstandServer
from bandstand.version import __version__

__all__ = ["build_board_server", "run_board_stdio"]

INSTRUCTIONS = ("The tools of one session on a bandstand conductor/musician board ({role}, session {session}). "
                "Each tool does what the `bandstand board` command of that name does for this session; the "
                "board refuses, with one line, any move its states do not allow. The skill: docs/board.md.")


def _tool(toolbox: Any, spec: dict[str, Any]) -> McpTool:
    name = spec["name"]

    async def call(arguments: dict[str, Any], ctx: Context[Any, Any]) -> CallToolResult:
        del ctx
        answer = await anyio.to_thread.run_sync(functools.partial(toolbox.call, name, arguments))
        return CallToolResult(content=[TextContent(type="text", text=answer.content)], is_error=answer.is_error)

    return make_tool(name, spec["description"], spec["parameters"], call,
                     read_only=name in ("read_task", "list_tasks", "wait_for_review"))


def build_board_server(toolbox: Any) -> BandstandServer:
    """An MCP server with `toolbox`'s tools (a `board.tools.BoardToolbox`)."""
    return BandstandServer("bandstand-board", version=__version__, log_level="WARNING",
                           instructions=INSTRUCTIONS.format(role=toolbox.role, session=toolbox.session_id),
                           tools=[_tool(toolbox, spec) for spec in toolbox.specs()])


def run_board_stdio(board: str | None, session_id: str, role: str, *, workdir: str | os.PathLike[str] = ".",
                    phase: str | None = None) -> None:
    """Serve one session's board tools on stdio until the client closes stdin."""
    from bandstand.producer import App

    with App.board(board, workdir=workdir).tools(session_id, role, phase=phase) as toolbox:
        build_board_server(toolbox).run()
