"""`bandstand compose --team`: the CLI side of composing with an agent team.

It only translates: flags into a `TeamRequest`, the team's stream into lines
on stderr (one per agent that finishes, every status and warning), the
outcome into a summary (or one JSON object with --json). The use case —
options, the run log under the runs folder (`compose-team-….jsonl`: the
studio page's log view follows it live and replays it), the render after an
accepted take — is `App.team` (`producer.teams.team_compose`), which MCP calls too.
Ctrl-C or SIGTERM cancels the team: every agent and seat stops, nothing is proposed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from bandstand.producer.app import TeamRequest

__all__ = ["compose_with_team"]

MARKS = {True: "✓", False: "✗"}


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


def compose_with_team(request: TeamRequest, *, out: Path, as_json: bool) -> None:
    """Run the team (`App.team`) into `out`, show its progress, print the outcome."""
    import signal

    from bandstand.producer import App
    from bandstand.producer.app import Cancelled, Control

    def show(event: dict[str, Any]) -> None:
        line = _line(event)
        if line is not None:
            typer.echo(line, err=True)

    control, heard = Control(), []

    def stop(signum: int, frame: object) -> None:
        heard.append(signum)
        control.cancel.set()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        run = App(out).team(request, on_event=None if as_json else show, control=control)
    except Cancelled:
        typer.echo("interrupted: the team was stopped; nothing was proposed", err=True)
        raise typer.Exit(130) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if heard:  # stopped while the accepted take rendered: as that signal does outside the team
        signal.raise_signal(heard[0])
    outcome = run.outcome
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
