"""`bandstand import FILE.mid [--name NAME] [--out DIR] [--json]` — a thin client of
`bandstand.producer.sessions.importing`: your own MIDI file as a studio project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)

IMPORT_EXAMPLES = """\b
Examples:
  bandstand import song.mid                          # a project in output/SESSION
  bandstand import song.mid --name "Night drive" --out projects --json
  bandstand edit output/SESSION "make the bass busier"
"""


@app.command(help="Import your own MIDI file as a studio project: parts with roles, key, tempo, sections.",
             epilog=IMPORT_EXAMPLES)
def import_(
    file: Annotated[Path, typer.Argument(help="A Standard MIDI File.", show_default=False, metavar="FILE.mid")],
    name: Annotated[str, typer.Option("--name", metavar="NAME", help="The song's title [the file's].")] = "",
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="Folder for project folders.")] = Path("output"),
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import ImportRequest

    made = App(out).import_midi(ImportRequest(file, name=name))
    summary = made.summary()
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    typer.echo(f"project → {made.session.session_dir}")
    typer.echo("parts: " + ", ".join(f"{n} ({r})" for n, r in made.parts))
    typer.echo(f"key: {made.key} ({made.key_source}) · {made.tempo:g} BPM")
    typer.echo(f"sections ({made.sections_source}): " + " · ".join(f"{s.name} {s.bars}" for s in made.sections))
    typer.echo(f"direct it: bandstand edit {made.session.session_dir} \"make the bass busier\"")
