"""The append-only files beside the board, per task, and resumption.

- `temp/task-NN-status`: one line per event — `step 1 started [ctx: 12%]`,
  agent launches and returns, deviations, self-corrections, takeover notes.
- `temp/task-NN-deviations`: `Severity: text` per line (Low | Medium | High);
  2+ Medium or 1+ High escalates.
- `temp/task-NN-HANDOFF`: written only on a clean exit.
- proposals: `docs/implementation/proposals/YYYY-MM-DD-<slug>.md`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from bandstand.errors import BoardUsageError
from bandstand.files import write_text

Severity = Literal["Low", "Medium", "High"]
SEVERITIES: tuple[Severity, ...] = ("Low", "Medium", "High")
PROPOSAL_TYPES = ("PATTERN", "ANTI_PATTERN", "MEMORY", "CLAUDE_MD", "RAG", "MEMORY_MCP", "DOCUMENTATION")
CTX = re.compile(r"\[ctx: (\d+(?:\.\d+)?)%\]")
# Status lines as the protocol writes them ("agent 2 launched", "agent 2 returned") and as
# `TaskFiles` writes them ("agent launched: tester"); "self-correction" or "self correction".
AGENT_LAUNCHED = re.compile(r"\bagent\s+(?:#?\d+\s+|[\w.-]+\s+)?launched\b|\blaunched\s+agent\b", re.IGNORECASE)
AGENT_RETURNED = re.compile(r"\bagent\s+(?:#?\d+\s+|[\w.-]+\s+)?returned\b", re.IGNORECASE)
SELF_CORRECTION = re.compile(r"\bself[- ]correct", re.IGNORECASE)
_STAMP = "%Y-%m-%dT%H:%M:%SZ"


def _stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).strftime(_STAMP)


class TaskFiles:
    """The temp files of one task under `workdir/temp/`."""

    def __init__(self, workdir: str | Path, task_id: str) -> None:
        if not re.fullmatch(r"task-\d{2,}", task_id):
            raise BoardUsageError(f"task ids look like task-01; got {task_id!r}")
        self.workdir = Path(workdir)
        self.task_id = task_id
        self.temp = self.workdir / "temp"
        self.status_path = self.temp / f"{task_id}-status"
        self.deviations_path = self.temp / f"{task_id}-deviations"
        self.handoff_path = self.temp / f"{task_id}-HANDOFF"

    def _append(self, path: Path, line: str) -> None:
        # one entry per line: the checks read these files line by line
        line = " ".join(line.split())
        self.temp.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line.rstrip("\n") + "\n")

    def status(self, text: str, *, ctx: float | None = None, now: datetime | None = None) -> None:
        if not text.strip():
            raise BoardUsageError("a status line needs some text, e.g. 'step 2 started'")
        suffix = f" [ctx: {ctx:g}%]" if ctx is not None else ""
        self._append(self.status_path, f"{_stamp(now)} {text}{suffix}")
        # the two files go together: no deviations yet is an empty deviations file
        self.deviations_path.touch()

    def step_started(self, step: int, *, ctx: float | None = None) -> None:
        self.status(f"step {step} started", ctx=ctx)

    def step_completed(self, step: int, *, ctx: float | None = None) -> None:
        self.status(f"step {step} completed", ctx=ctx)

    def agent_launched(self, name: str, *, ctx: float | None = None) -> None:
        self.status(f"agent launched: {name}", ctx=ctx)

    def agent_returned(self, name: str, *, ctx: float | None = None) -> None:
        self.status(f"agent returned: {name}", ctx=ctx)

    def self_correction(self, detail: str, *, ctx: float | None = None) -> None:
        self.status(f"self-correction: {detail}", ctx=ctx)

    def deviation(self, severity: Severity, text: str, *, ctx: float | None = None) -> None:
        if severity not in SEVERITIES:
            raise BoardUsageError(f"severity must be Low, Medium or High; got {severity!r}")
        if not text.strip():
            raise BoardUsageError("a deviation needs some text: what changed and why")
        self._append(self.deviations_path, f"{severity}: {text}")
        self.status(f"deviation ({severity}): {text}", ctx=ctx)

    def status_lines(self) -> list[str]:
        return self.status_path.read_text(encoding="utf-8").splitlines() if self.status_path.exists() else []

    def deviations(self) -> list[tuple[Severity, str]]:
        if not self.deviations_path.exists():
            return []
        out: list[tuple[Severity, str]] = []
        for line in self.deviations_path.read_text(encoding="utf-8").splitlines():
            sev, _, text = line.partition(": ")
            if sev in SEVERITIES:
                out.append((sev, text))
        return out

    def severity_counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
        for sev, _ in self.deviations():
            counts[sev] += 1
        return counts

    def must_escalate(self) -> bool:
        counts = self.severity_counts()
        return counts["Medium"] >= 2 or counts["High"] >= 1

    def write_handoff(self, doc: HandoffDoc) -> Path:
        write_text(self.handoff_path, doc.render())
        self.status(f"HANDOFF written for the next session ({doc.session_id})")
        return self.handoff_path

    def read_handoff(self) -> str | None:
        return self.handoff_path.read_text(encoding="utf-8") if self.handoff_path.exists() else None

    def last_status_time(self) -> datetime | None:
        for line in reversed(self.status_lines()):
            try:
                return datetime.strptime(line.split(" ", 1)[0], _STAMP).replace(tzinfo=UTC)
            except ValueError:
                continue
        return None


@dataclass
class HandoffDoc:
    session_id: str
    worked_by: str
    completed_steps: list[str] = field(default_factory=list)
    pending_steps: list[str] = field(default_factory=list)
    deviations: list[str] = field(default_factory=list)
    self_correction: str = "none"
    pending_proposals: list[str] = field(default_factory=list)
    next_session_instructions: str = ""

    def render(self) -> str:
        def bullets(items: list[str]) -> str:
            return "\n".join(f"- {i}" for i in items) or "- none"

        return (
            f"# HANDOFF\n\n## Session\n- session: {self.session_id}\n- worked_by: {self.worked_by}\n"
            f"- written: {_stamp()}\n\n## Completed steps\n{bullets(self.completed_steps)}\n\n"
            f"## Pending steps\n{bullets(self.pending_steps)}\n\n## Deviations\n{bullets(self.deviations)}\n\n"
            f"## Self-correction\n{self.self_correction}\n\n## Pending proposals\n{bullets(self.pending_proposals)}\n\n"
            f"## Next session instructions\n{self.next_session_instructions or 'Re-run verification, then continue with the first pending step.'}\n"
        )


def write_proposal(workdir: str | Path, kind: str, slug: str, title: str, rationale: str, body: str = "",
                   *, today: datetime | None = None) -> Path:
    """A proposal for the conductor: docs/implementation/proposals/YYYY-MM-DD-<slug>.md."""
    if kind not in PROPOSAL_TYPES:
        raise BoardUsageError(f"proposal type must be one of {', '.join(PROPOSAL_TYPES)}; got {kind!r}")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
        raise BoardUsageError(f"a proposal slug is lowercase words joined by '-'; got {slug!r}")
    date = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    path = Path(workdir) / "docs" / "implementation" / "proposals" / f"{date}-{slug}.md"
    write_text(path, f"# {title}\n\nType: {kind}\n\n## Rationale\n{rationale}\n\n{body}".rstrip() + "\n")
    return path


@dataclass(frozen=True, slots=True)
class ResumptionAssessment:
    task_id: str
    clean_exit: bool  # a fresh HANDOFF was left by the previous session
    handoff: str | None
    status_lines: int
    deviations: int
    mismatches: tuple[str, ...]
    report_to_conductor: bool
    verify_first: bool = True  # always re-run verification on resumption

    def summary(self) -> str:
        how = "clean exit (fresh HANDOFF)" if self.clean_exit else (
            "forced exit: the HANDOFF is " + ("stale" if self.handoff else "missing"))
        return f"{self.task_id}: previous session ended with a {how}; {self.deviations} deviation(s)" + (
            "; report to the conductor: " + "; ".join(self.mismatches) if self.report_to_conductor else "")


def assess_resumption(files: TaskFiles, board_state: str, previous_worked_by: str | None) -> ResumptionAssessment:
    """What a resuming session finds: a fresh HANDOFF means the last session exited cleanly."""
    handoff = files.read_handoff()
    last_status = files.last_status_time()
    fresh = False
    if handoff is not None:
        mtime = datetime.fromtimestamp(files.handoff_path.stat().st_mtime, UTC)
        fresh = last_status is None or (mtime - last_status).total_seconds() >= -1
    mismatches: list[str] = []
    lines = files.status_lines()
    if previous_worked_by and not lines:
        mismatches.append(f"the board says {previous_worked_by} worked on it, but there is no status file")
    if board_state == "exited" and handoff is None:
        mismatches.append("the board says exited but there is no HANDOFF")
    n_dev = len(files.deviations())
    if n_dev > 2:
        mismatches.append(f"{n_dev} deviations recorded")
    return ResumptionAssessment(files.task_id, fresh, handoff, len(lines), n_dev, tuple(mismatches), bool(mismatches))
