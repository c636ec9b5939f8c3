"""A batch on the task board: songs as board tasks that workers on any number of
machines claim, heartbeat and complete — the conductor/musician protocol of
`bandstand.board`, no other queue.

The **conductor** (`Conductor`, run by ``bandstand batch --board URL``) holds
``task-00``. It creates one task per song (phase ``batch:<id>``, the song as
an ``instruction`` message holding its `SongJob`), approves each completion
report that comes with a ``result`` message, hands a task whose worker went
silent (stale heartbeat while working) to the next worker (``fix_proposed``)
and one approved but never finished to whoever can finish it
(``exit_requested``), and retries a song that failed up to `MAX_TRIES` times.
The same batch run again finds its own tasks (the batch id is the hash of its
songs) instead of making new ones; a song finished in an earlier run is
brought into this run's folder (`copies.bring`: kept, copied, or reported as
already composed elsewhere) — never reported as composed again.

A **worker** (`work`, run by ``bandstand worker --board URL``) claims the next
song of any batch (including ones handed back), keeps its heartbeat fresh
from a thread while it composes (`songs.compose_job`: atomic and idempotent,
so a song a dead worker already wrote is kept, not composed again), posts the
result, reports completion, and completes once the conductor approved.

A **team song** (``"team": true``) goes one level further: the worker holding
it runs the team, and each section agent sends its writing out as a task of
the phase ``batch:<id>/sections`` (`sections.BoardSections`). Every worker
claims those too (the one holding the song does from a helper thread, so a
song never waits for work only its own worker could take); the conductor
tends them like songs — approves, hands a silent worker's section on,
retries — and the song's folder is byte for byte the song composed alone.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.board import (
    CONDUCTOR_TASK,
    Board,
    CompletionReport,
    ErrorReport,
    KeyOutput,
    State,
    Task,
)
from bandstand.errors import BoardError, BoardUsageError, FencingError
from bandstand.producer.batch.copies import bring
from bandstand.producer.batch.jobs import SongJob
from bandstand.producer.batch.sections import BoardSections, job_of, new_task, section_phase
from bandstand.producer.batch.songs import JobResult, compose_job
from bandstand.producer.teams.remote import SectionReply, SectionRequest, perform

__all__ = ["CONDUCTOR", "MAX_TRIES", "PHASE_PREFIX", "BatchStatus", "Conductor", "WorkerReport", "work"]

CONDUCTOR = "batch-conductor"
PHASE_PREFIX = "batch:"
MAX_TRIES = 3


def phase_of(batch: str) -> str:
    return f"{PHASE_PREFIX}{batch}"


@dataclass(slots=True)
class BatchStatus:
    """Where a batch stands on the board: results by song, and what the conductor did."""

    results: dict[int, JobResult] = field(default_factory=dict)
    working: int = 0
    waiting: int = 0
    given_up: dict[int, str] = field(default_factory=dict)
    takeovers: int = 0  # tasks handed to another worker: gone silent while working, or approved and left
    sections: int = 0  # team songs' section tasks on the board
    sections_done: int = 0

    def finished(self, songs: int) -> bool:
        return len(self.results) + len(self.given_up) >= songs


class Conductor:
    """The conductor of one batch on a board (see the module docstring)."""

    def __init__(self, board: Board, jobs: list[SongJob], batch: str, *, session: str = CONDUCTOR,
                 out: str | Path | None = None) -> None:
        self.board = board
        self.jobs = jobs
        self.batch = batch
        self.session = session
        self.out = out  # this run's folder: songs finished in an earlier run are brought there
        self.tasks: dict[str, int] = {}  # task id → job index
        self.earlier: set[str] = set()  # tasks already complete when this run began
        self.status = BatchStatus()

    def enqueue(self) -> dict[str, int]:
        """Take the conductor's seat and put every song of the batch on the board once."""
        board = self.board
        conductor = board.find_task(CONDUCTOR_TASK)
        if conductor is None:
            board.init(self.session)
        elif conductor.session_id != self.session:
            raise BoardUsageError(f"the board's conductor is {conductor.session_id}; conduct from that session "
                                  f"(--session {conductor.session_id}) or use another board")
        for task in board.tasks():
            if task.phase == phase_of(self.batch):
                found = board.last_message(task.task_id, "instruction")
                if found is not None:
                    self.tasks[task.task_id] = SongJob.model_validate_json(found.message).index
                    if task.state is State.COMPLETE:
                        self.earlier.add(task.task_id)
        have = set(self.tasks.values())
        for job in self.jobs:
            if job.index in have:
                continue
            task_id = new_task(board, phase_of(self.batch))
            board.instruct(task_id, job.model_dump_json(), conductor_session=self.session)
            self.tasks[task_id] = job.index
        return dict(self.tasks)

    def step(self) -> BatchStatus:
        """One pass over the batch's tasks: approve, hand back, retry; returns where it stands."""
        board, status = self.board, self.status
        board.heartbeat(CONDUCTOR_TASK, self.session)
        now = board.clock()
        status.working = status.waiting = status.sections = status.sections_done = 0
        sections = section_phase(phase_of(self.batch))
        for task in board.tasks():
            index = self.tasks.get(task.task_id)
            if index is None and task.phase != sections:
                continue
            if index is None:
                status.sections += 1
                status.sections_done += task.state is State.COMPLETE
            if index is not None and (index in status.results or index in status.given_up):
                continue
            age = task.heartbeat_age(now)
            stale = age is not None and age > board.stale_after
            try:
                self._tend(task, index, stale)
            except BoardError:  # the task moved while we looked: next pass
                continue
        return status

    def _tend(self, task: Task, index: int | None, stale: bool) -> None:
        """Move one task on: a song (`index`) or one of a team song's sections (None)."""
        board, status, state = self.board, self.status, task.state
        if state is State.COMPLETE:
            if index is not None:
                result = _result(board, task.task_id, index)
                if self.out is not None and task.task_id in self.earlier:
                    result = bring(next(j for j in self.jobs if j.index == index), result, self.out)
                status.results[index] = result
        elif state is State.NEEDS_REVIEW:
            if board.last_message(task.task_id, "result") is None:
                board.reject(task.task_id, "post the song's result (a result message) with the report",
                             conductor_session=self.session)
            else:
                board.approve(task.task_id, "the song is in its folder", conductor_session=self.session)
        elif state is State.WORKING:
            status.working += index is not None
            if stale:
                board.propose_fix(task.task_id, f"{task.worked_by} went silent (no heartbeat); take the song "
                                  "over (a folder already written is kept)", conductor_session=self.session)
                status.takeovers += 1
        elif state in (State.REVIEW_APPROVED, State.REVIEW_FAILED) and stale:
            board.request_exit(task.task_id, "approved but never finished: finish it", conductor_session=self.session)
            status.takeovers += 1
        elif state is State.ERROR:
            tries = sum(m.message_type == "error" for m in board.messages_since(0, task_id=task.task_id))
            if tries >= MAX_TRIES:
                if index is not None:
                    status.given_up[index] = task.last_error or "failed"
            else:
                board.propose_fix(task.task_id, f"try again ({tries} of {MAX_TRIES} tries failed)",
                                  conductor_session=self.session)
        else:
            status.waiting += index is not None

    def run(self, *, poll: float = 0.2, on_step: Callable[[BatchStatus], None] | None = None,
            stop: threading.Event | None = None) -> BatchStatus:
        """Conduct until every song is complete or given up (or `stop` is set)."""
        while True:
            status = self.step()
            if on_step is not None:
                on_step(status)
            if status.finished(len(self.jobs)) or (stop is not None and stop.is_set()):
                return status
            time.sleep(poll)


def _result(board: Board, task_id: str, index: int) -> JobResult:
    found = board.last_message(task_id, "result")
    data: dict[str, Any] = json.loads(found.message) if found is not None else {}
    return JobResult(index=index, folder=str(data.get("folder", "")), status=str(data.get("status", "composed")),
                     midi_sha256=str(data.get("midi_sha256", "")), seconds=float(data.get("seconds", 0.0)),
                     worker=str(data.get("worker", "")), where=str(data.get("where", "")))


# --------------------------------------------------------------------------- workers


@dataclass(slots=True)
class WorkerReport:
    """What a worker (`session`) did: songs it finished (composed or kept), failed, and tasks it lost."""

    done: list[JobResult] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    session: str = ""


class _Heartbeat:
    """Keeps one task's heartbeat fresh from a thread while the worker composes."""

    def __init__(self, board: Board, task_id: str, session: str, every: float) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(board, task_id, session, every), daemon=True,
                                        name=f"heartbeat-{task_id}")
        self._thread.start()

    def _beat(self, board: Board, task_id: str, session: str, every: float) -> None:
        while not self._stop.wait(every):
            try:
                board.heartbeat(task_id, session)
            except BoardError:
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _approved_completion(board: Board, task_id: str) -> bool:
    final, approval = board.last_message(task_id, "completion"), board.last_message(task_id, "approval")
    return final is not None and approval is not None and approval.id > final.id


def _finish(board: Board, task_id: str, session: str, poll: float, patience: float) -> bool:
    """Wait for the conductor's verdict on the completion report; complete when approved."""
    end = time.monotonic() + patience
    while time.monotonic() < end:
        state = board.task(task_id).state
        if state is State.REVIEW_APPROVED:
            board.resume(task_id, session)
            board.complete(task_id, session, "song written")
            return True
        if state is not State.NEEDS_REVIEW:
            return False  # rejected or handed on: another pass (or worker) finishes it
        board.heartbeat(task_id, session)
        time.sleep(poll)
    return False


def _song(board: Board, task: Task, session: str, out_dir: str, beat: float, poll: float,
          seats: tuple[Any, Any]) -> JobResult:
    found = board.last_message(task.task_id, "instruction")
    if found is None:
        raise BoardUsageError(f"{task.task_id} has neither a song nor a section job: not a batch task")
    job = SongJob.model_validate_json(found.message)
    heart = _Heartbeat(board, task.task_id, session, beat)
    helper: tuple[threading.Thread, threading.Event] | None = None
    try:
        sections = None
        if job.team:  # its sections go on the board; this worker writes some of them meanwhile
            sections = BoardSections(board, task.phase or "", task.task_id, session, poll=poll)
            helper = _helper(board.store.url, out_dir, f"{session}+sections", section_phase(task.phase or ""),
                             beat, poll, seats)
        return compose_job(job, out_dir, worker=session, sections=sections)
    finally:
        if helper is not None:
            helper[1].set()
            helper[0].join()
        heart.stop()


def _helper(url: str, out_dir: str, session: str, phase: str, beat: float, poll: float,
            seats: tuple[Any, Any]) -> tuple[threading.Thread, threading.Event]:
    """A thread that writes section jobs of the song's batch while its song waits for them (so a
    worker never waits for work only it could do)."""
    stop = threading.Event()

    def run() -> None:
        with Board.open(url, migrate=False) as board:
            work(board, out_dir, session, heartbeat=beat, poll=poll, stop=stop, phase_prefix=phase,
                 agents=seats[0], team=seats[1])
    thread = threading.Thread(target=run, name=f"sections-{session}", daemon=True)
    thread.start()
    return thread, stop


def _section(board: Board, task: Task, session: str, job: dict[str, Any], beat: float,
             seats: tuple[Any, Any]) -> tuple[str, str]:
    """Write one section job (with this worker's seats: its agents and team configuration, else
    the built-in musicians); returns (the result's JSON, a summary)."""
    from pydantic import ValidationError


    heart = _Heartbeat(board, task.task_id, session, beat)
    try:
        try:
            request = SectionRequest.from_json(str(job["request"]))
        except ValidationError as exc:  # a contract whose fingerprint does not match its fields
            why = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
            reply = SectionReply(None, error=f"contract refused: {why}", where=session)
        except (KeyError, ValueError) as exc:
            reply = SectionReply(None, error=f"not a section job: {exc}", where=session)
        else:
            reply = perform(request, agents=seats[0], team=seats[1], where=session)
    finally:
        heart.stop()
    summary = f"{job.get('key')}: " + (reply.error or f"{len(reply.part.notes) if reply.part else 0} notes")
    return reply.to_json(), summary


def work(board: Board, out_dir: str, session: str, *, heartbeat: float = 5.0, poll: float = 0.5,
         idle_exit: float | None = None, patience: float = 900.0, max_tasks: int | None = None,
         stop: threading.Event | None = None, on_result: Callable[[JobResult], None] | None = None,
         phase_prefix: str = PHASE_PREFIX, agents: Any = None, team: Any = None) -> WorkerReport:
    """Take batch songs (and team songs' section jobs) from the board until idle for `idle_exit`
    seconds, `max_tasks` are done or `stop` is set (see the module docstring). A section job is
    written by this worker's seat for its role (`agents`: an `AgentsConfig`, `team`: a
    `TeamConfig`), else by the built-in musician."""
    report = WorkerReport(session=session)
    idle_since = time.monotonic()
    while not (stop is not None and stop.is_set()):
        if max_tasks is not None and len(report.done) + len(report.failed) >= max_tasks:
            break
        claim = board.claim_next(session, phase_prefix=phase_prefix)
        if claim is None or not claim.claimed:
            if idle_exit is not None and time.monotonic() - idle_since >= idle_exit:
                break
            time.sleep(poll)
            continue
        task_id = claim.task_id
        try:
            if _approved_completion(board, task_id):  # the song was done and approved: only finishing was left
                board.complete(task_id, session, "song written (finished by a successor)")
                continue
            task = board.task(task_id)
            job = job_of(board, task_id)
            result: JobResult | None = None
            try:
                if job is not None:
                    text, summary = _section(board, task, session, job, heartbeat, (agents, team))
                    outputs: list[KeyOutput] = []
                else:
                    result = _song(board, task, session, out_dir, heartbeat, poll, (agents, team))
                    text, summary = json.dumps(result.to_json()), f"{result.folder}: {result.status}"
                    outputs = [KeyOutput(path=result.folder)]
            except FencingError:
                raise
            except Exception as exc:
                report.failed.append(task_id)
                board.report_error(task_id, session, ErrorReport(context_usage=0, retry=0,
                                                                 error=f"{type(exc).__name__}: {exc}"[:2000]))
                continue
            board.post(task_id, "result", text, from_session=session)
            board.report_completion(task_id, session, CompletionReport(
                context_usage=0, smoothness=9, checkpoint=1, checkpoints_total=1, summary=summary[:2000],
                key_outputs=outputs))
            if result is not None:
                report.done.append(result)
                if on_result is not None:
                    on_result(result)
            _finish(board, task_id, session, poll, patience)
        except FencingError:
            report.lost.append(task_id)  # the conductor gave it to someone else meanwhile
        finally:
            idle_since = time.monotonic()
    return report
