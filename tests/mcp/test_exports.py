"""The MCP package's public names are pinned (cli/mcp.py and the server build on them)."""

from __future__ import annotations

import bandstand.mcp as package
from bandstand.mcp import (
    adapter,
    band,
    band_tools,
    board_tools,
    http,
    jam_tools,
    resources,
    server,
    stdio,
    studio_tools,
)


def test_mcp_exports_are_pinned() -> None:
    assert sorted(package.__all__) == ["Answer", "Band", "BandstandServer", "Link", "build_board_server",
                                       "build_server", "run_board_stdio", "run_stdio"]
    for module in (adapter, band, band_tools, board_tools, http, jam_tools, resources, server, stdio, studio_tools):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)
