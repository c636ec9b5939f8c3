"""`bandstand mcp`: the band and the studio as tools for an MCP client, on stdio.

    bandstand mcp [--out DIR] [--backend NAME]

The client starts this command (see docs/mcp.md for the config snippets);
it serves until the client closes the connection. The official `mcp` SDK is
an optional extra: without it the command says how to install it (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bandstand.errors import ConfigError

app = typer.Typer(add_completion=False, rich_markup_mode=None)

INSTALL = ("the MCP server needs the official mcp SDK: install the mcp extra "
           "(scripts/setup mcp in the checkout, or pip install -e '.[mcp]' from it)")

MCP_EXAMPLES = """\b
Examples:
  bandstand mcp                                   # sessions under ./output
  bandstand mcp --out ~/music/bandstand           # sessions somewhere else
  bandstand mcp --backend anthropic               # a language model reads edit requests and plays in the jam
Client config (Claude Desktop, Claude Code, …): {"command": "bandstand", "args": ["mcp", "--out", "DIR"]}
"""


@app.command(help="Serve the band and the studio as MCP tools on stdio (for Claude Desktop, Claude Code, editors).",
             epilog=MCP_EXAMPLES)
def mcp(
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR",
                                      help="Folder of sessions: compose writes here, projects are found here.")]
    = Path("output"),
    backend: Annotated[str | None, typer.Option("--backend", metavar="NAME",
                                                help="A language model that reads edit requests and plays in the "
                                                     "jam: claude-code, anthropic or openai (see 'bandstand agents "
                                                     "check').")] = None,
) -> None:
    try:
        import mcp.server  # noqa: F401  (the SDK, an optional extra)
    except ImportError:
        raise ConfigError(INSTALL) from None
    model = players = None
    if backend:
        from bandstand.producer.backends import backend_named
        from bandstand.producer.jam import backend_factory

        model, players = backend_named(backend), backend_factory(backend)
    from bandstand.mcp import run_stdio

    run_stdio(out, backend=model, jam_backend=players)
