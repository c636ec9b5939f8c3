"""Agent team runs under a runs folder, as the clients reach them through `App.team_runs` (`bandstand team
run`/`resume`, the server's log view): a run made ready from a team file (its log folder chosen and made
here, refused in one line when it cannot be written), a stopped run made ready to go on from its logs, and
the runs listed and followed within a reading budget. The runtime's own pieces do the work (`runtime.runs`,
`runtime.resume`, `runtime.team`), imported on use."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bandstand.agents.config import AgentsConfig
    from bandstand.runtime.runs import RunBudget, RunFollower, RunInfo
    from bandstand.runtime.team import Resume, Team

__all__ = ["ReadyRun", "TeamRuns"]


@dataclass(frozen=True, slots=True)
class ReadyRun:
    """A team run ready to go: the team, what it is given (its prompt; where it goes on, when resumed) and its
    log folder — or a resumed run that had finished: its answer (`done`) and no team."""

    log_dir: Path
    team: Team | None = None
    prompt: str = ""
    resume: Resume | None = None
    done: str | None = None


@dataclass(frozen=True, slots=True)
class TeamRuns:
    """The runs under `runs_dir` (None: the agents' configuration's, `config` or bandstand.toml and the
    environment), read within `budget` (None: `runtime.runs.RunBudget()`)."""

    runs_dir: str | os.PathLike[str] | None = None
    config: str | os.PathLike[str] | None = None
    budget: RunBudget | None = None

    def settings(self) -> AgentsConfig:
        """The agents' configuration, the runs folder given here over its own."""
        from bandstand.producer.engines.backends import load_config

        return load_config(self.config, overrides={"runs_dir": str(self.runs_dir) if self.runs_dir else None})

    @property
    def root(self) -> Path:
        return Path(self.runs_dir) if self.runs_dir is not None else Path(self.settings().runs_dir)

    def runs(self) -> list[RunInfo]:
        """The runs, newest first (`runtime.runs.list_runs`)."""
        from bandstand.runtime.runs import RunBudget, list_runs

        return list_runs(self.root, self.budget or RunBudget())

    def follow(self, name: str) -> RunFollower:
        """The run `name` read as it grows (`NotFound` when there is none by that name)."""
        from bandstand.runtime.runs import RunBudget, RunFollower, run_path

        return RunFollower(run_path(self.root, name), self.budget or RunBudget())

    def start(self, team_file: str | os.PathLike[str], prompt: str) -> ReadyRun:
        """A new run of the team `team_file` describes on `prompt`, its log folder (team-NAME-TIME under the
        runs folder) made before any member starts, so a bad folder is one line, not a crash mid-run."""
        from bandstand.errors import InvalidInput, OutputNotWritable
        from bandstand.runtime.team import Team
        from bandstand.runtime.teamfile import load_team

        if not prompt.strip():
            raise InvalidInput('the prompt is empty; pass --prompt "what the team should do"')
        settings = self.settings()
        spec = load_team(team_file)
        log_dir = Path(settings.runs_dir) / f"team-{spec.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputNotWritable(
                f"cannot create the log folder {log_dir}: {exc.strerror or exc}; "
                "choose another --runs-dir (or runs_dir in bandstand.toml)"
            ) from exc
        return ReadyRun(log_dir, Team(spec, settings, log_dir=log_dir), prompt)

    def resume(self, run_dir: str | os.PathLike[str], team_file: str | os.PathLike[str] | None = None) -> ReadyRun:
        """The run in `run_dir` ready to go on from its logs (`runtime.resume.resume_point`; `team_file` for a run
        whose log does not record it): every member keeps its conversation, new events go to the same folder."""
        from bandstand.runtime.resume import resume_point
        from bandstand.runtime.team import Team
        from bandstand.runtime.teamfile import load_team

        plan = resume_point(Path(run_dir), load_team(team_file) if team_file is not None else None)
        if plan.done is not None:  # the leader had answered: nothing to continue
            return ReadyRun(Path(run_dir), done=plan.done)
        team = Team(plan.spec, self.settings(), log_dir=Path(run_dir), histories=plan.resume.histories)
        return ReadyRun(Path(run_dir), team, plan.resume.prompt, plan.resume)
