"""The board: every operation of the conductor/musician protocol, on either
store. Musicians claim, heartbeat, report and finish; the conductor creates
tasks, instructs, reviews, proposes fixes and requests exits. Every state
change goes through the transition table (`states`), refreshes the
heartbeat, and — for musicians — is fenced: only the session that holds the
task may move it, from the state it last saw.

Time comes from an injectable clock so that staleness is testable; tests may
also rewrite heartbeat columns (`backdate_heartbeat`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bandstand.board.reports import (
    CompletionReport,
    ContextWarning,
    ErrorReport,
    Handoff,
    ReviewRequest,
    context_decision,
)
from bandstand.board.states import (
    CLAIMABLE,
    NEEDS_STALE,
    RECOVERY,
    TERMINAL,
    Role,
    State,
    check_transition,
)
from bandstand.board.stores import BUSY_TIMEOUT, PostgresStore, SqliteStore, open_store
from bandstand.errors import (
    BoardDamaged,
    BoardUsageError,
    FencingError,
    IllegalTransition,
    TerminalState,
)

CONDUCTOR_TASK = "task-00"
HEARTBEAT_REFRESH = timedelta(minutes=8)
HEARTBEAT_STALE = timedelta(minutes=9)

#: Message types the conductor writes (what a musician's background watcher waits for).
CONDUCTOR_MESSAGE_TYPES = frozenset(
    {"instruction", "approval", "rejection", "fix_proposal", "exit_request", "emergency", "correction"}
)

_TASK_ID = re.compile(r"^task-\d{2,}$")
_TS = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_ts(moment: datetime) -> str:
    """Board timestamps: fixed-width ISO-8601 UTC text (sorts and compares as text)."""
    return moment.astimezone(UTC).strftime(_TS)


def parse_ts(text: str) -> datetime:
    return datetime.strptime(text, _TS).replace(tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def parse_state(row: dict[str, Any]) -> State:
    """A row's state; a value the protocol never writes is a damaged row, said in one line."""
    try:
        return State(row["state"])
    except ValueError:
        raise BoardDamaged(
            f"{row.get('task_id')} is in state {row['state']!r}, which is not a protocol state "
            f"(one of {', '.join(s.value for s in State)}): something other than bandstand wrote it; "
            "'bandstand board check-state' shows the row", task_id=row.get("task_id"),
        ) from None


@dataclass(frozen=True, slots=True)
class Task:
    task_id: str
    state: State
    session_id: str | None
    worked_by: str | None
    phase: str | None
    instruction_path: str | None
    started_at: str | None
    completed_at: str | None
    last_heartbeat: str | None
    retry_count: int
    last_error: str | None
    report_path: str | None
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Task:
        return cls(**{**row, "state": parse_state(row)})

    def heartbeat_age(self, now: datetime) -> timedelta | None:
        return None if self.last_heartbeat is None else now - parse_ts(self.last_heartbeat)

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__} | {"state": str(self.state)}


@dataclass(frozen=True, slots=True)
class Message:
    id: int
    task_id: str
    from_session: str | None
    message_type: str
    message: str
    timestamp: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Message:
        return cls(**row)

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class ClaimResult:
    claimed: bool
    task_id: str
    worked_by: str | None = None
    fallback_task_id: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Health:
    task_id: str
    state: State | None
    heartbeat_age_s: float | None
    stale: bool


def successor(task_id: str, previous: str | None) -> str:
    """`musician-task-03`, then `musician-task-03-S2`, `-S3`, …"""
    base = f"musician-{task_id}"
    if not previous:
        return base
    m = re.search(r"-S(\d+)$", previous)
    return f"{base}-S{int(m.group(1)) + 1 if m else 2}"


class Board:
    """The protocol over one store. Create with `Board.open(url)`."""

    def __init__(
        self,
        store: SqliteStore | PostgresStore,
        *,
        workdir: str | Path = ".",
        clock: Callable[[], datetime] = utcnow,
        stale_after: timedelta = HEARTBEAT_STALE,
    ) -> None:
        self.store = store
        self.workdir = Path(workdir)
        self.clock = clock
        self.stale_after = stale_after

    @classmethod
    def open(cls, url: str | None = None, *, workdir: str | Path = ".", migrate: bool = True,
             clock: Callable[[], datetime] = utcnow, stale_after: timedelta = HEARTBEAT_STALE,
             busy_timeout: float = BUSY_TIMEOUT) -> Board:
        """Open (and migrate) the board at `url`; a write waits at most `busy_timeout` seconds
        for another writer, then raises `BoardBusy` naming it."""
        board = cls(open_store(url, busy_timeout=busy_timeout), workdir=workdir, clock=clock, stale_after=stale_after)
        if migrate:
            try:
                board.store.migrate()
            except BaseException:
                board.close()
                raise
        return board

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _now(self) -> str:
        return format_ts(self.clock())

    # ------------------------------------------------------------------ reading

    def task(self, task_id: str) -> Task:
        with self.store.transaction() as tx:
            row = tx.one("get_task", task_id=task_id)
        if row is None:
            raise BoardUsageError(f"no task {task_id!r} on the board; see 'bandstand board list'")
        return Task.from_row(row)

    def find_task(self, task_id: str) -> Task | None:
        with self.store.transaction() as tx:
            row = tx.one("get_task", task_id=task_id)
        return None if row is None else Task.from_row(row)

    def tasks(self) -> list[Task]:
        return [Task.from_row(r) for r in self.task_rows()]

    def task_rows(self) -> list[dict[str, Any]]:
        """Every task row as stored, states unchecked (for views that must show a damaged row)."""
        with self.store.transaction() as tx:
            return tx.all("list_tasks")

    def task_row(self, task_id: str) -> dict[str, Any] | None:
        """One task row as stored, its state unchecked."""
        with self.store.transaction() as tx:
            return tx.one("get_task", task_id=task_id)

    def tasks_of_session(self, session_id: str) -> list[Task]:
        with self.store.transaction() as tx:
            return [Task.from_row(r) for r in tx.all("tasks_by_session", session_id=session_id)]

    def siblings(self, task_id: str) -> list[Task]:
        """The other musicians' tasks (not the conductor, not fallback rows)."""
        return [t for t in self.tasks() if t.task_id not in (task_id, CONDUCTOR_TASK) and _TASK_ID.match(t.task_id)]

    def messages_since(self, after_id: int = 0, *, task_id: str | None = None, limit: int = 1000) -> list[Message]:
        with self.store.transaction() as tx:
            if task_id is None:
                rows = tx.all("messages_since", after_id=after_id, limit=limit)
            else:
                rows = tx.all("task_messages_since", task_id=task_id, after_id=after_id, limit=limit)
        return [Message.from_row(r) for r in rows]

    def conductor_messages_since(self, task_id: str, after_id: int) -> list[Message]:
        return [m for m in self.messages_since(after_id, task_id=task_id) if m.message_type in CONDUCTOR_MESSAGE_TYPES]

    def last_message(self, task_id: str, message_type: str) -> Message | None:
        with self.store.transaction() as tx:
            row = tx.one("last_message_of_type", task_id=task_id, message_type=message_type)
        return None if row is None else Message.from_row(row)

    def health(self, task_id: str = CONDUCTOR_TASK) -> Health:
        """Heartbeat health of a task — by default the conductor's."""
        task = self.find_task(task_id)
        if task is None:
            return Health(task_id, None, None, True)
        age = task.heartbeat_age(self.clock())
        seconds = None if age is None else age.total_seconds()
        return Health(task_id, task.state, seconds, age is None or age > self.stale_after)

    def stale_tasks(self, threshold: timedelta | None = None) -> list[Task]:
        """Tasks whose heartbeat is older than `threshold` (default: the board's) in a state where
        someone should keep it fresh (`states.RECOVERY`: working, needs_review, error, the review
        verdicts, fix_proposed, exit_requested): the session probably crashed."""
        cutoff = self.clock() - (self.stale_after if threshold is None else threshold)
        with self.store.transaction() as tx:
            rows = tx.all("stale_tasks", cutoff=format_ts(cutoff))
        return [t for t in map(Task.from_row, rows) if t.state in RECOVERY]

    # ------------------------------------------------------------------ conductor

    def init(self, conductor_session: str) -> Task:
        """Create the conductor's own row (task-00), working, held by `conductor_session`."""
        now = self._now()
        with self.store.transaction(write=True) as tx:
            if tx.one("get_task", task_id=CONDUCTOR_TASK) is None:
                tx.run("insert_task", task_id=CONDUCTOR_TASK, state=State.WORKING.value,
                       session_id=conductor_session, worked_by="conductor", phase="conduct",
                       instruction_path=None, started_at=now, completed_at=None, last_heartbeat=now,
                       last_error=None, now=now)
        return self.task(CONDUCTOR_TASK)

    def create_task(self, task_id: str, *, instruction_path: str | None = None, phase: str | None = None) -> Task:
        if not _TASK_ID.match(task_id) or task_id == CONDUCTOR_TASK:
            raise BoardUsageError(f"task ids look like task-01, task-02 …; got {task_id!r}")
        now = self._now()
        with self.store.transaction(write=True) as tx:
            if tx.one("get_task", task_id=task_id) is not None:
                raise BoardUsageError(f"{task_id} already exists; choose another id")
            tx.run("insert_task", task_id=task_id, state=State.WATCHING.value, session_id=None, worked_by=None,
                   phase=phase, instruction_path=instruction_path, started_at=None, completed_at=None,
                   last_heartbeat=None, last_error=None, now=now)
        return self.task(task_id)

    def post(self, task_id: str, message_type: str, message: str, *, from_session: str | None) -> int:
        """Append a message and return its id (ids strictly increase, in commit order)."""
        now = self._now()
        with self.store.transaction(write=True) as tx:
            tx.one("lock_messages")
            row = tx.one("insert_message", task_id=task_id, from_session=from_session,
                         message_type=message_type, message=message, now=now)
        assert row is not None
        return int(row["id"])

    def instruct(self, task_id: str, text: str, *, conductor_session: str) -> int:
        if not text.strip():
            raise BoardUsageError(f"the instruction for {task_id} is empty; say what the musician should do")
        self._require_conductor(conductor_session)
        return self.post(task_id, "instruction", text, from_session=conductor_session)

    def _require_conductor(self, session_id: str) -> None:
        """Conductor moves are fenced too: only the session holding task-00 makes them."""
        conductor = self.find_task(CONDUCTOR_TASK)
        if conductor is None:
            raise BoardUsageError("the board has no conductor yet: run 'bandstand board init --session ID' first")
        if conductor.session_id != session_id:
            raise FencingError(
                f"only the conductor ({conductor.session_id}) may do that; {session_id} is not the conductor",
                task_id=CONDUCTOR_TASK,
            )

    def _conductor_move(self, task_id: str, to_state: State, message_type: str, text: str,
                        conductor_session: str, *, last_error: str | None = None) -> Task:
        self._require_conductor(conductor_session)
        now_dt = self.clock()
        now = format_ts(now_dt)
        with self.store.transaction(write=True) as tx:
            row = tx.one("get_task", task_id=task_id)
            if row is None:
                raise BoardUsageError(f"no task {task_id!r} on the board")
            current = Task.from_row(row)
            check_transition(Role.CONDUCTOR, current.state, to_state, task_id=task_id)
            if (current.state, to_state) in NEEDS_STALE:
                age = current.heartbeat_age(now_dt)
                if age is not None and age <= self.stale_after:
                    raise IllegalTransition(
                        f"{task_id} is {current.state} with a fresh heartbeat ({int(age.total_seconds())} s old); "
                        f"a fix can only be proposed for a {current.state} task when its heartbeat is stale",
                        from_state=current.state, to_state=to_state, task_id=task_id,
                    )
            tx.one("lock_messages")
            tx.one("insert_message", task_id=task_id, from_session=conductor_session,
                   message_type=message_type, message=text, now=now)
            if tx.run("move_by_conductor", task_id=task_id, from_state=current.state.value,
                      to_state=to_state.value, now=now, last_error=last_error) != 1:
                raise IllegalTransition(f"{task_id} changed while moving it to {to_state}; read it again",
                                        from_state=current.state, to_state=to_state)
        return self.task(task_id)

    def approve(self, task_id: str, note: str = "approved", *, conductor_session: str) -> Task:
        return self._conductor_move(task_id, State.REVIEW_APPROVED, "approval", note, conductor_session)

    def reject(self, task_id: str, feedback: str, *, conductor_session: str) -> Task:
        if not feedback.strip():
            raise BoardUsageError(f"rejecting {task_id} needs feedback: say what to change")
        return self._conductor_move(task_id, State.REVIEW_FAILED, "rejection", feedback, conductor_session)

    def propose_fix(self, task_id: str, fix: str, *, conductor_session: str) -> Task:
        if not fix.strip():
            raise BoardUsageError(f"the fix for {task_id} is empty; say what the musician should do")
        return self._conductor_move(task_id, State.FIX_PROPOSED, "fix_proposal", fix, conductor_session)

    def request_exit(self, task_id: str, reason: str, *, conductor_session: str) -> Task:
        return self._conductor_move(task_id, State.EXIT_REQUESTED, "exit_request", reason, conductor_session)

    def emergency(self, text: str, *, conductor_session: str, task_ids: list[str] | None = None) -> dict[str, int]:
        """(conductor) An `emergency` message to the named tasks, or to every task a musician
        holds (not watching, not terminal); the musicians' background watchers end on it. The
        states do not change: what to do is in the text. Returns {task_id: message id}."""
        if not text.strip():
            raise BoardUsageError("an emergency needs a message: say what the musicians must do now")
        self._require_conductor(conductor_session)
        if task_ids is None:
            targets = [t.task_id for t in self.tasks() if t.task_id != CONDUCTOR_TASK and t.state in RECOVERY]
        else:
            targets = []
            for task_id in task_ids:
                if task_id == CONDUCTOR_TASK:
                    raise BoardUsageError("an emergency goes to musicians' tasks, not to the conductor's own row")
                task = self.task(task_id)
                if task.state in TERMINAL:
                    raise TerminalState(f"{task_id} is {task.state}: nobody is there to read an emergency",
                                        from_state=task.state, to_state=task.state, task_id=task_id)
                targets.append(task_id)
        return {t: self.post(t, "emergency", text, from_session=conductor_session) for t in targets}

    # ------------------------------------------------------------------ musician

    def claim(self, task_id: str, session_id: str) -> ClaimResult:
        """The guarded atomic claim. Exactly one of any number of racing claimers wins.

        A blocked claim (or missing instructions) writes a `fallback-<session>`
        row in state exited and a claim_blocked message to the conductor."""
        now = self._now()
        with self.store.transaction(write=True) as tx:
            row = tx.one("get_task", task_id=task_id)
            reason = ""
            if row is None:
                reason = f"{task_id} does not exist"
            elif State(row["state"]) not in CLAIMABLE:
                reason = f"{task_id} is {row['state']} (held by {row['worked_by'] or 'nobody'})"
            elif row["instruction_path"] and not (self.workdir / row["instruction_path"]).exists():
                reason = f"instructions missing at {row['instruction_path']}"
            else:
                worked_by = successor(task_id, row["worked_by"])
                won = tx.run("claim", task_id=task_id, session_id=session_id, worked_by=worked_by, now=now,
                             expected_state=row["state"], expected_worked_by=row["worked_by"])
                if won == 1:
                    return ClaimResult(True, task_id, worked_by)
                reason = f"{task_id} was claimed by another session first"
        fallback = self._write_fallback(task_id, session_id, reason)
        return ClaimResult(False, task_id, None, fallback, reason)

    def claim_next(self, session_id: str, *, phase_prefix: str | None = None) -> ClaimResult | None:
        """Claim the first watching task, skipping ones other claimers hold; None if none is left.

        With `phase_prefix`, only tasks whose phase starts with it, and also those the conductor
        handed back (fix_proposed after a crash, exit_requested to finish): how batch workers
        take over a task whose worker died. Tasks whose instruction file is missing are passed
        over; if nothing else is claimable the claim is blocked like `claim` (fallback row and a
        claim_blocked message naming them)."""
        while True:
            missing: list[str] = []
            with self.store.transaction(write=True) as tx:
                candidates = tx.all("next_claimable") if phase_prefix is None else \
                    tx.all("next_claimable_in_phase", phase_prefix=phase_prefix.replace("%", "") + "%")
                for row in candidates:
                    path = row["instruction_path"]
                    if path and not (self.workdir / path).exists():
                        missing.append(f"{row['task_id']} (instructions missing at {path})")
                        continue
                    worked_by = successor(row["task_id"], row["worked_by"])
                    if tx.run("claim", task_id=row["task_id"], session_id=session_id, worked_by=worked_by,
                              now=self._now(), expected_state=row["state"],
                              expected_worked_by=row["worked_by"]) == 1:
                        return ClaimResult(True, row["task_id"], worked_by)
            if missing and len(missing) == len(candidates):
                task_id = missing[0].split(" ", 1)[0]
                reason = "no claimable task: " + "; ".join(missing)
                return ClaimResult(False, task_id, None, self._write_fallback(task_id, session_id, reason), reason)
            if not candidates:
                return None
            # every candidate was taken by other claimers between our read and our update: read again

    def _write_fallback(self, task_id: str, session_id: str, reason: str) -> str:
        fallback_id = f"fallback-{session_id}"
        now = self._now()
        with self.store.transaction(write=True) as tx:
            if tx.one("get_task", task_id=fallback_id) is None:
                tx.run("insert_task", task_id=fallback_id, state=State.EXITED.value, session_id=session_id,
                       worked_by=f"fallback-{task_id}", phase=None, instruction_path=None, started_at=now,
                       completed_at=now, last_heartbeat=now, last_error=reason, now=now)
            tx.one("lock_messages")
            # on the task's own thread (the conductor reads every thread), so the task's history says it
            tx.one("insert_message", task_id=task_id, from_session=session_id, message_type="claim_blocked",
                   message=f"CLAIM BLOCKED\nTask: {task_id}\nSession: {session_id}\nReason: {reason}", now=now)
        return fallback_id

    def heartbeat(self, task_id: str, session_id: str) -> None:
        with self.store.transaction(write=True) as tx:
            if tx.run("heartbeat", task_id=task_id, session_id=session_id, now=self._now()) == 1:
                return
        self._diagnose(task_id, session_id, None)

    def backdate_heartbeat(self, task_id: str, moment: datetime) -> None:
        """Rewrite a heartbeat (time travel for tests and drills)."""
        with self.store.transaction(write=True) as tx:
            tx.run("backdate_heartbeat", task_id=task_id, heartbeat=format_ts(moment))

    def _diagnose(self, task_id: str, session_id: str, to_state: State | None) -> None:
        """Raise the precise reason a fenced write by `session_id` did not apply."""
        task = self.task(task_id)
        if task.session_id is None:  # "held by session nobody (None)" said nothing useful
            raise FencingError(
                f"{task_id} is not claimed yet (state {task.state}): claim it first with "
                f"'bandstand board claim {task_id} -s {session_id}'", task_id=task_id,
            )
        if task.session_id != session_id:
            raise FencingError(
                f"{task_id} is held by session {task.session_id or 'nobody'} ({task.worked_by}), not {session_id}: "
                "only the holding session may change it", task_id=task_id,
            )
        if task.state in TERMINAL:
            raise TerminalState(f"{task_id} is {task.state}, a terminal state: it never changes again",
                                from_state=task.state, to_state=to_state or task.state, task_id=task_id)
        if to_state is not None:
            check_transition(Role.MUSICIAN, task.state, to_state, task_id=task_id)
        raise _Changed()

    def move(self, task_id: str, session_id: str, to_state: State, *, message_type: str | None = None,
             message: str | None = None, last_error: str | None = None, report_path: str | None = None,
             retry_increment: int = 0) -> Task:
        """A musician's state change, fenced; with an optional message.

        For terminal states the message is written first and the state last,
        in separate transactions, so the state write is the session's last write."""
        to_state = State(to_state)
        current = self.task(task_id)
        if current.session_id != session_id:
            self._diagnose(task_id, session_id, to_state)
        check_transition(Role.MUSICIAN, current.state, to_state, task_id=task_id)
        if to_state is State.COMPLETE and task_id != CONDUCTOR_TASK:
            self._require_final_approval(task_id)
        terminal = to_state in TERMINAL
        if message_type and terminal:
            self.post(task_id, message_type, message or "", from_session=session_id)
        now = self._now()
        with self.store.transaction(write=True) as tx:
            if message_type and not terminal:
                tx.one("lock_messages")
                tx.one("insert_message", task_id=task_id, from_session=session_id, message_type=message_type,
                       message=message or "", now=now)
            moved = tx.run("move_fenced", task_id=task_id, session_id=session_id, from_state=current.state.value,
                           to_state=to_state.value, now=now, terminal=1 if terminal else 0, last_error=last_error,
                           report_path=report_path, retry_increment=retry_increment)
            if moved != 1:
                raise _Changed()
        return self.task(task_id)

    def _require_final_approval(self, task_id: str) -> None:
        final = self.last_message(task_id, "completion")
        approval = self.last_message(task_id, "approval")
        if final is None or approval is None or approval.id < final.id:
            raise IllegalTransition(
                f"{task_id} can only complete after the conductor approved its completion report "
                "(send one with 'bandstand board report-completion')",
                from_state=State.WORKING, to_state=State.COMPLETE, task_id=task_id,
            )

    def request_review(self, task_id: str, session_id: str, report: ReviewRequest) -> Task:
        """A checkpoint's review. A context threshold and a checkpoint at once: context first —
        above 80% the musician stops and escalates instead (context-check / context-warning)."""
        if context_decision(report.context_usage, 0.0) == "stop_and_escalate":
            raise IllegalTransition(
                f"{task_id} is at {report.context_usage:g}% context: a context threshold comes before a "
                "checkpoint, so stop and escalate first ('bandstand board context-check' or 'context-warning' "
                "moves working to error) and leave the review to the next session",
                from_state=State.WORKING, to_state=State.NEEDS_REVIEW, task_id=task_id,
            )
        return self.move(task_id, session_id, State.NEEDS_REVIEW, message_type=report.message_type,
                         message=report.render())

    def report_completion(self, task_id: str, session_id: str, report: CompletionReport) -> Task:
        return self.request_review(task_id, session_id, report)

    def report_error(self, task_id: str, session_id: str, report: ErrorReport) -> Task:
        return self.move(task_id, session_id, State.ERROR, message_type="error", message=report.render(),
                         last_error=report.error, report_path=report.report_path, retry_increment=1)

    def warn_context(self, task_id: str, session_id: str, warning: ContextWarning) -> Task:
        """Tell the conductor about context usage; when the checkpoint would land above 80%
        (or usage already is above 80%) stop and escalate: state error, last_error
        `context_exhaustion_warning`."""
        if warning.decision == "stop_and_escalate":
            return self.move(task_id, session_id, State.ERROR, message_type="context_warning",
                             message=warning.render(), last_error="context_exhaustion_warning")
        self.post(task_id, "context_warning", warning.render(), from_session=session_id)
        self.heartbeat(task_id, session_id)
        return self.task(task_id)

    def handoff(self, task_id: str, session_id: str, handoff: Handoff) -> Task:
        """Clean exit: the handoff message first, then the state exited (the last write)."""
        return self.move(task_id, session_id, State.EXITED, message_type="handoff", message=handoff.render())

    def complete(self, task_id: str, session_id: str, summary: str = "complete") -> Task:
        return self.move(task_id, session_id, State.COMPLETE, message_type="completion_ack", message=summary)

    def exit(self, task_id: str, session_id: str, reason: str) -> Task:
        return self.move(task_id, session_id, State.EXITED, message_type="exit", message=reason)

    def resume(self, task_id: str, session_id: str) -> Task:
        """Back to work after an approval (review_approved → working)."""
        return self.move(task_id, session_id, State.WORKING)


class _Changed(FencingError):
    def __init__(self) -> None:
        super().__init__("the task changed while it was being moved (another session or the conductor got there first)")
