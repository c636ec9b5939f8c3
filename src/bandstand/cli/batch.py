"""`bandstand batch` and `bandstand worker`: many songs in one go.

    bandstand batch PROMPTS_FILE [--workers N] [--board URL | --on ray[://HOST:PORT]] [--out DIR] [--seed S] [--team] [--bars N] [--json]
    bandstand worker --board URL [--out DIR] [--session ID] [--idle-exit S] [--max-tasks N] [--config FILE]

Without --board the songs run on a pool of N processes here. With --board
(postgresql://… or a SQLite path) they become board tasks: this command
conducts (and starts N local workers), and `bandstand worker` on any machine
takes songs from the same board. With --on ray each song is a Ray task
(the cluster RAY_ADDRESS names, ray://HOST:PORT, or a local one). A progress bar goes to stderr (a line per
song when stderr is not a terminal); the songs' table (or, with --json, one
JSON object) to stdout.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import typer

batch_app = typer.Typer(add_completion=False, rich_markup_mode=None)
worker_app = typer.Typer(add_completion=False, rich_markup_mode=None)

BATCH_EXAMPLES = """\b
Examples:
  bandstand batch prompts.txt --workers 4 --out songs --no-audio
  bandstand batch prompts.txt --board postgresql://bandstand@db:5432/orchestra --workers 2
  bandstand worker --board postgresql://bandstand@db:5432/orchestra --out songs   # on every other machine
  bandstand batch prompts.txt --on ray --workers 2 --out songs   # RAY_ADDRESS's cluster, or a local one
"""


def _progress(total: int, quiet: bool) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True, highlight=False)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.fields[note]}"), console=console, disable=quiet or not console.is_terminal)


def _print(results: list[Any], jobs: list[Any], as_json: bool, extra: dict[str, Any]) -> None:
    rows = [{**r.to_json(), "prompt": jobs[r.index].prompt, "seed": jobs[r.index].seed} for r in results]
    if as_json:
        typer.echo(json.dumps({**extra, "songs": rows}, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"batch {extra['batch']}: {extra['out']}", title_justify="left")
    for name in ("song", "seed", "status", "worker", "seconds"):
        table.add_column(name, no_wrap=True)
    for result, row in zip(results, rows, strict=True):
        table.add_row(row["folder"], str(row["seed"]), result.said(), row["worker"], f"{row['seconds']:.2f}")
    Console(highlight=False, width=160).print(table)


@batch_app.command(epilog=BATCH_EXAMPLES)
def batch(
    prompts: Path = typer.Argument(..., help="A text file: one prompt per line, or a JSON object per line."),
    workers: int = typer.Option(1, "--workers", "-w", min=0, max=64, help="Worker processes on this machine."),
    board: str = typer.Option(None, "--board", help="Run the songs as board tasks: postgresql://… or a SQLite path."),
    out: Path = typer.Option(Path("output/batch"), "--out", "-o", help="Folder for the songs' folders."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="The batch's seed; song N gets seed S+N unless its line sets one."),
    team: bool = typer.Option(False, "--team", help="Every song composed by an agent team."),
    bars: int = typer.Option(None, "--bars", "-b", help="Length of every song that does not set one."),
    audio: bool = typer.Option(False, "--audio/--no-audio", help="Render each song's WAV too (slower)."),
    session: str = typer.Option(None, "--session", help="With --board: the conductor's session id."),
    stale_after: float = typer.Option(60.0, "--stale-after", min=0.5, help="With --board: seconds without a heartbeat before a song is taken over."),
    heartbeat: float = typer.Option(5.0, "--heartbeat", min=0.05, help="With --board: the local workers' heartbeat, seconds."),
    on: str = typer.Option(None, "--on", metavar="WHERE", help="Where the songs run: local, board (with --board), ray (RAY_ADDRESS's cluster or a local one) or ray://HOST:PORT."),
    runtime_env: str = typer.Option(None, "--runtime-env", metavar="JSON", help="With --on ray: Ray's runtime environment as JSON, e.g. '{\"py_modules\": [\"/path/to/src/bandstand\"]}'."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of the table."),
) -> None:
    """Compose every song of a prompts file, here, through a board or on Ray."""
    from bandstand.producer import App
    from bandstand.producer.app import BatchRequest

    desk = App(out).batches()
    plan = desk.plan(BatchRequest(prompts, seed=seed, bars=bars, team=team, audio=audio, on=on, board=board,
                                  workers=workers, runtime_env=runtime_env, session=session,
                                  stale_after=stale_after, heartbeat=heartbeat))
    jobs = plan.jobs
    extra: dict[str, Any] = {"batch": plan.ident, "out": str(out), "seed": seed}
    if plan.where.kind != "board":
        results = _songs(len(jobs), as_json, lambda on_result: desk.run(plan, on_result=on_result).results)
        if plan.cluster is not None:
            extra.update(ray=plan.cluster)
    else:
        results, status = _conduct(desk, plan, as_json)
        extra.update(board=True, takeovers=status.takeovers, given_up=status.given_up)
    _print(results, jobs, as_json, extra)
    elsewhere = [r for r in results if r.status == "elsewhere"]
    if elsewhere:
        typer.echo(f"{len(elsewhere)} of {len(jobs)} songs are not in {out}: the board finished them in an earlier "
                   f"run and they could not be copied here (first: {elsewhere[0].said()}); give that --out, or a "
                   "new board to compose them again", err=True)
    if any(r.status in ("failed", "elsewhere") for r in results) or len(results) < len(jobs):
        raise typer.Exit(1)


def _songs(total: int, quiet: bool, run: Any) -> list[Any]:
    """`run(on_result)`'s results, a progress bar (or a line per song) showing each as it arrives."""
    with _progress(total, quiet) as bar:
        task = bar.add_task("songs", total=total, note="")

        def done(result: Any) -> None:
            bar.update(task, advance=1, note=f"{result.folder} {result.status}")
            if not quiet and not bar.console.is_terminal:
                typer.echo(f"{result.status}: {result.folder}" + (f" ({result.error})" if result.error else ""),
                           err=True)
        return list(run(done))


def _conduct(desk: Any, plan: Any, quiet: bool) -> tuple[list[Any], Any]:
    """The batch conducted on its board (`BatchDesk.run`), its every step shown; SIGTERM stops it."""
    jobs = plan.jobs
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with _progress(len(jobs), quiet) as bar:
        task = bar.add_task("songs", total=len(jobs), note="")

        said: set[int] = set()

        def show(status: Any) -> None:
            sections = f", {status.sections_done}/{status.sections} sections" if status.sections else ""
            bar.update(task, completed=len(status.results), note=f"{status.working} working{sections}, "
                       f"{status.takeovers} taken over, {len(status.given_up)} given up")
            if quiet or bar.console.is_terminal:
                return
            for index in sorted(set(status.results) - said):  # not a terminal: a line per song
                result = status.results[index]
                typer.echo(f"{result.status}: {result.folder} ({result.worker}"
                           + (f"; {result.said()})" if result.status in ("copied", "elsewhere") else ")"),
                           err=True)
                said.add(index)
            for index in sorted(set(status.given_up) - said):
                typer.echo(f"given up: {jobs[index].folder} ({status.given_up[index]})", err=True)
                said.add(index)
        run = desk.run(plan, on_step=show, stop=stop)
    return run.results, run.status


@worker_app.command()
def worker(
    board: str = typer.Option(..., "--board", envvar="BANDSTAND_BOARD", help="The board: postgresql://… or a SQLite path."),
    out: Path = typer.Option(Path("output/batch"), "--out", "-o", help="Folder for the songs' folders."),
    session: str = typer.Option(None, "--session", help="This worker's session id (default: host and process)."),
    heartbeat: float = typer.Option(5.0, "--heartbeat", min=0.05, help="Seconds between heartbeats while composing."),
    poll: float = typer.Option(0.25, "--poll", min=0.01, help="Seconds between looks at the board when idle."),
    idle_exit: float = typer.Option(None, "--idle-exit", min=0, help="Stop after this many idle seconds (default: never)."),
    max_tasks: int = typer.Option(None, "--max-tasks", min=1, help="Stop after this many tasks (songs, or team songs' sections)."),
    config: Path = typer.Option(None, "--config", help="A bandstand.toml: the seats ([agents.team]) that write team songs' sections on this machine."),
    as_json: bool = typer.Option(False, "--json", help="Print what it did as JSON when it stops."),
) -> None:
    """Take batch songs from a board and compose them, until stopped (Ctrl-C, SIGTERM)."""
    from bandstand.producer import App
    from bandstand.producer.app import WorkerRequest

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def said(result: Any) -> None:
        if not as_json:
            typer.echo(f"{result.status}: {result.folder} ({result.seconds:.2f} s)", err=True)

    report = App(out).batches().work(WorkerRequest(board, session=session, heartbeat=heartbeat, poll=poll,
                                                   idle_exit=idle_exit, max_tasks=max_tasks, config=config),
                                     stop=stop, on_result=said)
    if as_json:
        typer.echo(json.dumps({"session": report.session, "done": [r.to_json() for r in report.done],
                               "failed": report.failed, "lost": report.lost}, indent=2))
