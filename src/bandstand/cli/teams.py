"""`bandstand compose --team`: the CLI side of composing with an agent team.

It only translates: flags into `TeamOptions`, the team's stream into lines
on stderr (one per agent that finishes, every status and warning) and into a
run log under the runs folder (`compose-team-….jsonl`: the studio page's log
view follows it live and replays it), the outcome into a summary (or one JSON
object with --json). Ctrl-C or SIGTERM
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
    """`TeamOptions` from the command line: the agents' configuration ([agents] and its team
    table) and a team file's seats over it."""
    from bandstand.agents.config import load_config
    from bandstand.producer.teams import TeamOptions
    from bandstand.producer.teams.seats import team_config
    from bandstand.runtime.teamfile import load_team

    agents = load_config(config)
    team = team_config(agents, load_team(team_file) if team_file is not None else None)
    return TeamOptions(seed=seed, compose=song, out_dir=str(out), accept=accept, assume_defaults=yes, team=team,
                       agents=agents)


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
    """Run the team, show its progress, print the outcome; exit 1 when nothing could be proposed."""
    import asyncio
    import signal

    from bandstand.producer.projects import open_project
    from bandstand.producer.teams import compose_team
    from bandstand.protocol import STUDIO, Emitter

    emitter = Emitter(STUDIO)
    log = _run_log(options)
    emitter.subscribe(log.write)
    if not as_json:
        def show(event: dict[str, Any]) -> None:
            line = _line(event)
            if line is not None:
                typer.echo(line, err=True)
        emitter.subscribe(show)

    async def supervised() -> Any:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        return await compose_team(prompt, options, emitter=emitter)

    try:
        outcome = asyncio.run(supervised())
    except asyncio.CancelledError:
        typer.echo("interrupted: the team was stopped; nothing was proposed", err=True)
        raise typer.Exit(130) from None
    finally:
        log.close()
    if outcome.accepted and render_audio:
        open_project(outcome.session_dir).ensure_audio()
    if as_json:
        typer.echo(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False))
        return
    written = sum(1 for s in outcome.sections if s["status"] == "written")
    typer.echo(f"{outcome.summary}")
    typer.echo(f"session: {outcome.session_dir} (seed {outcome.seed}; {written} of {len(outcome.sections)} "
               "sections written)")
    typer.echo(f"log: {log.path}")
    for warning in outcome.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if not outcome.accepted:
        typer.echo(f"Listen: bandstand audition {outcome.session_dir}; keep it: bandstand accept "
                   f"{outcome.session_dir}; or: bandstand discard {outcome.session_dir}")


class _RunLog:
    """The team's stream as a run log: each event with the moment it was sent (`ts`) and who sent
    it (`session`: the agent, or "team" for the team as a whole)."""

    def __init__(self, path: Path) -> None:
        from bandstand.runtime import EventLog

        self.path = path
        self._log = EventLog(path)

    def write(self, event: dict[str, Any]) -> None:
        import time

        self._log.write({**event, "ts": time.time(), "session": event.get("agentId") or "team"})

    def close(self) -> None:
        self._log.close()


def _run_log(options: Any) -> _RunLog:
    import time

    from bandstand.errors import OutputNotWritable

    path = Path(options.agents.runs_dir) / f"compose-team-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}.jsonl"
    try:
        return _RunLog(path)
    except OSError as exc:
        raise OutputNotWritable(f"cannot write the team's log {path}: {exc.strerror or exc}; choose another "
                                "runs_dir (bandstand.toml or BANDSTAND_RUNS_DIR)") from exc
