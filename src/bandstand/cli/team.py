"""`bandstand team run FILE --prompt "…"` — run a team of agents and print its live events;
`bandstand team resume RUN_DIR` — continue a run from its logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(
    add_completion=False,
    rich_markup_mode=None,
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the root
    help="Teams of agents: a leader and teammates described in a file.",
)


@app.callback()
def _group() -> None:
    """Teams of agents: a leader and teammates described in a file."""


# event type → the fields shown on its line (text deltas are shown as they stream)
SHOWN: dict[str, tuple[str, ...]] = {
    "team_started": ("leader", "teammates"),
    "session_started": ("backend",),
    "team_resumed": ("round", "next_input"),
    "turn_started": ("turn", "input"),
    "tool_use": ("tool",),
    "turn_completed": ("turn", "duration_s", "cost_usd"),
    "turn_failed": ("turn", "reason", "error"),
    "reply_invalid": ("error", "action"),
    "delegated": ("round", "to", "task"),
    "teammate_result": ("from_member", "ok", "result"),
    "teammate_started": ("description",),
    "teammate_tool_use": ("tool",),
    "teammate_finished": ("status", "summary"),
    "leader_invalid": ("error",),
    "session_ended": ("reason", "turns"),
    "team_ended": ("reason", "rounds", "cost_usd"),
}


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_event(event: dict[str, Any]) -> str | None:
    """One human line for an event, or None for events not shown."""
    kind = event.get("type", "")
    if kind not in SHOWN:
        return None
    fields = " ".join(f"{k}={_short(event[k])}" for k in SHOWN[kind] if k in event)
    who = event.get("session", "?")
    if event.get("agent"):  # a claude-code leader's own teammate
        who = f"{who}/{event['agent']}"
    return f"[{who}] {kind} {fields}".rstrip()


TEAM_EXAMPLES = """\b
Examples:
  bandstand team run examples/band.toml --prompt "a late-night groove in A minor at 84 bpm"
  bandstand team run my-team.toml -p "write a bass line" --json --runs-dir /tmp/runs
"""

RESUME_EXAMPLES = """\b
Examples:
  bandstand team resume runs/team-late-night-band-20260101-120000
  bandstand team resume runs/team-old-20250101-090000 --team-file my-team.toml --json
"""


@app.command("run", epilog=TEAM_EXAMPLES)
def run_team(
    file: Path = typer.Argument(..., help="The team file (TOML).", metavar="FILE.toml"),
    prompt: str = typer.Option(..., "--prompt", "-p", help="What the team should do."),
    config: Path | None = typer.Option(
        None, "--config", help="A bandstand.toml (default: ./bandstand.toml)."
    ),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where the JSONL event logs go."),
    as_json: bool = typer.Option(False, "--json", help="Print every event as one JSON line."),
) -> None:
    """Run the team on --prompt, printing the live events; then the answer."""
    from bandstand.producer import App

    ready = App.team_runs(runs_dir, config).start(file, prompt)
    _execute(ready.team, ready.prompt, ready.log_dir, as_json)


@app.command("resume", epilog=RESUME_EXAMPLES)
def resume_team(
    run_dir: Path = typer.Argument(..., help="The run's folder (printed after 'log:').", metavar="RUN_DIR"),
    team_file: Path | None = typer.Option(
        None, "--team-file", help="The team file, for a run whose log does not record it."
    ),
    config: Path | None = typer.Option(
        None, "--config", help="A bandstand.toml (default: ./bandstand.toml)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print every event as one JSON line."),
) -> None:
    """Continue a team run from its logs: every member keeps its conversation, the leader
    gets what it was waiting for; new events go to the same folder."""
    from bandstand.producer import App

    ready = App.team_runs(config=config).resume(run_dir, team_file)
    if ready.done is not None:  # the leader had answered: nothing to continue
        if as_json:
            typer.echo(json.dumps({"type": "already_done", "answer": ready.done}, ensure_ascii=False))
        else:
            typer.echo(f"{ready.done or '(no answer)'}\nlog: {run_dir} (already done; nothing to continue)")
        return
    _execute(ready.team, ready.prompt, run_dir, as_json, ready.resume)


def _execute(team: Any, prompt: str, log_dir: Path, as_json: bool, resume: Any = None) -> None:
    """Run (or continue) `team`, printing its events; then the answer. Exit 1 unless it is done."""
    import asyncio
    import signal

    def show(event: dict[str, Any]) -> None:
        if as_json:
            typer.echo(json.dumps(event, ensure_ascii=False, default=str))
        elif (line := format_event(event)) is not None:
            typer.echo(line)

    team.add_listener(show)

    async def supervised() -> Any:
        # Ctrl-C or SIGTERM cancels the run; Team.run stops every member (no process left behind)
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        return await team.run(prompt, resume)

    try:
        result = asyncio.run(supervised())
    except asyncio.CancelledError:
        typer.echo("interrupted: the team was stopped", err=True)
        raise typer.Exit(130) from None
    if not as_json:
        typer.echo(f"\n{result.answer}" if result.answer else f"\n(no answer: {result.reason})")
        typer.echo(f"log: {log_dir}")
    if not result.done:
        raise typer.Exit(1)
