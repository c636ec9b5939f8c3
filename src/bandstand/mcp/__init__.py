"""The MCP server: the band and the studio as tools for any MCP client (Claude
Desktop, Claude Code, editors), on the official `mcp` SDK (2.x, the `mcp`
extra — imported only when this package is).

- `server` — `build_server(band)`: every studio tool (generated from the
  registry, `studio_tools`), the band's tools (`band_tools`, `jam_tools`),
  resources and prompts (`resources`).
- `band` — `Band`: the sessions, the language model, the jam.
- `adapter` — arguments in, one-line errors and JSON out, work off the loop,
  progress and cancellation.
- `http` — the same server at `/mcp` on `bandstand serve`.
- `board_tools` — `build_board_server(toolbox)`: one session's board tools
  (`bandstand mcp --board URL --as SESSION`).

`bandstand mcp` runs it on stdio (`run_stdio`). The MCP layer decides
nothing: each tool calls `bandstand.producer` as the CLI command of the same
job does.
"""

from bandstand.mcp.band import Answer, Band, Link
from bandstand.mcp.board_tools import build_board_server, run_board_stdio
from bandstand.mcp.server import BandstandServer, build_server
from bandstand.mcp.stdio import run_stdio

__all__ = ["Answer", "Band", "BandstandServer", "Link", "build_board_server", "build_server", "run_board_stdio",
           "run_stdio"]
