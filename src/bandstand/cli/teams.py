"""`bandstand compose --team`: the CLI side of composing with an agent team.

It only translates: flags into `TeamOptions`, the team's stream into lines
on stderr (one per agent that finishes, every status and warning), the
outcome into a summary (or one JSON object with --json). The use case —
options, the run log under the runs folder (`compose-team-….jsonl`: the
studio page's log view follows it live and replays it), the render after an
accepted take — is `producer.teams.team_compose`, which MCP calls too. Ctrl-C or SIGTERM
cancels the team: every agent and seat stops, nothing is proposed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

__all__ = ["compose_with_team", "team_options"]

MARKS = {True: "✓", False: "✗"}


def team_options(*, seed: int | None, song: dict[str, Any], out: Path, accept: bool, yes: bool,
                 config: Path | None, team_file: Path | None) -> Any:
    """`TeamOptions` from the command line (`producer.teams.team_compose.team_options`)."""
    from bandstand.producer.teams.team_compose import team_options as options

    return options(seed=seed, song=song, out=out, accept=accept, assume_defaults=yes, config=config,
                   team_file=team_file)


def _line(event: dict[str, Any]) -> str | None:
    kind = event["type"]
    who = event.get("agentId") or ""
    if kind == "status":
        return f"  … {who}: {event['message']}"
    if kind == "agentComplete":
        return f"  {MARKS[bool(event['success'])]} {who}: {event.get('summary', '')}"
    if kind == "plan":
        return f"♪ {event['title']} — {len(event['steps'])} steps"
    if kind == "meta":
        counts = event["noteCounts"]
        return f"variation {event['variationId'][:8]}: +{counts['added']} notes in {len(event['affectedRegions'])} regions"
    return None


def compose_with_team(prompt: str, options: Any, *, as_json: bool, render_audio: bool) -> None:
    """Run the team (`producer.teams.team_compose`), show its progress, print the outcome."""
    import asyncio
    import signal

    from bandstand.producer.teams.team_compose import compose_with_team as run_team
    from bandstand.producer.teams.team_compose import finish

    def show(event: dict[str, Any]) -> None:
        line = _line(event)
        if line is not None:
            typer.echo(line, err=True)

    async def supervised() -> Any:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        return await run_team(prompt, options, on_event=None if as_json else show)

    try:
        run = asyncio.run(supervised())
    except asyncio.CancelledError:
        typer.echo("interrupted: the team was stopped; nothing was proposed", err=True)
        raise typer.Exit(130) from None
    outcome = finish(run, render_audio=render_audio)
    if as_json:
        typer.echo(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False))
        return
    written = sum(1 for s in outcome.sections if s["status"] == "written")
    typer.echo(f"{outcome.summary}")
    typer.echo(f"session: {outcome.session_dir} (seed {outcome.seed}; {written} of {len(outcome.sections)} "
               "sections written)")
    typer.echo(f"log: {run.log}")
    for warning in outcome.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if not outcome.accepted:
        typer.echo(f"Listen: bandstand audition {outcome.session_dir}; keep it: bandstand accept "
                   f"{outcome.session_dir}; or: bandstand discard {outcome.session_dir}")
