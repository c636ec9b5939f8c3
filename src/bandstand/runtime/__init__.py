"""Sessions, teams and event logs on top of the agent backends.

- `session` — `Session` (start, send, ask, events, wait, stop, close).
- `states` — `SessionState`, `SessionLimits`, `TurnResult`, `Validated`.
- `events` — the event types (`EVENT_FIELDS`), `EventLog`, `read_log`, `history_from_log`.
- `team`, `teamfile` — `Team`, `TeamResult`, `LeaderReply`, `TeamSpec`, `load_team`, `parse_team`.
- `resume` — `Resume`, `ResumePlan`, `resume_point`: continue a team run from its logs.
"""

from bandstand.runtime.events import EVENT_FIELDS, EventLog, history_from_log, read_log
from bandstand.runtime.resume import ResumePlan, resume_point
from bandstand.runtime.session import Session
from bandstand.runtime.states import TERMINAL, SessionLimits, SessionState, TurnResult, Validated
from bandstand.runtime.team import TEAM_EVENT_FIELDS, LeaderReply, Resume, Team, TeamResult
from bandstand.runtime.teamfile import TeamSpec, load_team, parse_team

__all__ = [
    "EVENT_FIELDS",
    "TEAM_EVENT_FIELDS",
    "TERMINAL",
    "EventLog",
    "LeaderReply",
    "Resume",
    "ResumePlan",
    "Session",
    "SessionLimits",
    "SessionState",
    "Team",
    "TeamResult",
    "TeamSpec",
    "TurnResult",
    "Validated",
    "history_from_log",
    "load_team",
    "parse_team",
    "read_log",
    "resume_point",
]
