"""`bandstand mcp`: the band and the studio as tools for an MCP client, on stdio.

    bandstand mcp [--out DIR] [--backend NAME]
    bandstand mcp --board URL --as SESSION [--role musician|conductor] [--workdir DIR] [--phase P]

The client starts this command (see docs/mcp.md for the config snippets);
it serves until the client closes the connection. The official `mcp` SDK is
an optional extra: without it the command says how to install it (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bandstand.errors import ConfigError, InvalidInput

app = typer.Typer(add_completion=False, rich_markup_mode=None)

INSTALL = ("the MCP server needs the official mcp SDK: install the mcp extra "
           "(scripts/setup mcp in the checkout, or pip install -e '.[mcp]' from it)")

MCP_EXAMPLES = """\b
Examples:
  bandstand mcp                                   # sessions under ./output
  bandstand mcp --out ~/music/bandstand           # sessions somewhere else
  bandstand mcp --backend anthropic               # a language model reads edit requests and plays in the jam
  bandstand mcp --board sqlite:///band.db --as musician-1   # one session's board tools (docs/board.md)
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
    board: Annotated[str | None, typer.Option("--board", metavar="URL",
                                              help="Serve one session's board tools instead (sqlite:///… or "
                                                   "postgresql://…): see docs/board.md.")] = None,
    session: Annotated[str | None, typer.Option("--as", metavar="SESSION",
                                                help="With --board: the session the tools act as.")] = None,
    role: Annotated[str, typer.Option("--role", metavar="ROLE",
                                      help="With --board: musician or conductor.")] = "musician",
    workdir: Annotated[Path, typer.Option("--workdir", metavar="DIR",
                                          help="With --board: where temp/ and output/board/ are.")] = Path("."),
    phase: Annotated[str | None, typer.Option("--phase", metavar="PHASE",
                                              help="With --board: claim only tasks of this phase (a launch's "
                                                   "are 'launch').")] = None,
) -> None:
    try:
        import mcp.server  # noqa: F401  (the SDK, an optional extra)
    except ImportError:
        raise ConfigError(INSTALL) from None
    if (board is None) != (session is None):
        raise InvalidInput("the board tools need both --board URL and --as SESSION (e.g. bandstand mcp "
                           "--board sqlite:///band.db --as musician-1)")
    model = players = None
    if backend:
        from bandstand.producer import App

        model, players = App().desk().backend(backend), App.jam_backend(backend)
    from bandstand.mcp import run_board_stdio, run_stdio

    if board is not None and session is not None:
        run_board_stdio(board, session, role, workdir=workdir, phase=phase)
        return
    run_stdio(out, backend=model, jam_backend=players)
