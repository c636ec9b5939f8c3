"""The two hooks for agent sessions (Claude Code hook protocol: JSON on stdin,
a decision as JSON on stdout).

- session start: injects `CLAUDE_SESSION_ID=<id>` as additional context.
- stop: a musician may stop only when its task is complete or exited, the
  conductor (task-00) only in exit_requested or complete; otherwise the stop
  is blocked with a prompt saying what is left. After 500 (musician) or 1000
  (conductor) blocked stops the hook lets the session stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bandstand.board.board import CONDUCTOR_TASK, Board
from bandstand.board.states import State
from bandstand.files import write_text

MUSICIAN_MAY_STOP = frozenset({State.COMPLETE, State.EXITED})
CONDUCTOR_MAY_STOP = frozenset({State.EXIT_REQUESTED, State.COMPLETE})
CAPS = {"musician": 500, "conductor": 1000}

NEXT_STEP = {
    State.WORKING: "finish the current step, then request a review (bandstand board request-review) or hand off",
    State.NEEDS_REVIEW: "wait for the conductor's review (bandstand board wait)",
    State.ERROR: "wait for the conductor's fix proposal or exit request",
    State.REVIEW_APPROVED: "resume work (bandstand board resume) or complete the task",
    State.REVIEW_FAILED: "address the feedback and resubmit for review",
    State.FIX_PROPOSED: "apply the proposed fix and resubmit for review",
    State.EXIT_REQUESTED: "write the HANDOFF and exit cleanly (bandstand board handoff)",
    State.WATCHING: "claim the task (bandstand board claim)",
}


def session_start(payload: dict[str, Any]) -> dict[str, Any]:
    session_id = str(payload.get("session_id") or "").strip()
    if not session_id:
        # nothing to inject: an empty CLAUDE_SESSION_ID= would make every later
        # board command act as nobody instead of saying "--session is missing"
        return {}
    return {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": f"CLAUDE_SESSION_ID={session_id}",
        }
    }


def _counter(workdir: Path, session_id: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)
    return workdir / ".bandstand" / "hooks" / f"stop-{safe}.count"


def stop(payload: dict[str, Any], board: Board) -> dict[str, Any]:
    """Decide whether the session may stop. `{}` allows; `{"decision": "block", …}` blocks."""
    session_id = str(payload.get("session_id") or "")
    tasks = [t for t in board.tasks_of_session(session_id) if not t.task_id.startswith("fallback-")]
    if not session_id or not tasks:
        return {}
    task = tasks[0]
    role = "conductor" if task.task_id == CONDUCTOR_TASK else "musician"
    allowed = CONDUCTOR_MAY_STOP if role == "conductor" else MUSICIAN_MAY_STOP
    if task.state in allowed:
        return {}
    counter = _counter(board.workdir, session_id)
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    write_text(counter, str(count))
    if count > CAPS[role]:
        return {"systemMessage": f"stop allowed after {CAPS[role]} blocked attempts; {task.task_id} is still {task.state}"}
    return {
        "decision": "block",
        "reason": (
            f"{task.task_id} is {task.state}; a {role} may stop only when it is "
            f"{' or '.join(sorted(allowed))}. Next: {NEXT_STEP.get(task.state, 'finish the protocol')}."
        ),
    }
