"""The MCP server: the studio's tools (from the registry), the band's tools,
the resources and the prompts, on one `MCPServer` of the official SDK.

`build_server(band)` is the composition root; `bandstand mcp` runs it on
stdio and `bandstand serve` at `/mcp` (see `bandstand.mcp.http`). A call to
an unknown tool is answered with the closest names; nothing a client sends
stops the server.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

from bandstand.mcp.adapter import McpTool, failure
from bandstand.mcp.band import Band
from bandstand.mcp.band_tools import BAND_TOOLS, band_tools
from bandstand.mcp.branch_tools import BRANCH_TOOLS
from bandstand.mcp.jam_tools import JAM_TOOLS
from bandstand.mcp.pattern_tools import PATTERN_TOOLS
from bandstand.mcp.resources import add_prompts, add_resources
from bandstand.mcp.studio_tools import studio_tools
from bandstand.mcp.transport_tools import TRANSPORT_TOOLS
from bandstand.producer import App
from bandstand.version import __version__

__all__ = ["INSTRUCTIONS", "BandstandServer", "build_server"]

INSTRUCTIONS = """\
bandstand is a band of AI musicians. compose makes a finished multi-track song from a prompt and returns a \
project id; every other project tool takes it as `project`. Change the song in words with edit (a variation: \
review its diff, then accept_variation or discard_variation), get other takes with alternatives, change the \
mix and notes directly with the studio tools (set_track_volume, add_insert_effect, add_notes, generate_part, \
…; each is one undoable revision), move through revisions with undo, redo and history, and export mid, wav, \
stems, png or musicxml; ask answers questions about a song from its figures. Resources under \
bandstand://projects/{project} hold the project at HEAD, its history and its files. jam_start, jam_direct, \
jam_state and jam_stop play a live jam; play, stop, set_playhead and loop_section drive the player of every \
studio page open on a song. execute_pattern, stop_pattern, update_musical_context and write_pattern write and \
play Strudel code outside a jam; strudel_reference (and bandstand://strudel/reference) lists its functions."""


class BandstandServer(MCPServer[Any]):
    """The SDK's server, answering a call to an unknown tool with the closest names."""

    def __init__(self, *args: Any, tools: list[McpTool], **kwargs: Any) -> None:
        super().__init__(*args, tools=list(tools), **kwargs)
        self.tool_names = [t.name for t in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:
        if name not in self.tool_names:
            return failure(f"unknown tool '{name}'{App().desk().unknown_tool(name, self.tool_names)}")
        return await super().call_tool(name, arguments, context)


def build_server(band: Band, *, lifespan: Any = None) -> BandstandServer:
    """The MCP server for `band`: every studio tool, the band's tools, resources and prompts."""
    tools: list[McpTool] = [*band_tools(band, (*BAND_TOOLS, *JAM_TOOLS, *BRANCH_TOOLS, *TRANSPORT_TOOLS,
                                                     *PATTERN_TOOLS)),
                            *studio_tools(band)]
    server = BandstandServer("bandstand", instructions=INSTRUCTIONS, version=__version__, tools=tools,
                             log_level="WARNING", lifespan=lifespan)
    logging.getLogger("bandstand.mcp").setLevel(logging.WARNING)
    add_resources(server, band)
    add_prompts(server)
    return server
