"""Sessions, teams and event logs on top of the agent backends.

- `session` — `Session` (start, send, ask, events, stop, close), `SessionLimits`,
  `SessionState`, `TurnResult`, `Validated`.
- `events` — the event types (`EVENT_FIELDS`), `EventLog`, `read_log`, `history_from_log`.
"""

from bandstand.runtime.events import EVENT_FIELDS, EventLog, history_from_log, read_log
from bandstand.runtime.session import (
    TERMINAL,
    Session,
    SessionLimits,
    SessionState,
    TurnResult,
    Validated,
)

__all__ = [
    "EVENT_FIELDS",
    "TERMINAL",
    "EventLog",
    "Session",
    "SessionLimits",
    "SessionState",
    "TurnResult",
    "Validated",
    "history_from_log",
    "read_log",
]
