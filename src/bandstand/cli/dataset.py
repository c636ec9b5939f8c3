"""`bandstand dataset SPEC.toml --out DIR`: a grid of songs with their files and one table.

    bandstand dataset SPEC.toml --out DIR [--on local|board|ray|ray://HOST:PORT] [--limit N] [--shard I/N]

Every song of the spec's grid × seeds is composed into DIR (MIDI per part, stems, the mix, the
lead sheet), then DIR/metadata.parquet gets one row per finished song. Running it again skips the
songs already there. Progress (counts and ETA) goes to stderr, a summary (or --json) to stdout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)

EXAMPLES = """\b
Examples:
  bandstand dataset grooves.toml --out data --workers 2
  bandstand dataset grooves.toml --out data --shard 0/4      # the first of four runs (machines)
  bandstand dataset grooves.toml --out data --on ray --limit 100
"""


@app.command(epilog=EXAMPLES)
def dataset(
    spec: Path = typer.Argument(..., help="The dataset spec (TOML): [dataset] seeds, bars, audio… and [grid] genre, mood, tempo, key."),
    out: Path = typer.Option(..., "--out", "-o", help="The dataset's folder: a folder per song and metadata.parquet."),
    on: str = typer.Option(None, "--on", metavar="WHERE", help="Where the songs run: local (default), board (with --board), ray or ray://HOST:PORT."),
    board: str = typer.Option(None, "--board", metavar="URL", help="With --on board: postgresql://… or a SQLite path."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, max=64, help="Processes here (local, board) or the local Ray cluster's CPUs."),
    limit: int = typer.Option(None, "--limit", "-n", min=1, metavar="N", help="Only the first N songs (of this shard)."),
    shard: str = typer.Option(None, "--shard", metavar="I/N", help="I/N: every N-th song from the I-th (0-based), to split the set across runs."),
    runtime_env: str = typer.Option(None, "--runtime-env", metavar="JSON", help="With --on ray: Ray's runtime environment as JSON."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object when done."),
) -> None:
    """Compose a dataset of songs from a grid spec, with a metadata table (Parquet)."""
    from bandstand.producer import App
    from bandstand.producer.app import DatasetRequest

    desk = App(out).batches()
    plan = desk.plan_dataset(DatasetRequest(spec, on=on, board=board, workers=workers, limit=limit, shard=shard,
                                            runtime_env=runtime_env))  # refused before anything is written
    where, songs = plan.where, plan.songs

    def progress(result: Any, counts: Any) -> None:
        if not as_json:
            typer.echo(f"{counts.line()}: {result.said()} {result.folder}", err=True)

    report = desk.build_dataset(plan, on_result=progress)
    failed = [r for r in report.results if r.status == "failed"]
    summary = {"out": str(out), "table": str(report.table), "rows": report.rows, "set": report.total,
               "run": songs, "composed": sum(r.status == "composed" for r in report.results),
               "kept": sum(r.status == "kept" for r in report.results), "failed": len(failed),
               "on": where.kind if where.kind != "ray" else (where.address or "ray")}
    if as_json:
        summary["songs"] = [r.to_json() for r in report.results]
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        typer.echo(f"{summary['run']} songs ({summary['composed']} composed, {summary['kept']} kept, "
                   f"{summary['failed']} failed) of {summary['set']} in the set; "
                   f"{report.table}: {report.rows} rows")
    for result in failed:
        typer.echo(f"failed: {result.folder} ({result.error})", err=True)
    if failed or len(report.results) < songs:
        raise typer.Exit(1)

