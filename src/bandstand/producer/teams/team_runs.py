"""Agent team runs as the clients reach them (`bandstand team run`/`resume`, the server's log
view): the team file, the team, where a stopped run resumes, and the run logs with their
reading budget — the runtime's own, re-exported (they live once, in `bandstand.runtime`; a
client imports only the producer, docs/architecture.md)."""

from __future__ import annotations

from bandstand.runtime.resume import resume_point
from bandstand.runtime.runs import RunBudget, RunFollower, list_runs, run_path
from bandstand.runtime.team import Team
from bandstand.runtime.teamfile import load_team

__all__ = ["RunBudget", "RunFollower", "Team", "list_runs", "load_team", "resume_point", "run_path"]
