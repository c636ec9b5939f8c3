"""`bandstand export SESSION_DIR --format musicxml|stems|mid|wav|png|strudel` — a thin client of
`App.desk().export` (the local user names any folder): it translates the arguments and prints what was written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)

EXPORT_EXAMPLES = """\b
Examples:
  bandstand export output/session-20260209-a1b2c3 --format musicxml   # the lead sheet
  bandstand export output/session-20260209-a1b2c3 --format stems --out stems/
  bandstand export output/session-20260209-a1b2c3 --format mid --json
  bandstand export output/session-20260209-a1b2c3 --format strudel   # a program for strudel.cc
"""


@app.command(help="Export a session's song: musicxml (lead sheet), stems, mid, wav, png or strudel (code).", epilog=EXPORT_EXAMPLES)
def export(
    session: Annotated[Path, typer.Argument(help="The session folder.", show_default=False, metavar="SESSION_DIR")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="musicxml | stems | mid | wav | png | strudel")] = "musicxml",
    out: Annotated[Path | None, typer.Option("--out", metavar="DIR", help="Where to write [SESSION_DIR/export].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    from bandstand.producer import App

    done = App().desk().export(session, fmt, out)
    if as_json:
        typer.echo(json.dumps(done.to_json()))
        return
    for path in done.files:
        typer.echo(str(path))
