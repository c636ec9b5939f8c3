"""The task states of the conductor/musician protocol and who may move a task
from which state to which. The table is the whole truth: `check_transition`
consults it and nothing else decides legality."""

from __future__ import annotations

from enum import StrEnum

from bandstand.errors import IllegalTransition, TerminalState


class State(StrEnum):
    WATCHING = "watching"  # created, unclaimed (set by the conductor)
    WORKING = "working"
    NEEDS_REVIEW = "needs_review"
    ERROR = "error"
    COMPLETE = "complete"  # terminal
    EXITED = "exited"  # terminal
    REVIEW_APPROVED = "review_approved"
    REVIEW_FAILED = "review_failed"
    FIX_PROPOSED = "fix_proposed"
    EXIT_REQUESTED = "exit_requested"


class Role(StrEnum):
    MUSICIAN = "musician"
    CONDUCTOR = "conductor"


TERMINAL: frozenset[State] = frozenset({State.COMPLETE, State.EXITED})

#: States from which a claim may take a task.
CLAIMABLE: frozenset[State] = frozenset({State.WATCHING, State.FIX_PROPOSED, State.EXIT_REQUESTED})

S = State
#: (from, to) → what the move means, per role.
TRANSITIONS: dict[Role, dict[tuple[State, State], str]] = {
    Role.MUSICIAN: {
        (S.WATCHING, S.WORKING): "claim",
        (S.FIX_PROPOSED, S.WORKING): "claim by a resuming session, or resume after a fix",
        (S.EXIT_REQUESTED, S.WORKING): "claim to prepare a handoff",
        (S.WORKING, S.NEEDS_REVIEW): "checkpoint reached, tests pass",
        (S.WORKING, S.ERROR): "failure, context worry, timeout",
        (S.REVIEW_APPROVED, S.WORKING): "resume after approval",
        (S.REVIEW_APPROVED, S.NEEDS_REVIEW): "final completion review",
        (S.REVIEW_FAILED, S.NEEDS_REVIEW): "resubmit after feedback",
        (S.FIX_PROPOSED, S.NEEDS_REVIEW): "resubmit after the fix",
        (S.WORKING, S.COMPLETE): "done, after approval of the final review",
        (S.WORKING, S.EXITED): "clean handoff",
        (S.ERROR, S.EXITED): "unrecoverable",
    },
    Role.CONDUCTOR: {
        (S.NEEDS_REVIEW, S.REVIEW_APPROVED): "approve",
        (S.NEEDS_REVIEW, S.REVIEW_FAILED): "reject with feedback",
        (S.NEEDS_REVIEW, S.FIX_PROPOSED): "propose a fix",
        (S.ERROR, S.FIX_PROPOSED): "propose a fix",
        (S.WORKING, S.FIX_PROPOSED): "crash recovery (only when the heartbeat is stale)",
        (S.REVIEW_APPROVED, S.FIX_PROPOSED): "crash recovery (only when the heartbeat is stale)",
        (S.REVIEW_FAILED, S.FIX_PROPOSED): "crash recovery (only when the heartbeat is stale)",
        **{
            (s, S.EXIT_REQUESTED): "request exit"
            for s in State
            if s not in TERMINAL and s is not S.EXIT_REQUESTED
        },
    },
}

#: Conductor moves that need a stale heartbeat to be legal: the musician holding the task
#: must act next, so only a silent (probably crashed) session may be taken over.
NEEDS_STALE: frozenset[tuple[State, State]] = frozenset(
    {(S.WORKING, S.FIX_PROPOSED), (S.REVIEW_APPROVED, S.FIX_PROPOSED), (S.REVIEW_FAILED, S.FIX_PROPOSED)}
)

#: States in which someone should be keeping the heartbeat fresh (the holding musician, or
#: its watchers), so a stale heartbeat means a probable crash; each names how the conductor
#: recovers the task. Not here: watching (nobody holds it yet) and the terminal states.
RECOVERY: dict[State, str] = {
    S.WORKING: "propose-fix (crash recovery) or request-exit",
    S.NEEDS_REVIEW: "review it (approve, reject) or propose-fix",
    S.ERROR: "propose-fix or request-exit",
    S.REVIEW_APPROVED: "propose-fix (crash recovery) or request-exit",
    S.REVIEW_FAILED: "propose-fix (crash recovery) or request-exit",
    S.FIX_PROPOSED: "nobody took the fix up: a new session claims the task",
    S.EXIT_REQUESTED: "nobody handed off: a new session claims the task to finish the handoff",
}


def is_legal(role: Role, from_state: State, to_state: State) -> bool:
    """True if `role` may move a task from `from_state` to `to_state`."""
    return (State(from_state), State(to_state)) in TRANSITIONS[Role(role)]


def check_transition(role: Role, from_state: State, to_state: State, *, task_id: str = "") -> str:
    """Return the meaning of a legal move; raise naming both states otherwise."""
    f, t, r = State(from_state), State(to_state), Role(role)
    where = f" for {task_id}" if task_id else ""
    if f in TERMINAL:
        raise TerminalState(
            f"{f} is terminal{where}: a finished task never changes (asked to move it to {t})",
            from_state=f, to_state=t, task_id=task_id,
        )
    meaning = TRANSITIONS[r].get((f, t))
    if meaning is None:
        allowed = sorted(str(b) for (a, b) in TRANSITIONS[r] if a == f)
        raise IllegalTransition(
            f"a {r} cannot move a task from {f} to {t}{where}; from {f} a {r} may go to: "
            + (", ".join(allowed) or "nothing"),
            from_state=f, to_state=t, task_id=task_id,
        )
    return meaning
