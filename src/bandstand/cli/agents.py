"""`bandstand agents check` — which musician backends work here, and what is missing for the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(
    add_completion=False,
    rich_markup_mode=None,
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the root
    help="Musician backends: check which ones are usable here.",
)


@app.callback()
def _group() -> None:
    """Musician backends: check which ones are usable here."""


CHECK_EXAMPLES = """\b
Examples:
  bandstand agents check
  bandstand agents check --probe --config bandstand.toml
  BANDSTAND_BACKEND=openai OPENAI_BASE_URL=http://127.0.0.1:11434/v1 bandstand agents check --json
"""


@app.command("check", epilog=CHECK_EXAMPLES)
def check(
    config: Path | None = typer.Option(
        None, "--config", help="A bandstand.toml (default: ./bandstand.toml)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    probe: bool = typer.Option(
        False, "--probe", help="Also send one short turn to each usable backend."
    ),
) -> None:
    """Say which backends are usable here and what the others need."""
    from bandstand.producer import App

    rows: list[dict[str, Any]] = [c.to_json() for c in App().desk().check_backends(config, probe=probe)]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max(len(r["backend"]) for r in rows)
    for row in rows:
        mark = "ok  " if row["usable"] else "no  "
        line = f"{mark}{row['backend']:<{width}}  {row['detail']}"
        if "probe" in row:
            line += f"  [probe: {row['probe']}]"
        typer.echo(line)
