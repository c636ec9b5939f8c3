"""The three health checks, with the exit codes scripts rely on.

- `check_state(board, task, session?)`: 0 healthy, 1 issues.
- `check_temp(workdir, task)`: 0 healthy, 1 issues.
- `check_headroom(workdir, task)`: 0 healthy, 1 caution (self-correction or
  > 60% context), 2 critical (> 75%)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bandstand.board.board import CONDUCTOR_MESSAGE_TYPES, CONDUCTOR_TASK, Board, parse_ts
from bandstand.board.states import RECOVERY, State
from bandstand.board.taskfiles import (
    AGENT_LAUNCHED,
    AGENT_RETURNED,
    CTX,
    SELF_CORRECTION,
    TaskFiles,
)

HEARTBEAT_OK_S = 480
HEARTBEAT_ALARM_S = 540


@dataclass
class CheckReport:
    name: str
    code: int = 0
    lines: list[str] = field(default_factory=list)
    data: dict[str, object] = field(default_factory=dict)

    def ok(self, text: str) -> None:
        self.lines.append(f"OK    {text}")

    def issue(self, text: str, code: int = 1) -> None:
        self.lines.append(f"ISSUE {text}" if code == 1 else f"CRIT  {text}")
        self.code = max(self.code, code)

    def render(self) -> str:
        verdict = {0: "healthy", 1: "issues found", 2: "critical"}[self.code]
        return "\n".join([f"{self.name}: {verdict}", *self.lines])


def heartbeat_status(age_s: float | None) -> str:
    if age_s is None:
        return "NONE"
    if age_s < HEARTBEAT_OK_S:
        return "OK"
    return "STALE" if age_s <= HEARTBEAT_ALARM_S else "ALARM"


#: What the protocol's own writes always leave on a row in each state: a claim sets the
#: session, its name and the heartbeat; a conductor's move sets the heartbeat (an exit may
#: be requested of a task nobody claimed yet); a terminal write sets completed_at; nobody
#: holds a watching task. A row without these was written by something else.
_HELD = ("session_id", "worked_by", "last_heartbeat")
REQUIRED: dict[State, tuple[str, ...]] = {
    **{s: _HELD for s in RECOVERY},
    State.EXIT_REQUESTED: ("last_heartbeat",),
    State.WATCHING: (),
    State.COMPLETE: ("completed_at",),
    State.EXITED: ("completed_at",),
}


def _state_valid(report: CheckReport, row: dict[str, object]) -> State | None:
    """Is the row's state one of the protocol's, with what that state implies? None if unknown."""
    try:
        state = State(str(row["state"]))
    except ValueError:
        report.issue(f"state {row['state']!r} is not a protocol state (one of {', '.join(s.value for s in State)})")
        return None
    missing = [f for f in REQUIRED[state] if not row.get(f)]
    if missing:
        report.issue(f"state {state} but no {', '.join(missing)}: the protocol never writes such a row")
    elif state is State.WATCHING and row.get("session_id"):
        report.issue(f"state watching but held by session {row['session_id']}: a claim was never finished")
    else:
        report.ok(f"state {state} is valid")
    return state


def check_state(board: Board, task_id: str, session_id: str | None = None) -> CheckReport:
    report = CheckReport(f"state check for {task_id}")
    row = board.task_row(task_id)
    if row is None:
        report.issue(f"{task_id} does not exist on the board")
        return report
    report.ok(f"{task_id} exists (state {row['state']}, worked by {row['worked_by'] or 'nobody'})")
    report.data["state"] = str(row["state"])
    if session_id is not None:
        if row["session_id"] == session_id:
            report.ok(f"session {session_id} holds the task")
        else:
            report.issue(f"session mismatch: the board says {row['session_id'] or 'nobody'}, you are {session_id}")
    state = _state_valid(report, row)
    heartbeat = row["last_heartbeat"]
    age_s = None if heartbeat is None else (board.clock() - parse_ts(str(heartbeat))).total_seconds()
    status = heartbeat_status(age_s)
    report.data["heartbeat"] = status
    if state is not None and state not in RECOVERY and task_id != CONDUCTOR_TASK:
        report.ok(f"heartbeat not expected in state {state}" + (f" ({int(age_s)} s old)" if age_s is not None else ""))
    elif status == "OK":
        report.ok(f"heartbeat OK ({int(age_s or 0)} s)")
    elif status == "NONE":
        report.issue("no heartbeat yet")
    else:
        report.issue(f"heartbeat {status} ({int(age_s or 0)} s old)")
    mine = board.messages_since(0, task_id=task_id)
    holder = row["session_id"]
    last_own = max((m.id for m in mine if m.from_session == holder and m.message_type not in CONDUCTOR_MESSAGE_TYPES),
                   default=0)
    pending = [m for m in mine if m.message_type in CONDUCTOR_MESSAGE_TYPES and m.id > last_own]
    report.data["pending_messages"] = len(pending)
    if pending:
        report.issue(f"{len(pending)} conductor message(s) not yet answered: "
                     + ", ".join(f"#{m.id} {m.message_type}" for m in pending))
    else:
        report.ok("no pending conductor messages")
    fallbacks = [str(r["task_id"]) for r in board.task_rows() if str(r["task_id"]).startswith("fallback-") and (
        r["worked_by"] == f"fallback-{task_id}" or (session_id and r["session_id"] == session_id))]
    report.data["fallback_rows"] = fallbacks
    if fallbacks:
        report.issue("fallback rows: " + ", ".join(fallbacks))
    else:
        report.ok("no fallback rows")
    return report


def check_temp(workdir: str | Path, task_id: str) -> CheckReport:
    files = TaskFiles(workdir, task_id)
    report = CheckReport(f"temp files check for {task_id}")
    for label, path in (("status", files.status_path), ("deviations", files.deviations_path)):
        (report.ok if path.exists() else report.issue)(f"{label} file {'exists' if path.exists() else 'missing'}: {path}")
    counts = files.severity_counts()
    report.data["severity"] = counts
    line = f"deviations: {counts['Low']} Low, {counts['Medium']} Medium, {counts['High']} High"
    (report.issue if files.must_escalate() else report.ok)(line + (" → escalate" if files.must_escalate() else ""))
    others = sorted({p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in files.temp.glob("task-*")
                     if not p.name.startswith(task_id + "-")}) if files.temp.exists() else []
    report.data["other_tasks"] = others
    report.ok("other tasks' files: " + (", ".join(others) or "none"))
    corrections = [line for line in files.status_lines() if SELF_CORRECTION.search(line)]
    report.data["self_corrections"] = len(corrections)
    report.ok(f"self-correction events: {len(corrections)}")
    report.ok("HANDOFF present" if files.handoff_path.exists() else "no HANDOFF")
    return report


def check_headroom(workdir: str | Path, task_id: str) -> CheckReport:
    files = TaskFiles(workdir, task_id)
    report = CheckReport(f"context headroom for {task_id}")
    if not files.status_path.exists():
        report.issue(f"no status file at {files.status_path}: nothing says how much context is used "
                     f"(log steps with 'bandstand board status {task_id} \"step 1 started\" --ctx N')")
        return report
    lines = files.status_lines()
    trajectory = [float(m.group(1)) for line in lines if (m := CTX.search(line))]
    launched = sum(bool(AGENT_LAUNCHED.search(line)) for line in lines)
    returned = sum(bool(AGENT_RETURNED.search(line)) for line in lines)
    steps = len({m.group(1) for line in lines if (m := re.search(r"\bstep (\d+)", line, re.IGNORECASE))})
    corrections = sum(bool(SELF_CORRECTION.search(line)) for line in lines)
    report.data.update(trajectory=trajectory, agents_launched=launched, agents_returned=returned,
                       agents_out=max(0, launched - returned), steps=steps, self_corrections=corrections)
    if not trajectory:
        report.issue("no [ctx: N%] entries in the status file: the context usage is unknown")
        return report
    current = trajectory[-1]
    report.ok("trajectory: " + " → ".join(f"{v:g}%" for v in trajectory))
    report.ok(f"agents launched {launched}, returned {returned}"
              + (f" ({launched - returned} still out)" if launched > returned else "") + f"; steps {steps}")
    if current > 75:
        report.issue(f"context at {current:g}% (> 75%): stop and hand off", code=2)
    elif current > 60:
        report.issue(f"context at {current:g}% (> 60%): caution")
    else:
        report.ok(f"context at {current:g}%")
    if corrections:
        report.issue(f"{corrections} self-correction event(s): estimates inflate ~6×")
    return report
