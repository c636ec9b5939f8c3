"""`bandstand mcp`: the MCP server on stdin/stdout, for a client that starts it
(Claude Desktop, Claude Code, an editor). Sessions are written under `out`
and any session folder may be named by its path; the jam it plays lives in this process.
Stray output of the work (a library printing) goes to stderr, never into the
protocol (the SDK points fd 1 at stderr while it serves)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bandstand.mcp.band import Band
from bandstand.mcp.jam_tools import own_jam
from bandstand.mcp.server import build_server
from bandstand.producer import App

__all__ = ["run_stdio"]


def run_stdio(out: str | os.PathLike[str] = "output", *, backend: Any | None = None,
              jam_backend: Any | None = None) -> None:
    """Serve MCP on stdio until the client closes stdin. `backend` is the language model of edit
    and ask (None: the rules); `jam_backend` who plays in the jam (None: the built-in musicians)."""
    band = Band(App(Path(out), folders=True).library, backend=backend)
    build_server(band, lifespan=own_jam(band, jam_backend)).run()
