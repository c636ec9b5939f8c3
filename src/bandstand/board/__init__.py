"""The conductor/musician task board on SQLite or PostgreSQL.

A conductor hands tasks to musicians through a durable board: tasks with a
strict state machine, atomic guarded claims, heartbeats and staleness,
messages with strictly increasing ids, review cycles, handoffs and
resumption; the skills and launch prompt of the sessions the launcher starts, and the
checkpoint gates (coverage, flaky reruns). See docs/board.md."""

from bandstand.board.board import (
    CONDUCTOR_MESSAGE_TYPES,
    CONDUCTOR_TASK,
    HEARTBEAT_REFRESH,
    HEARTBEAT_STALE,
    Board,
    ClaimResult,
    Health,
    Message,
    Task,
    format_ts,
    parse_ts,
    successor,
)
from bandstand.board.gates import COVERAGE_MIN, RERUNS, coverage_gate, flaky_reruns
from bandstand.board.reports import (
    AgentsRemaining,
    CompletionReport,
    ContextWarning,
    Deviations,
    ErrorReport,
    Handoff,
    KeyOutput,
    ReviewRequest,
    agents_that_fit,
    context_decision,
)
from bandstand.board.skilltext import launch_prompt, skill
from bandstand.board.states import (
    CLAIMABLE,
    TERMINAL,
    TRANSITIONS,
    Role,
    State,
    check_transition,
    is_legal,
)
from bandstand.board.stores import DEFAULT_URL, PostgresStore, SqliteStore, open_store

__all__ = [
    "CLAIMABLE",
    "CONDUCTOR_MESSAGE_TYPES",
    "CONDUCTOR_TASK",
    "COVERAGE_MIN",
    "DEFAULT_URL",
    "HEARTBEAT_REFRESH",
    "HEARTBEAT_STALE",
    "RERUNS",
    "TERMINAL",
    "TRANSITIONS",
    "AgentsRemaining",
    "Board",
    "ClaimResult",
    "CompletionReport",
    "ContextWarning",
    "Deviations",
    "ErrorReport",
    "Handoff",
    "Health",
    "KeyOutput",
    "Message",
    "PostgresStore",
    "ReviewRequest",
    "Role",
    "SqliteStore",
    "State",
    "Task",
    "agents_that_fit",
    "check_transition",
    "context_decision",
    "coverage_gate",
    "flaky_reruns",
    "format_ts",
    "is_legal",
    "launch_prompt",
    "open_store",
    "parse_ts",
    "skill",
    "successor",
]
