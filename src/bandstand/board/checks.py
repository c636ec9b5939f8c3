"""The three health checks, with the exit codes scripts rely on.

- `check_state(board, task, session?)`: 0 healthy, 1 issues.
- `check_temp(workdir, task)`: 0 healthy, 1 issues.
- `check_headroom(workdir, task)`: 0 healthy, 1 caution (self-correction or
  > 60% context), 2 critical (> 75%)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bandstand.board.board import CONDUCTOR_MESSAGE_TYPES, Board
from bandstand.board.taskfiles import CTX, TaskFiles

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


def check_state(board: Board, task_id: str, session_id: str | None = None) -> CheckReport:
    report = CheckReport(f"state check for {task_id}")
    task = board.find_task(task_id)
    if task is None:
        report.issue(f"{task_id} does not exist on the board")
        return report
    report.ok(f"{task_id} exists (state {task.state}, worked by {task.worked_by or 'nobody'})")
    report.data["state"] = str(task.state)
    if session_id is not None:
        if task.session_id == session_id:
            report.ok(f"session {session_id} holds the task")
        else:
            report.issue(f"session mismatch: the board says {task.session_id or 'nobody'}, you are {session_id}")
    age = task.heartbeat_age(board.clock())
    age_s = None if age is None else age.total_seconds()
    status = heartbeat_status(age_s)
    report.data["heartbeat"] = status
    if status == "OK":
        report.ok(f"heartbeat OK ({int(age_s or 0)} s)")
    elif status == "NONE":
        (report.ok if task.state == "watching" else report.issue)("no heartbeat yet")
    else:
        report.issue(f"heartbeat {status} ({int(age_s or 0)} s old)")
    report.ok(f"state {task.state} is valid")
    mine = [m for m in board.messages_since(0, task_id=task_id)]
    last_own = max((m.id for m in mine if m.from_session == task.session_id and m.message_type not in CONDUCTOR_MESSAGE_TYPES), default=0)
    pending = [m for m in mine if m.message_type in CONDUCTOR_MESSAGE_TYPES and m.id > last_own]
    report.data["pending_messages"] = len(pending)
    if pending:
        report.issue(f"{len(pending)} conductor message(s) not yet answered: " + ", ".join(f"#{m.id} {m.message_type}" for m in pending))
    else:
        report.ok("no pending conductor messages")
    fallbacks = [t for t in board.tasks() if t.task_id.startswith("fallback-") and (
        t.worked_by == f"fallback-{task_id}" or (session_id and t.session_id == session_id))]
    if fallbacks:
        report.issue("fallback rows: " + ", ".join(t.task_id for t in fallbacks))
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
    corrections = [line for line in files.status_lines() if "self-correction" in line]
    report.data["self_corrections"] = len(corrections)
    report.ok(f"self-correction events: {len(corrections)}")
    report.ok("HANDOFF present" if files.handoff_path.exists() else "no HANDOFF")
    return report


def check_headroom(workdir: str | Path, task_id: str) -> CheckReport:
    files = TaskFiles(workdir, task_id)
    report = CheckReport(f"context headroom for {task_id}")
    lines = files.status_lines()
    trajectory = [float(m.group(1)) for line in lines if (m := CTX.search(line))]
    launched = sum("agent launched" in line for line in lines)
    returned = sum("agent returned" in line for line in lines)
    steps = len({m.group(1) for line in lines if (m := re.search(r"step (\d+)", line))})
    corrections = sum("self-correction" in line for line in lines)
    report.data.update(trajectory=trajectory, agents_launched=launched, agents_returned=returned,
                       steps=steps, self_corrections=corrections)
    current = trajectory[-1] if trajectory else 0.0
    report.ok("trajectory: " + (" → ".join(f"{v:g}%" for v in trajectory) or "no [ctx: N%] entries"))
    report.ok(f"agents launched {launched}, returned {returned}; steps {steps}")
    if current > 75:
        report.issue(f"context at {current:g}% (> 75%): stop and hand off", code=2)
    elif current > 60:
        report.issue(f"context at {current:g}% (> 60%): caution")
    if corrections:
        report.issue(f"{corrections} self-correction event(s): estimates inflate ~6×")
    return report
