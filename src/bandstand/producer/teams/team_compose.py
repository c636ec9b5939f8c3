"""Composing a song with an agent team, as one use case every client calls (`bandstand compose
--team`, MCP's `compose` with `team`): the options built from the agents' configuration and
a team file, the team run with its stream written to a run log under the runs folder
(`compose-team-….jsonl`, which the log view follows live and replays), the song rendered
after an accepted take.

    options = team_options(seed=3, song={"bars": 16}, out=Path("songs"), accept=False)
    run = await compose_with_team("funk groove in E minor", options, on_event=print)
    finish(run, render_audio=True)

A client only translates: it shows the events its way, cancels the coroutine when its user
stops it (every agent and seat stops; nothing is proposed) and prints the outcome.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.errors import InvalidInput, OutputNotWritable

if TYPE_CHECKING:  # the team runtime (asyncio, the agents) loads when a team runs, not for the option rule
    from bandstand.producer.execution.running import Control
    from bandstand.producer.teams import TeamOptions, TeamOutcome

__all__ = ["TeamRun", "compose_with_team", "finish", "refuse_team_choices_alone", "run_team", "team_options"]


def refuse_team_choices_alone(team: bool, choices: Mapping[str, bool], *,
                              spell: Callable[[str], str] = str) -> None:
    """The rule every client checks before composing: what only a team takes (accepting its
    variation at once, a team configuration) is refused without a team. `choices`: the client's
    names of those options → whether they were given; `spell` writes a name as the client does
    ("--accept" on the command line)."""
    if team or not any(choices.values()):
        return
    names = [spell(name) for name in choices]
    given = next(name for name, on in choices.items() if on)
    raise InvalidInput(f"{' and '.join(names)} {'goes' if len(names) == 1 else 'go'} with {spell('team')} (a team's "
                       "song is a variation to accept)", field=given)


def team_options(*, seed: int | None, song: Mapping[str, object], out: str | os.PathLike[str], accept: bool,
                 assume_defaults: bool = False, config: str | os.PathLike[str] | None = None,
                 team_file: str | os.PathLike[str] | None = None) -> TeamOptions:
    """`TeamOptions` from a client's choices: the agents' configuration ([agents] and its team table,
    `config` or bandstand.toml) and a team file's seats over it; `song` is compose's options
    (bars, parts, tempo, key, mode, genre)."""
    from bandstand.agents.config import load_config
    from bandstand.producer.teams.seats import team_config
    from bandstand.runtime.teamfile import load_team

    agents = load_config(Path(config) if config is not None else None)
    team = team_config(agents, load_team(Path(team_file)) if team_file is not None else None)
    from bandstand.producer.teams import TeamOptions

    return TeamOptions(seed=seed, compose=dict(song), out_dir=str(out), accept=accept, assume_defaults=assume_defaults,
                       team=team, agents=agents)


@dataclass(frozen=True, slots=True)
class TeamRun:
    """What a team did (`outcome`) and where its run log is (`log`)."""

    outcome: TeamOutcome
    log: Path


class _RunLog:
    """The team's stream as a run log: each event with the moment it was sent (`ts`) and who sent
    it (`session`: the agent, or "team" for the team as a whole)."""

    def __init__(self, path: Path) -> None:
        from bandstand.runtime import EventLog

        self.path = path
        self._log = EventLog(path)

    def write(self, event: dict[str, Any]) -> None:
        self._log.write({**event, "ts": time.time(), "session": event.get("agentId") or "team"})

    def close(self) -> None:
        self._log.close()


def _run_log(options: TeamOptions) -> _RunLog:
    path = Path(options.agents.runs_dir) / f"compose-team-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}.jsonl"
    try:
        return _RunLog(path)
    except OSError as exc:
        raise OutputNotWritable(f"cannot write the team's log {path}: {exc.strerror or exc}; choose another "
                                "runs_dir (bandstand.toml or BANDSTAND_RUNS_DIR)") from exc


async def compose_with_team(prompt: str, options: TeamOptions, *,
                            on_event: Callable[[dict[str, Any]], None] | None = None) -> TeamRun:
    """Run the team on `prompt`; each event of its stream goes to the run log and to `on_event`.
    Cancelling the coroutine stops the team (the log keeps what was said)."""
    from bandstand.protocol import STUDIO, Emitter

    emitter = Emitter(STUDIO)
    log = _run_log(options)
    emitter.subscribe(log.write)
    if on_event is not None:
        emitter.subscribe(on_event)
    try:
        from bandstand.producer.teams import compose_team

        outcome = await compose_team(prompt, options, emitter=emitter)
    finally:
        log.close()
    return TeamRun(outcome, log.path)


def run_team(prompt: str, options: TeamOptions, *, on_event: Callable[[dict[str, Any]], None] | None = None,
             control: Control | None = None) -> TeamRun:
    """`compose_with_team` on a loop of its own, blocking (call it off any event loop). Cancelling
    `control` stops every agent and seat, proposes nothing and raises `Cancelled`."""
    import asyncio

    async def supervised() -> TeamRun:
        team = asyncio.ensure_future(compose_with_team(prompt, options, on_event=on_event))
        while not team.done():
            if control is not None and control.cancelled:
                team.cancel()
            await asyncio.wait([team], timeout=0.05)
        return team.result()

    try:
        return asyncio.run(supervised())
    except asyncio.CancelledError:
        if control is not None:
            control.check("composing with a team")
        raise


def finish(run: TeamRun, *, render_audio: bool) -> TeamOutcome:
    """After the team: an accepted take is rendered when `render_audio` (a proposed one waits for
    its accept). Blocking; call it off the event loop."""
    if run.outcome.accepted and render_audio:
        from bandstand.producer.sessions.projects import open_project

        open_project(run.outcome.session_dir).ensure_audio()
    return run.outcome
