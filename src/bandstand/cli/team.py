"""`bandstand team run FILE --prompt "…"` — run a team of agents and print its live events."""

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
    "turn_started": ("turn", "input"),
    "tool_use": ("tool",),
    "turn_completed": ("turn", "duration_s", "cost_usd"),
    "turn_failed": ("turn", "reason", "error"),
    "reply_invalid": ("error", "action"),
    "delegated": ("round", "to", "task"),
    "teammate_result": ("from_member", "ok", "result"),
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
    return f"[{event.get('session', '?')}] {kind} {fields}".rstrip()


TEAM_EXAMPLES = """\b
Examples:
  bandstand team run examples/team.toml --prompt "a late-night groove in A minor"
  bandstand team run my-team.toml -p "write a bass line" --json --runs-dir /tmp/runs
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
    import asyncio
    import signal
    import time

    from bandstand.agents.config import load_config
    from bandstand.errors import InvalidInput, OutputNotWritable
    from bandstand.runtime.team import Team
    from bandstand.runtime.teamfile import load_team

    if not prompt.strip():
        raise InvalidInput('the prompt is empty; pass --prompt "what the team should do"')
    settings = load_config(config, overrides={"runs_dir": str(runs_dir) if runs_dir else None})
    spec = load_team(file)
    log_dir = Path(settings.runs_dir) / f"team-{spec.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    try:  # before any member starts, so a bad folder is one line, not a crash mid-run
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputNotWritable(
            f"cannot create the log folder {log_dir}: {exc.strerror or exc}; "
            "choose another --runs-dir (or runs_dir in bandstand.toml)"
        ) from exc
    team = Team(spec, settings, log_dir=log_dir)

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
        return await team.run(prompt)

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
