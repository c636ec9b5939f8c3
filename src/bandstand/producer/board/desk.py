"""`BoardDesk`: the conductor/musician task board as every client uses it, reached as `App.board(where)`.

The desk names one board — `where` is a URL (``sqlite:///PATH``, ``postgresql://…``) or the path of a
SQLite file (made a URL here, for the CLI's `board`, `batch` and `worker` alike), None the default
board — and opens it one way: `open` for the protocol's operations (migrated), `reader` for the log
view (nothing created or written). Around the protocol it holds what the clients used to decide each
for itself: a review request or completion report from its fields (`BoardReview`), a context warning
from the task's files (`ContextEstimate`), a handoff with its HANDOFF file, the watchers, the checks, the
hooks, a launch and a musician (`BoardWork`, results under WORKDIR/output/board unless given), and one
session's board tools. The board's own operations (claim, approve, …) are the `board.Board` it opens."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.producer.requests_models import BoardReview, BoardWork, ContextEstimate

if TYPE_CHECKING:
    from bandstand.board import Board, Message, Task
    from bandstand.board.checks import CheckReport
    from bandstand.board.context import ContextCheck
    from bandstand.board.reports import ContextWarning
    from bandstand.board.taskfiles import ResumptionAssessment
    from bandstand.board.tools import BoardToolbox
    from bandstand.board.view import BoardSnapshot, BoardWatcher
    from bandstand.board.watchers import PauseEvent
    from bandstand.producer.board.board_conductor import BoardProgress
    from bandstand.producer.board.board_launch import LaunchOutcome
    from bandstand.producer.board.board_musician import MusicianReport
    from bandstand.protocol.jsonvalue import JSONObject

__all__ = ["BoardDesk", "board_url"]


def board_url(where: str | os.PathLike[str] | None) -> str:
    """A board URL from what a person typed: a URL as it is, a SQLite file's path made absolute, None (or
    empty) the default board (`board.stores.DEFAULT_URL`)."""
    if not where:
        from bandstand.board.stores import DEFAULT_URL

        return DEFAULT_URL
    text = os.fspath(where)
    return text if "://" in text else f"sqlite:///{Path(text).expanduser().resolve()}"


@dataclass(frozen=True, slots=True)
class BoardDesk:
    """See the module docstring. `workdir` holds the task files (temp/, docs/); a heartbeat is stale after
    `stale_after` seconds; a write waits `busy_timeout` seconds for another writer."""

    url: str
    workdir: Path = Path(".")
    stale_after: float = 540.0
    busy_timeout: float = 30.0

    @classmethod
    def at(cls, where: str | os.PathLike[str] | None = None, *, workdir: str | os.PathLike[str] = ".",
           stale_after: float = 540.0, busy_timeout: float = 30.0) -> BoardDesk:
        return cls(board_url(where), Path(workdir), stale_after, busy_timeout)

    # ------------------------------------------------------------------ opening

    def open(self, *, migrate: bool = True) -> Board:
        """The board, opened (and migrated unless not `migrate`): use it as a context manager."""
        from datetime import timedelta

        from bandstand.board import Board

        return Board.open(self.url, workdir=self.workdir, migrate=migrate,
                          stale_after=timedelta(seconds=self.stale_after), busy_timeout=self.busy_timeout)

    def reader(self) -> Board:
        """The board for reading only (the log view's): nothing is created or migrated, an SQLite file
        must exist; a board that is not there or cannot be read is `NotFound`."""
        from datetime import timedelta

        from bandstand.board import Board, SqliteStore, open_store
        from bandstand.errors import BoardUsageError, NotFound

        stale = timedelta(seconds=self.stale_after)
        if self.url.startswith("sqlite:///"):
            path = Path(self.url.removeprefix("sqlite:///").partition("?")[0])
            if not path.is_file():
                raise NotFound(f"there is no board at {path} (bandstand board init makes one; serve --board names another)")
            return Board(SqliteStore(path, writer_lock=False), stale_after=stale)
        try:
            return Board(open_store(self.url, busy_timeout=self.busy_timeout), stale_after=stale)
        except BoardUsageError as exc:
            raise NotFound(f"the board at {self.url} cannot be read: {exc}") from exc

    def snapshot(self) -> BoardSnapshot:
        """The board now as a viewer sees it (`board.view.BoardWatcher.poll`), read once."""
        with self.reader() as board:
            found = self.watch(board).poll()
        assert found is not None, "a watcher's first poll always answers"
        return found

    def watch(self, board: Board | None = None) -> BoardWatcher:
        """A watcher of the board (a `reader` unless given; close its `board` when done)."""
        from bandstand.board.view import BoardWatcher

        return BoardWatcher(board if board is not None else self.reader())

    # ------------------------------------------------------------------ reading

    def task_rows(self) -> tuple[list[JSONObject], list[str]]:
        """Every task as stored (the store's columns: text, numbers, nulls), and the ids of those in a
        state the protocol does not know."""
        from bandstand.board import State

        with self.open() as board:
            rows = board.task_rows()
        known = {s.value for s in State}
        return rows, [str(r["task_id"]) for r in rows if r["state"] not in known]

    def stale(self) -> list[tuple[Task, str]]:
        """The tasks whose heartbeat is stale, each with how to recover it (`board.states.RECOVERY`)."""
        from bandstand.board.states import RECOVERY

        with self.open() as board:
            return [(task, RECOVERY[task.state]) for task in board.stale_tasks()]

    # ------------------------------------------------------------------ a musician's reports

    def review(self, task_id: str, session: str, review: BoardReview) -> Task:
        """A checkpoint's review request (or, `review.final`, the completion report) sent; the task waits
        in needs_review."""
        from bandstand.board import (
            AgentsRemaining,
            CompletionReport,
            Deviations,
            KeyOutput,
            ReviewRequest,
        )

        n, _, m = review.checkpoint.partition("/")
        outputs = []
        for value in review.outputs:
            kinds = (":created", ":modified", ":rag-addition")
            path, _, kind = value.rpartition(":") if value.endswith(kinds) else (value, "", "created")
            outputs.append(KeyOutput(path=path, kind=kind))  # type: ignore[arg-type]
        made = CompletionReport if review.final else ReviewRequest  # the final one asks to finish the task
        report = made(
            smoothness=review.smoothness, checkpoint=int(n), checkpoints_total=int(m), context_usage=review.context,
            summary=review.summary, self_correction=bool(review.self_correction),
            self_correction_detail=review.self_correction or "",
            deviations=Deviations(count=review.deviations, severity=review.severity),  # type: ignore[arg-type]
            agents_remaining=AgentsRemaining(count=review.agents, percent_each=review.agent_cost),
            proposal_path=review.proposal, files_modified=list(review.files), tests=review.tests, key_outputs=outputs)
        with self.open() as board:
            return board.request_review(task_id, session, report)

    def report_error(self, task_id: str, session: str, *, error: str, retry: int, context: float,
                     report: str | None = None) -> Task:
        """A failure reported (`report`: the path of a longer report); the task waits in error."""
        from bandstand.board import ErrorReport

        with self.open() as board:
            return board.report_error(task_id, session, ErrorReport(context_usage=context, retry=retry, error=error,
                                                                    report_path=report))

    def context_warning(self, task_id: str, estimate: ContextEstimate) -> ContextWarning:
        """The context warning `estimate` makes, filled from the task's files (`board.context.context_warning`)."""
        from bandstand.board.context import context_warning
        from bandstand.board.taskfiles import TaskFiles

        return context_warning(TaskFiles(self.workdir, task_id), usage=estimate.context, cost=estimate.cost,
                               agents=estimate.agents, agent_cost=estimate.agent_cost,
                               self_correction=estimate.self_correction)

    def warn_context(self, task_id: str, session: str, estimate: ContextEstimate) -> Task:
        """The context warning sent to the conductor (above 80% at the checkpoint it stops the task in error)."""
        warning = self.context_warning(task_id, estimate)
        with self.open() as board:
            return board.warn_context(task_id, session, warning)

    def context_check(self, task_id: str, session: str, estimate: ContextEstimate) -> ContextCheck:
        """The 50% budget check: proceed, ask the conductor (a warning sent) or stop and escalate."""
        from bandstand.board.context import context_check

        warning = self.context_warning(task_id, estimate)
        with self.open() as board:
            return context_check(board, task_id, session, warning, declared_self_correction=estimate.self_correction)

    # ------------------------------------------------------------------ the task's files

    def handoff(self, task_id: str, session: str, *, reason: str, last_step: str, context: float,
                remaining: Sequence[str] = ()) -> Task:
        """A clean exit: temp/TASK-HANDOFF written (the next session re-runs verification, then goes on
        with the first remaining step), the handoff message sent, the task exited."""
        from bandstand.board import Handoff
        from bandstand.board.taskfiles import HandoffDoc, TaskFiles

        remaining = list(remaining)
        with self.open() as board:
            task = board.task(task_id)
            files = TaskFiles(board.workdir, task_id)
            path = files.write_handoff(HandoffDoc(
                session_id=session, worked_by=task.worked_by or "", completed_steps=[last_step],
                pending_steps=remaining, deviations=[f"{s}: {t}" for s, t in files.deviations()],
                next_session_instructions="Re-run verification, then continue with: "
                                          + (remaining[0] if remaining else "review")))
            return board.handoff(task_id, session, Handoff(context_usage=context, reason=reason, handoff_path=str(path),
                                                           last_completed_step=last_step, remaining_steps=remaining))

    def write_handoff(self, task_id: str, session: str, *, completed: Sequence[str] = (), pending: Sequence[str] = (),
                      self_correction: str = "none", next_steps: str = "") -> Path:
        """temp/TASK-HANDOFF written for the next session; the task does not change."""
        from bandstand.board.taskfiles import HandoffDoc, TaskFiles

        with self.open() as board:
            task = board.task(task_id)
            files = TaskFiles(board.workdir, task_id)
            return files.write_handoff(HandoffDoc(
                session_id=session, worked_by=task.worked_by or "", completed_steps=list(completed),
                pending_steps=list(pending), deviations=[f"{s}: {t}" for s, t in files.deviations()],
                self_correction=self_correction, next_session_instructions=next_steps))

    def status(self, task_id: str, text: str, ctx: float | None = None) -> None:
        """A line appended to temp/TASK-status (`ctx`: the context usage to record)."""
        from bandstand.board.taskfiles import TaskFiles

        TaskFiles(self.workdir, task_id).status(text, ctx=ctx)

    def deviation(self, task_id: str, severity: str, text: str, ctx: float | None = None) -> None:
        """A deviation recorded: `severity` is Low, Medium or High."""
        from bandstand.board.taskfiles import TaskFiles

        TaskFiles(self.workdir, task_id).deviation(severity, text, ctx=ctx)  # type: ignore[arg-type]

    def write_proposal(self, kind: str, slug: str, *, title: str, rationale: str, body: str = "") -> Path:
        """docs/implementation/proposals/YYYY-MM-DD-SLUG.md written (KIND: PATTERN, ANTI_PATTERN, MEMORY, …)."""
        from bandstand.board.taskfiles import write_proposal

        return write_proposal(self.workdir, kind, slug, title, rationale, body)

    def assess_resumption(self, task_id: str) -> ResumptionAssessment:
        """What a resuming session finds: a clean or forced previous exit, deviations, mismatches."""
        from bandstand.board.taskfiles import TaskFiles, assess_resumption

        with self.open() as board:
            task = board.task(task_id)
            return assess_resumption(TaskFiles(board.workdir, task_id), str(task.state), task.worked_by)

    # ------------------------------------------------------------------ waiting, checks, hooks

    async def wait_for_messages(self, task_id: str, session: str, *, since: int = 0, poll: float = 5.0) -> list[Message]:
        """The conductor's next messages for the task after id `since` (the background watcher), the
        heartbeat kept fresh while waiting."""
        from bandstand.board.watchers import WatchTimings, background_watcher

        with self.open() as board:
            return [m async for m in background_watcher(board, task_id, session, since, WatchTimings(poll_interval=poll))]

    async def wait_for_verdict(self, task_id: str, session: str, *, poll: float = 5.0,
                               timeout: float = 900.0) -> PauseEvent:
        """The task leaving needs_review or error (the pause watcher) — or, after `timeout` seconds with
        the conductor's heartbeat stale, a timeout to escalate."""
        from bandstand.board.watchers import WatchTimings, pause_watcher

        with self.open() as board:
            async for event in pause_watcher(board, task_id, session, WatchTimings(poll_interval=poll,
                                                                                    pause_timeout=timeout)):
                return event
        raise AssertionError("the pause watcher ended without an event")

    def check(self, name: str, task_id: str, *, session_id: str | None = None, tests: Sequence[str] = (),
              sources: Sequence[str] = (), minimum: float = 80.0, reruns: int = 3) -> CheckReport:
        """Check `name` (state, temp, headroom, coverage, flaky) of the task (`board_checks.run_check`);
        only ``state`` opens the board. The report's `code` is the exit code."""
        from bandstand.producer.board.board_checks import run_check

        report: CheckReport
        if name == "state":
            with self.open() as board:
                report = run_check(name, task_id, board=board, session_id=session_id)
        else:
            report = run_check(name, task_id, workdir=self.workdir, tests=tests, sources=sources, minimum=minimum,
                               reruns=reruns)
        return report

    @staticmethod
    def session_start(payload: JSONObject) -> JSONObject:
        """The SessionStart hook's answer: the session's id put into its context."""
        from bandstand.board.hooks import session_start

        return session_start(payload)

    def stop_hook(self, payload: JSONObject) -> JSONObject:
        """The Stop hook's answer: the stop blocked until the session's task allows it."""
        from bandstand.board.hooks import stop

        with self.open() as board:
            return stop(payload, board)

    # ------------------------------------------------------------------ agent sessions on the board

    def out_dir(self, out: str | os.PathLike[str] | None) -> Path:
        """Where a launch's results go: `out`, else WORKDIR/output/board."""
        return Path(out) if out else self.workdir / "output" / "board"

    def launch(self, musicians: int, work: BoardWork = BoardWork(), *, tasks: str = "6", conductor: str = "conductor",
               on_progress: Callable[[BoardProgress], None] | None = None) -> LaunchOutcome:
        """A conductor and `musicians` musicians as agent sessions on this board, run to the end
        (`board_launch.launch`): `tasks` is a count of built-in tasks or a file, one instruction a line."""
        from bandstand.producer.board.board_launch import LaunchRequest, launch

        return launch(LaunchRequest(musicians=musicians, backend=work.backend, board=self.url, tasks=tasks,
                                    workdir=self.workdir, out=self.out_dir(work.out), heartbeat=work.heartbeat,
                                    stale_after=self.stale_after, poll=work.poll, conductor=conductor,
                                    config=work.config), on_progress=on_progress)

    def musician(self, session: str, work: BoardWork = BoardWork(), *,
                 stop: threading.Event | None = None) -> MusicianReport:
        """One musician session working this board's launch until every task is finished or `stop` is set
        (`board_musician.run_musician`); an unknown or unconfigured backend is refused first."""
        from bandstand.producer.board.board_backends import check_backend
        from bandstand.producer.board.board_musician import MusicianSetup, run_musician

        check_backend(work.backend, work.config)
        return run_musician(MusicianSetup(board=self.url, session_id=session, backend=work.backend,
                                          workdir=self.workdir, out=self.out_dir(work.out),
                                          heartbeat=work.heartbeat, poll=work.poll, stale_after=self.stale_after,
                                          config=work.config), stop=stop)

    @contextlib.contextmanager
    def tools(self, session: str, role: str, *, phase: str | None = None) -> Iterator[BoardToolbox]:
        """One session's board tools on this board (`board_sessions.open_board_tools`; MCP's `--board`)."""
        from bandstand.producer.board.board_sessions import open_board_tools

        with open_board_tools(self.url, session, role, workdir=self.workdir, phase=phase) as toolbox:
            yield toolbox
