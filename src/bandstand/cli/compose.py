"""`bandstand compose`, `bandstand resume` and `bandstand sessions`.

    bandstand compose "PROMPT" [--bars N] [--seed S] [--parts drums,bass,…] [--out DIR]
                      [--takes N | --quality fast|balanced|best]
                      [--approve STAGE]… [--skip STAGE]… [--yes] [--json]
    bandstand compose "PROMPT" --team [--team-file FILE] [--accept] [--config FILE] …
    bandstand resume SESSION_DIR [--approve | --reject] [--json]
    bandstand sessions list [--out DIR] [--json]
    bandstand sessions clean [--out DIR] [--older-than DAYS] [--incomplete] [--yes]

A live progress display of the graph's nodes goes to stderr, then a summary
table (or, with --json, one JSON object on stdout).
"""

from __future__ import annotations

import contextlib
import gc
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

compose_app = typer.Typer(add_completion=False, rich_markup_mode=None)
resume_app = typer.Typer(add_completion=False, rich_markup_mode=None)
sessions_app = typer.Typer(add_completion=False, rich_markup_mode=None, help="List or clean compose sessions.")

# What each step is doing while it runs (a part node says which part it plays).
DOING = {"intent": "reading the prompt", "harmony": "choosing chords", "arrangement": "laying out sections",
         "parts": "playing the part", "sound": "picking sounds", "assembly": "assembling the multitrack",
         "validation": "listening back", "output": "writing files, rendering audio and piano roll"}
# The exit code of a run by its status (docs/compose.md "Exit codes"; 2 is a mistake in what was typed).
EXIT = {"completed": 0, "paused": 0, "failed": 1, "completed_partial": 3, "cancelled": 130}
EXIT_CODES = """\b
Exit codes:
  0    the song is finished (or paused at an approval gate)
  1    the run failed; 'bandstand resume SESSION_DIR' retries it
  2    a mistake in what was typed; nothing was written
  3    finished with problems: a file is missing ('bandstand resume SESSION_DIR' writes it
       once there is space, or with the higher time limit the message names) or the song
       scored below the quality gate (try another --seed)
  130  cancelled (Ctrl-C); 'bandstand resume SESSION_DIR' continues
"""
COMPOSE_EXAMPLES = """\b
Examples:
  bandstand compose "Frank Ocean meets Burial, late-night vibes" --seed 7
  bandstand compose "Trap beat, dark, 140 BPM, key of Am" --bars 16 --no-audio
  bandstand compose "lo-fi piano with 808s" --parts drums,chords,lead,sub_bass --out songs
  bandstand compose "melancholic indie ballad" --approve harmony     # pause after the chords
  bandstand compose "bossa nova for a rainy café" --bars 8 --json > result.json
  bandstand compose "funk groove in E minor" --takes 4 --no-audio     # the best of 4 takes of each part

""" + EXIT_CODES
RESUME_EXAMPLES = """\b
Examples:
  bandstand resume output/session-20260209-a1b2c3              # continue, or retry what failed
  bandstand resume output/session-20260209-a1b2c3 --approve    # past an approval gate
  bandstand resume output/session-20260209-a1b2c3 --reject     # redo that step with a new seed

""" + EXIT_CODES


def _console(stderr: bool = False) -> Any:
    """A rich console; when the output is a pipe or a file, wide enough not to wrap rows."""
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    return console if console.is_terminal else Console(stderr=stderr, highlight=False, width=160)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


class Progress:
    """Draws engine events: a live table on a terminal (one row per node, the parts as they
    become known), one line per event otherwise."""

    def __init__(self, quiet: bool) -> None:
        from bandstand.producer import App

        self.quiet = quiet
        self.console = _console(stderr=True)
        self.live_mode = self.console.is_terminal and not quiet
        self.rows: dict[str, tuple[str, str]] = {name: ("·", "") for name in App.compose_steps()}
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
        for name, (mark, text) in self.rows.items():
            table.add_row(f"[{styles.get(mark, '')}]{mark}[/]", f"[bold]{name}[/]", text)
        return table

    def _row(self, node: str, mark: str, text: str) -> None:
        """Set a node's row; the first part node takes the place of the `parts` placeholder."""
        if node not in self.rows and node.startswith("parts:"):
            rows = list(self.rows.items())
            at = next((i for i, (n, _) in enumerate(rows) if n == "sound"), len(rows))
            rows.insert(at, (node, ("·", "")))
            self.rows = {n: v for n, v in rows if n != "parts"}
        self.rows[node] = (mark, text)

    def __call__(self, event: Any) -> None:
        from bandstand.protocol import compose as ev

        with self.lock:
            kind = type(event)
            if kind is ev.NodeStarted:
                doing = DOING.get(event.node.split(":", 1)[0], "running")
                self._row(event.node, "…", doing if event.attempt == 1 else f"attempt {event.attempt}: {doing}")
            elif kind is ev.NodeProgress:
                self._row(event.node, "…", event.message)
            elif kind is ev.NodeCompleted:
                self._row(event.node, "✓", f"{event.summary}  [dim]{event.duration_ms:.0f} ms[/]")
            elif kind is ev.NodeRetry:
                self._row(event.node, "↻", f"retry {event.attempt}: {event.code}")
            elif kind is ev.NodeSkipped:
                self._row(event.node, "–", event.reason)
            elif kind is ev.NodeFailed:
                self._row(event.node, "✗", f"{event.code}: {event.message}")
            elif kind is ev.Paused:
                self._row(event.node, "⏸", f"{event.summary} — waiting for approval")
            if self.quiet:
                return
            if self.live is not None:
                self.live.update(self._render())
            elif kind is not ev.NodeStarted and kind is not ev.NodeProgress:  # a log gets the outcomes
                self.console.print(event.line(), markup=False)


def _answer(progress: Progress) -> Any:
    """Answers the producer's questions on a terminal; with no terminal there is no one to ask."""
    def ask(question: Any) -> str | None:
        if not _interactive():
            return None
        if progress.live is not None:
            progress.live.stop()
        try:
            if question.kind == "approval":
                reply = typer.prompt(f"{question.text}\n[a]pprove, [r]edo with a new seed, or [p]ause",
                                     default="a").strip().lower()
                return {"a": "approve", "r": "reject", "p": "pause"}.get(reply[:1], "approve")
            return str(typer.prompt(f"{question.text} ({', '.join(question.options)})", default=question.default))
        finally:
            if progress.live is not None:
                progress.live.start()
    return ask


def _summary_table(result: Any, console: Any) -> None:
    from rich.markup import escape
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
    takes = data.get("takes") or {}
    if takes.get("parts"):  # "best of 4: drums take 1 (0.81), bass take 3 (0.70), …"
        kept = [f"{part} take {t['kept'] + 1} ({max(t['scores']):.2f})" for part, t in takes["parts"].items()]
        table.add_row("takes", f"best of {takes['count']}: " + ", ".join(kept))
    timings = "  ".join(f"{name} {ms:.0f}" for name, ms in data["timings_ms"].items())
    table.add_row("time (ms)", f"{timings}  [bold]total {data['total_ms']:.0f}[/]")
    again = (f"{data['reproduce']} gives the same song" if data["reproduce"] else
             f"a step was redone with a new seed variant: --seed {data['seed']} gives the first take, not this song")
    table.add_row("seed", f"{data['seed']}  [dim]({escape(again)})[/]")
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


@contextlib.contextmanager
def _cancel_once() -> Iterator[None]:
    """Ctrl-C cancels the run: a KeyboardInterrupt, which the engine turns into a cancelled,
    resumable session within a second (the synthesis stopped, its processes reaped). Another
    Ctrl-C meanwhile is ignored: raised again, it could land inside a C callback (a model class
    being built mid-import) where Python can only print "Exception ignored", or cut the cleanup
    short. Once the command is done, `bandstand.cli.main` makes a further one quit at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is interrupt:  # never pressed: as it was
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """One compose is a short run that leaves little cyclic garbage (some 1,500 objects for a
    60-bar song), while the cycle collector, run every few hundred allocations over the objects
    the imports and the run make, cost a tenth of the command's CPU. It is paused for the
    command (reference counting still frees everything else at once), then as it was."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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
                                   f"(or --reject to redo that step)", markup=False)
        elif state.status == "cancelled":
            progress.console.print(f"Cancelled. Continue where it stopped: bandstand resume {where}", markup=False)
        elif state.status == "failed":
            progress.console.print(f"Failed: {state.error.message if state.error else ''}. {hint}. "
                                   f"Retry with: bandstand resume {where}", markup=False)
        elif state.status == "completed_partial" and state.error:
            retry = ("" if state.error.code in ("QUALITY_GATE_FAILED", "TIMEOUT")  # a timeout's hint says how
                     else f" Retry what failed: bandstand resume {where}")
            progress.console.print(f"Finished with problems: {state.error.message} ({hint}).{retry}", markup=False)
    code = EXIT.get(state.status, 1)
    if code:
        raise typer.Exit(code)


@compose_app.command(epilog=COMPOSE_EXAMPLES)
def compose(
    prompt: str = typer.Argument(..., help='What to make, e.g. "Frank Ocean meets Burial, late-night vibes".'),
    bars: int = typer.Option(None, "--bars", "-b", help="Length in bars (4–512; default: the genre's form)."),
    seed: int = typer.Option(None, "--seed", "-s", min=0, help="Seed; the same prompt and seed give the same song."),
    parts: str = typer.Option(None, "--parts", "-p", help="Parts to generate, comma-separated (drums,bass,chords,lead,pad,arp,percussion,counter_melody,sub_bass)."),
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder for session folders."),
    approve: list[str] = typer.Option(None, "--approve", help="Pause after this step (harmony, arrangement, parts, parts:bass, … or its number 1–8) and ask; repeatable."),
    skip: list[str] = typer.Option(None, "--skip", help="Skip this step (arrangement, sound, assembly, validation or output; or 3, 5–8); repeatable."),
    tempo: float = typer.Option(None, "--tempo", help="Tempo in BPM (overrides the prompt)."),
    key: str = typer.Option(None, "--key", help="Key, e.g. Am, F#, Eb (overrides the prompt)."),
    mode: str = typer.Option(None, "--mode", help="Mode: major, minor, dorian, … (overrides the prompt)."),
    genre: str = typer.Option(None, "--genre", help="Genre to use first (any genre name or alias)."),
    no_audio: bool = typer.Option(False, "--no-audio", help="Skip the WAV render."),
    stall_timeout: float = typer.Option(None, "--stall-timeout", min=0.0001, metavar="SECONDS", help="Stop a node's attempt once it has shown no progress for this long (default 60); a slow machine makes a node slower, not stopped."),
    stage_timeout: float = typer.Option(None, "--stage-timeout", min=0.0001, metavar="SECONDS", help="Also a wall-clock limit on each node's attempt (default: none)."),
    pipeline_timeout: float = typer.Option(None, "--pipeline-timeout", min=0.0001, metavar="SECONDS", help="Time limit of the whole run (default 300)."),
    intent_backend: str = typer.Option(None, "--intent-backend", help="Also read the prompt with a language model: claude-code, anthropic or openai (see 'bandstand agents check')."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Take defaults for ambiguities and approve gates without asking."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of the progress display."),
    team: bool = typer.Option(False, "--team", help="Compose with an agent team: one agent per instrument and per section; the result is a variation to accept."),
    team_file: Path = typer.Option(None, "--team-file", help="With --team: the seats (backend and persona per instrument) from a team file."),
    accept: bool = typer.Option(False, "--accept", help="With --team: accept the team's variation at once."),
    config: Path = typer.Option(None, "--config", help="With --team: a bandstand.toml ([agents] and [agents.team])."),
    takes: int = typer.Option(None, "--takes", help="Make this many takes of each part (1–8), score them with the quality model and keep the best; the others' scores go to the manifest."),
    quality: str = typer.Option(None, "--quality", help="A preset of takes: fast (1), balanced (3) or best (6)."),
    generator: list[str] = typer.Option(None, "--generator", metavar="ROLE=URL", help="Ask a model server for this part (e.g. bass=http://127.0.0.1:8000/part; protocol in docs/compose.md); its part is checked, and the built-in one plays if it is refused. Repeatable; default: the config file's [generators]."),
) -> None:
    """Compose a finished multi-track song from a prompt."""
    if team or team_file is not None:
        from bandstand.cli.teams import compose_with_team
        from bandstand.errors import InvalidInput
        from bandstand.producer.app import TeamRequest

        if approve or skip or intent_backend:
            raise InvalidInput("--approve, --skip and --intent-backend are for the pipeline; a --team composes "
                               "with agents (drop them, or drop --team)")
        compose_with_team(TeamRequest(prompt, seed=seed, bars=bars, parts=tuple(parts.split(",")) if parts else None,
                                      tempo=tempo, key=key, mode=mode, genre=genre, accept=accept,
                                      assume_defaults=yes, config=config, team_file=team_file, audio=not no_audio),
                          out=out, as_json=as_json)
        return
    from bandstand.producer import App
    from bandstand.producer.app import ComposeRequest

    App.check_team_choices(False, {"accept": accept, "config": config is not None}, spell=lambda name: f"--{name}")
    with _no_cycle_collection():
        request = ComposeRequest(prompt, seed=seed, bars=bars, parts=tuple(parts.split(",")) if parts else None,
                                 tempo=tempo, key=key, mode=mode, genre=genre, audio=not no_audio,
                                 assume_defaults=yes, takes=takes, quality=quality,
                                 approval_gates=tuple(approve or ()), skip_stages=tuple(skip or ()),
                                 intent_backend=intent_backend, generators=tuple(generator or ()),
                                 stall_timeout=stall_timeout, stage_timeout=stage_timeout,
                                 pipeline_timeout=pipeline_timeout)
        progress = Progress(quiet=as_json)
        with progress, _cancel_once():
            composed = App(out).compose(request, answer=_answer(progress), on_event=progress)
        if not as_json:
            for decision in composed.decisions:
                typer.echo(f"note: {decision} (--yes)", err=True)
            intent = composed.result.state.intent
            for doubt in intent.ambiguities if intent is not None else []:
                if doubt.severity == "optional":  # what was read differently from what was written ("key of Z")
                    typer.echo(f"warning: {doubt.reason}", err=True)
        _finish(composed.result, as_json, progress)


@resume_app.command(epilog=RESUME_EXAMPLES)
def resume(
    session_dir: Path = typer.Argument(..., help="The session folder (output/session-…)."),
    approve: bool = typer.Option(False, "--approve", help="Continue a session paused at an approval gate."),
    reject: bool = typer.Option(False, "--reject", help="Redo the step a paused session waits after, with a new seed."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve later gates without asking."),
    stall_timeout: float = typer.Option(None, "--stall-timeout", min=0.0001, metavar="SECONDS", help="A new limit on how long a node's attempt may show no progress (a run that timed out)."),
    stage_timeout: float = typer.Option(None, "--stage-timeout", min=0.0001, metavar="SECONDS", help="A new wall-clock limit for each node's attempt (a run that timed out)."),
    pipeline_timeout: float = typer.Option(None, "--pipeline-timeout", min=0.0001, metavar="SECONDS", help="A new time limit for the whole run."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of the progress display."),
) -> None:
    """Resume an interrupted, failed, cancelled or paused compose session; a session that
    finished with problems (exit code 3: a WAV a full disk refused) runs again what failed."""
    from bandstand.errors import InvalidInput
    from bandstand.producer import App

    if approve and reject:
        raise InvalidInput("use --approve or --reject, not both")
    progress = Progress(quiet=as_json)
    with progress, _cancel_once():
        limits = {k: v for k, v in (("stall_timeout", stall_timeout), ("stage_timeout", stage_timeout),
                                    ("pipeline_timeout", pipeline_timeout)) if v is not None}
        composed = App().resume(session_dir, decision="approve" if approve else "reject" if reject else None,
                               answer=_answer(progress), assume_defaults=yes, on_event=progress, limits=limits)
    _finish(composed.result, as_json, progress)


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
    """List sessions, newest change first, unfinished ones too."""
    from bandstand.producer import App

    infos = App(out).sessions(unfinished=True)
    if as_json:
        typer.echo(json.dumps([i.wire() for i in infos], indent=2, ensure_ascii=False))
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
        table.add_row(i.project_id, i.created_at[:16].replace("T", " "), i.genre, i.key or "",
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
    from bandstand.errors import InvalidInput
    from bandstand.producer import App

    app = App(out)
    plan = app.plan_clean(older_than_days=older_than, incomplete=incomplete)
    if plan.kept:
        n = len(plan.kept)
        typer.echo(f"kept {n} unfinished session{'s' if n != 1 else ''} changed in the last "
                   f"{app.active_seconds() // 60} minutes (a run may still be writing {'them' if n != 1 else 'it'}): "
                   + ", ".join(i.session_id for i in plan.kept))
    if plan.empty:
        typer.echo("nothing else to clean" if plan.kept else "nothing to clean")
        return
    for info, why in plan.sessions:
        typer.echo(f"  {info.path}  ({why})")
    for path in plan.temp_files:
        typer.echo(f"  {path}  (temporary file)")
    if not yes:
        if not _interactive():
            raise InvalidInput("sessions clean deletes files; confirm with --yes")
        if not typer.confirm(f"Delete {_count(len(plan.sessions), 'session')} and "
                             f"{_count(len(plan.temp_files), 'file')}?"):
            raise typer.Exit(1)
    typer.echo(f"removed {_count(app.clean(plan), 'item')}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
