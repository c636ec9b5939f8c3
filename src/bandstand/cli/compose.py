"""`bandstand compose`, `bandstand resume` and `bandstand sessions`.

    bandstand compose "PROMPT" [--bars N] [--seed S] [--parts drums,bass,…] [--out DIR]
                      [--approve STAGE]… [--skip STAGE]… [--yes] [--json]
    bandstand resume SESSION_DIR [--approve | --reject] [--json]
    bandstand sessions list [--out DIR] [--json]
    bandstand sessions clean [--out DIR] [--older-than DAYS] [--incomplete] [--yes]

A live progress display of the eight stages goes to stderr, then a summary
table (or, with --json, one JSON object on stdout).
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import typer

compose_app = typer.Typer(add_completion=False, rich_markup_mode=None)
resume_app = typer.Typer(add_completion=False, rich_markup_mode=None)
sessions_app = typer.Typer(add_completion=False, rich_markup_mode=None, help="List or clean compose sessions.")

STAGES = ("intent", "harmony", "arrangement", "parts", "sound", "assembly", "validation", "output")
RUNNING = {1: "reading the prompt", 2: "choosing chords", 3: "laying out sections", 4: "playing the parts",
           5: "picking sounds", 6: "assembling the multitrack", 7: "listening back",
           8: "writing files, rendering audio and piano roll"}
EXIT = {"completed": 0, "completed_partial": 0, "paused": 0, "failed": 1, "cancelled": 130}


def _console(stderr: bool = False) -> Any:
    """A rich console; when the output is a pipe or a file, wide enough not to wrap rows."""
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    return console if console.is_terminal else Console(stderr=stderr, highlight=False, width=160)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


class Progress:
    """Draws engine events: a live table on a terminal, one line per event otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.console = _console(stderr=True)
        self.live_mode = self.console.is_terminal and not quiet
        self.rows: dict[int, tuple[str, str]] = {n: ("·", "") for n in range(1, 9)}
        self.parts: list[str] = []
        self.lock = threading.Lock()
        self.live: Any = None

    def __enter__(self) -> Progress:
        if self.live_mode:
            from rich.live import Live

            self.live = Live(self._render(), console=self.console, refresh_per_second=12, transient=False)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.update(self._render())
            self.live.__exit__(*exc)

    def _render(self) -> Any:
        from rich.table import Table

        table = Table.grid(padding=(0, 1))
        styles = {"✓": "green", "…": "cyan", "↻": "yellow", "✗": "red", "–": "dim", "·": "dim", "⏸": "magenta"}
        for n, (mark, text) in self.rows.items():
            table.add_row(f"[{styles.get(mark, '')}]{mark}[/]", f"Stage {n}/8", f"[bold]{STAGES[n - 1]}[/]", text)
            if n == 4 and self.parts:
                table.add_row("", "", "", "[dim]" + "  ".join(self.parts) + "[/]")
        return table

    def __call__(self, event: Any) -> None:
        from bandstand.protocol import compose as ev

        with self.lock:
            kind = type(event)
            if kind is ev.StageStarted:
                doing = RUNNING.get(event.stage, "running")
                self.rows[event.stage] = ("…", doing if event.attempt == 1 else f"attempt {event.attempt}: {doing}")
            elif kind is ev.StageCompleted:
                self.rows[event.stage] = ("✓", f"{event.summary}  [dim]{event.duration_ms:.0f} ms[/]")
            elif kind is ev.StageRetry:
                self.rows[event.stage] = ("↻", f"retry {event.attempt}: {event.code}")
            elif kind is ev.StageSkipped:
                self.rows[event.stage] = ("–", event.reason)
            elif kind is ev.StageFailed:
                self.rows[event.stage] = ("✗", f"{event.code}: {event.message}")
            elif kind is ev.PartCompleted:
                self.parts.append(f"{event.role} ✓")
            elif kind is ev.Paused:
                self.rows[event.stage] = ("⏸", f"{event.summary} — waiting for approval")
            if self.quiet:
                return
            if self.live is not None:
                self.live.update(self._render())
            elif kind is not ev.StageStarted:
                self.console.print(event.line(), markup=False)


def _approver(yes: bool, progress: Progress) -> Any:
    def ask(state: Any, stage: int, summary: str) -> str:
        if yes:
            return "approve"
        if not _interactive():
            return "pause"
        if progress.live is not None:
            progress.live.stop()
        answer = typer.prompt(f"Approve stage {stage} ({STAGES[stage - 1]}): {summary}\n"
                              "[a]pprove, [r]edo with a new seed, or [p]ause", default="a").strip().lower()
        if progress.live is not None:
            progress.live.start()
        return {"a": "approve", "r": "reject", "p": "pause"}.get(answer[:1], "approve")
    return ask


def _resolve_ambiguity(prompt: str, options: dict[str, Any], yes: bool, quiet: bool) -> None:
    """A blocking ambiguity: ask on a terminal, take the default with --yes, else stop (exit 2)."""
    from bandstand.compose.intent import Overrides, decompose
    from bandstand.errors import InvalidInput

    intent = decompose(prompt, overrides=Overrides(tempo=options.get("tempo"), key=options.get("key"),
                                                   mode=options.get("mode"), bars=options.get("bars"),
                                                   genre=options.get("genre")))
    blocking = [a for a in intent.ambiguities if a.severity == "blocking"]
    if not blocking:
        return
    amb = blocking[0]
    if yes:
        if not quiet:
            typer.echo(f"note: {amb.reason}; using {amb.field} '{amb.default}' (--yes)", err=True)
        options[amb.field] = amb.default
        return
    if _interactive():
        choice = typer.prompt(f"{amb.reason}. Which {amb.field}? ({', '.join(amb.options)})", default=amb.default)
        options[amb.field] = choice.strip()
        return
    raise InvalidInput(f"the prompt is ambiguous: {amb.reason}; name a {amb.field} "
                       f"({', '.join(amb.options)}), pass --{amb.field} NAME, or --yes to use '{amb.default}'")


def _summary_table(result: Any, console: Any) -> None:
    from rich.table import Table

    data = result.summary()
    intent = data["intent"] or {}
    table = Table(title=f"♪ {data['session_id']} — {data['status']}", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    if intent:
        feel = f" (feels {intent['perceived_bpm']:g}, half-time)" if intent["half_time"] else ""
        table.add_row("genre", ", ".join(intent["genre"]) + (f"  [dim]+ {', '.join(intent['sub_genre'])}[/]"
                                                              if intent["sub_genre"] else ""))
        table.add_row("key", f"{intent['key']} {intent['mode']}")
        table.add_row("tempo", f"{intent['tempo']:g} BPM{feel}")
        if intent["mood"]:
            table.add_row("mood", ", ".join(intent["mood"]))
    if data["progression"]:
        table.add_row("chords", " → ".join(data["progression"]))
    if data["sections"]:
        table.add_row("form", f"{data['total_bars']} bars: " + " → ".join(f"{s['name']} {s['bars']}"
                                                                            for s in data["sections"]))
    table.add_row("parts", ", ".join(data["parts"]))
    quality = data["quality"]
    if quality:
        axes = "  ".join(f"{k} {v:.2f}" for k, v in quality["axes"].items())
        verdict = "[green]passed[/]" if quality["passed"] else f"[yellow]below gate: {', '.join(quality['failing_axes'])}[/]"
        table.add_row("quality", f"{axes}  mean {quality['mean']:.2f}  {verdict}")
    timings = "  ".join(f"{name} {ms:.0f}" for name, ms in data["timings_ms"].items())
    table.add_row("time (ms)", f"{timings}  [bold]total {data['total_ms']:.0f}[/]")
    table.add_row("seed", f"{data['seed']}  [dim](--seed {data['seed']} gives the same song)[/]")
    console.print(table)
    folder = data["session_dir"]
    files = data["files"]
    if files:
        console.print(f"[bold]Files[/] in {folder}/")
        for rel in files:
            if not rel.startswith("state/"):
                console.print(f"  {rel}", markup=False)
        if "audio/full-arrangement.wav" in files:
            console.print(f"Listen: {folder}/audio/full-arrangement.wav", markup=False)
        console.print(f"DAW: import {folder}/midi/full-arrangement.mid; notes/producer-notes.md says how", markup=False)


def _finish(result: Any, as_json: bool, progress: Progress) -> None:
    state = result.state
    if as_json:
        typer.echo(json.dumps(result.summary(), indent=2, ensure_ascii=False))
    else:
        _summary_table(result, _console())
        hint = state.error.recovery_hint if state.error else ""
        where = result.session_dir
        if state.status == "paused":
            progress.console.print(f"Paused for approval. Continue: bandstand resume {where} --approve "
                                   f"(or --reject to redo the stage)", markup=False)
        elif state.status == "cancelled":
            progress.console.print(f"Cancelled. Continue where it stopped: bandstand resume {where}", markup=False)
        elif state.status == "failed":
            progress.console.print(f"Failed: {state.error.message if state.error else ''}. {hint}. "
                                   f"Retry with: bandstand resume {where}", markup=False)
        elif state.status == "completed_partial" and state.error:
            progress.console.print(f"Finished with problems: {state.error.message} ({hint})", markup=False)
    code = EXIT.get(state.status, 1)
    if code:
        raise typer.Exit(code)


@compose_app.command()
def compose(
    prompt: str = typer.Argument(..., help='What to make, e.g. "Frank Ocean meets Burial, late-night vibes".'),
    bars: int = typer.Option(None, "--bars", "-b", help="Length in bars (4–512; default: the genre's form)."),
    seed: int = typer.Option(None, "--seed", "-s", min=0, help="Seed; the same prompt and seed give the same song."),
    parts: str = typer.Option(None, "--parts", "-p", help="Parts to generate, comma-separated (drums,bass,chords,lead,pad,arp,percussion,counter_melody,sub_bass)."),
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder for session folders."),
    approve: list[str] = typer.Option(None, "--approve", help="Pause after this stage (number or name) and ask; repeatable."),
    skip: list[str] = typer.Option(None, "--skip", help="Skip this stage (3, 5, 6, 7 or 8, or a name); repeatable."),
    tempo: float = typer.Option(None, "--tempo", help="Tempo in BPM (overrides the prompt)."),
    key: str = typer.Option(None, "--key", help="Key, e.g. Am, F#, Eb (overrides the prompt)."),
    mode: str = typer.Option(None, "--mode", help="Mode: major, minor, dorian, … (overrides the prompt)."),
    genre: str = typer.Option(None, "--genre", help="Genre to use first (any genre name or alias)."),
    no_audio: bool = typer.Option(False, "--no-audio", help="Skip the WAV render."),
    intent_backend: str = typer.Option(None, "--intent-backend", help="Also read the prompt with a language model: claude-code, anthropic or openai (see 'bandstand agents check')."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Take defaults for ambiguities and approve gates without asking."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of the progress display."),
) -> None:
    """Compose a finished multi-track song from a prompt."""
    from bandstand.compose.api import Pipeline, make_config

    options: dict[str, Any] = {"bars": bars, "seed": seed, "parts": parts.split(",") if parts else None,
                               "out_dir": str(out), "approval_gates": list(approve or []),
                               "skip_stages": list(skip or []), "tempo": tempo, "key": key, "mode": mode,
                               "genre": genre, "render_audio": not no_audio, "intent_backend": intent_backend}
    make_config(**options)
    _resolve_ambiguity(prompt, options, yes, as_json)
    progress = Progress(quiet=as_json)
    with progress:
        pipeline = Pipeline.create(prompt, on_event=progress, approver=_approver(yes, progress), **options)
        result = pipeline.run()
    _finish(result, as_json, progress)


@resume_app.command()
def resume(
    session_dir: Path = typer.Argument(..., help="The session folder (output/session-…)."),
    approve: bool = typer.Option(False, "--approve", help="Continue a session paused at an approval gate."),
    reject: bool = typer.Option(False, "--reject", help="Redo the stage a paused session waits at, with a new seed."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve later gates without asking."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of the progress display."),
) -> None:
    """Resume an interrupted, failed, cancelled or paused compose session."""
    from bandstand.compose.api import Pipeline
    from bandstand.errors import InvalidInput

    if approve and reject:
        raise InvalidInput("use --approve or --reject, not both")
    progress = Progress(quiet=as_json)
    with progress:
        pipeline = Pipeline.load(session_dir, on_event=progress, approver=_approver(yes, progress))
        if approve:
            pipeline.approve()
        elif reject:
            pipeline.reject()
        result = pipeline.run()
    _finish(result, as_json, progress)


@sessions_app.callback(invoke_without_command=True)
def sessions(ctx: typer.Context) -> None:
    """List or clean compose sessions."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


@sessions_app.command("list")
def sessions_list(
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder holding the sessions."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List sessions, newest first."""
    from bandstand.compose.sessions import list_sessions

    infos = list_sessions(out)
    if as_json:
        typer.echo(json.dumps([i.to_json() for i in infos], indent=2, ensure_ascii=False))
        return
    if not infos:
        typer.echo(f"no sessions in {out}")
        return
    from rich.table import Table

    table = Table()
    for name in ("session", "date", "genre", "key", "tempo", "status"):
        table.add_column(name, no_wrap=True)
    table.add_column("prompt", overflow="ellipsis", no_wrap=True)
    for i in infos:
        table.add_row(i.session_id, f"{i.created_at:%Y-%m-%d %H:%M}", i.genre, i.key,
                      f"{i.tempo:g}" if i.tempo else "", i.status, i.prompt[:40])
    _console().print(table)


@sessions_app.command("clean")
def sessions_clean(
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder holding the sessions."),
    older_than: float = typer.Option(None, "--older-than", min=0, help="Also remove sessions older than DAYS."),
    incomplete: bool = typer.Option(False, "--incomplete", help="Only unfinished sessions (no manifest)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
) -> None:
    """Remove unfinished or old sessions and leftover temporary files."""
    from bandstand.compose.sessions import clean, plan_clean
    from bandstand.errors import InvalidInput

    plan = plan_clean(out, older_than_days=older_than, incomplete=incomplete)
    if plan.empty:
        typer.echo("nothing to clean")
        return
    for info, why in plan.sessions:
        typer.echo(f"  {info.path}  ({why})")
    for path in plan.temp_files:
        typer.echo(f"  {path}  (temporary file)")
    if not yes:
        if not _interactive():
            raise InvalidInput("sessions clean deletes files; confirm with --yes")
        if not typer.confirm(f"Delete {len(plan.sessions)} sessions and {len(plan.temp_files)} files?"):
            raise typer.Exit(1)
    typer.echo(f"removed {clean(plan)} items")
