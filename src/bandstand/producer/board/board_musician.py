"""A launched musician: one agent session that works tasks on the board, as the protocol says.

`run_musician(setup)` claims the next task of the launch (``phase = launch``,
including tasks the conductor handed back after a crash), and for each one:
writes ``step 1 started [ctx: N%]`` to the status file (a successor first
reads the previous session's files and says whether it exited cleanly), keeps
the heartbeat fresh from a thread, sends the session its launch prompt (the
musician skill is its system prompt), records the answer as the task's
result, posts it and asks for review (checkpoint 1 of 2); after approval it
resumes, verifies the result and runs the protocol's state, temp-files and
headroom checks — and, when the task names tests, the coverage and flaky gates
(`board.gates`; a failing gate keeps the task from review) — (step 2; an issue is
an error report) and sends the completion report
(checkpoint 2 of 2); after that approval it resumes and completes — the last
write. A rejection redoes the work and resubmits; a failure is an error
report, and the conductor proposes a fix or asks it to exit. A session that
cannot start (the backend crashed or is missing) files an error report on its
task — the conductor proposes a fix and another musician claims it — and the
musician ends with one line (`AgentError`).

With the built-in backend the harness makes the board writes on the session's
behalf: the session's turn is the work (it composes a song through the
producer facade). With a model backend the session makes its own board writes
through the board tools (`board_sessions.run_model_musician`). Context usage is estimated from the
session's tokens (or, for the built-in backend, its history's characters).
A stop request (SIGTERM from the launcher on Ctrl-C) ends the session after
the current board write and leaves the task for recovery."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from bandstand.producer.board.board_backends import backend_for
from bandstand.producer.board.board_work import (
    TaskChecks,
    WorkResult,
    compose_work,
    task_checks,
    verify,
)

__all__ = ["PHASE", "MusicianReport", "MusicianSetup", "run_musician"]

PHASE = "launch"
#: The context window the usage estimate is a share of, tokens.
CONTEXT_TOKENS = 200_000
#: How long a musician waits for a verdict before it checks the conductor's heartbeat, seconds.
PAUSE_TIMEOUT = 15 * 60.0


@dataclass(frozen=True, slots=True)
class MusicianSetup:
    """Where and how a musician works. `backend` is a launcher backend name (`board_backends.BACKENDS`)."""

    board: str
    session_id: str
    backend: str = "builtin"
    workdir: Path = Path(".")
    out: Path = Path("output/board")
    heartbeat: float = 5.0
    poll: float = 0.5
    stale_after: float = 540.0
    config: str | None = None
    turn_timeout: float = 600.0


@dataclass(slots=True)
class MusicianReport:
    completed: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class _Heartbeat:
    """Keeps one task's heartbeat fresh from a thread; notices when the task was taken away."""

    def __init__(self, board: Any, task_id: str, session: str, every: float) -> None:
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(board, task_id, session, every), daemon=True,
                                        name=f"heartbeat-{task_id}")
        self._thread.start()

    def _beat(self, board: Any, task_id: str, session: str, every: float) -> None:
        from bandstand.errors import BoardError

        while not self._stop.wait(every):
            try:
                board.heartbeat(task_id, session)
            except BoardError:
                self.lost.set()
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _context(session: Any) -> float:
    usage = session.usage
    tokens = int(usage.input_tokens + usage.output_tokens)
    if tokens == 0:
        tokens = sum(len(m.content) for m in session.history) // 4 + len(session.persona) // 4
    return round(min(99.0, 100.0 * tokens / CONTEXT_TOKENS), 1)


class _Musician:
    def __init__(self, setup: MusicianSetup, board: Any, make_session: Callable[[str], Any],
                 stop: threading.Event) -> None:
        self.setup = setup
        self.board = board
        self.make_session = make_session
        self.stop = stop
        self.report = MusicianReport()

    async def run(self) -> MusicianReport:
        from bandstand.board import TERMINAL

        while not self.stop.is_set():
            claim = await asyncio.to_thread(self.board.claim_next, self.setup.session_id, phase_prefix=PHASE)
            if claim is None:
                tasks = await asyncio.to_thread(self.board.tasks)
                mine = [t for t in tasks if t.phase == PHASE]
                if mine and all(t.state in TERMINAL for t in mine):
                    break
                await asyncio.sleep(self.setup.poll)
                continue
            if not claim.claimed:  # blocked: the fallback row says so; the session ends cleanly
                self.report.errors.append(claim.reason)
                break
            await self.task(claim.task_id, claim.worked_by or "")
        return self.report

    async def task(self, task_id: str, worked_by: str) -> None:
        from bandstand.board.taskfiles import TaskFiles, assess_resumption
        from bandstand.errors import AgentError, BoardError

        files = TaskFiles(self.setup.workdir, task_id)
        if worked_by.rpartition("-S")[2].isdigit():
            found = assess_resumption(files, "fix_proposed", worked_by)
            files.status(f"takeover by {worked_by} ({self.setup.session_id}): {found.summary()}; "
                         "re-running verification")
        asked = await asyncio.to_thread(self.board.conductor_messages_since, task_id, 0)
        if asked and asked[-1].message_type == "exit_request":
            await asyncio.to_thread(self._handoff, task_id, worked_by, files, asked[-1].message)
            return
        heart = _Heartbeat(self.board, task_id, self.setup.session_id, self.setup.heartbeat)
        session = self.make_session(worked_by)
        try:
            try:
                await session.start()
            except AgentError as exc:
                await asyncio.to_thread(self._start_failed, task_id, files, exc)
                raise AgentError(f"{self.setup.session_id}: the {self.setup.backend} session could not start "
                                 f"({exc}); filed an error report on {task_id} for another musician to take "
                                 "it") from exc
            await self._work(task_id, worked_by, files, session, heart)
        except BoardError as exc:  # taken over, or moved by the conductor meanwhile
            self.report.lost.append(f"{task_id}: {exc}")
        finally:
            heart.stop()
            await session.close()

    def _start_failed(self, task_id: str, files: Any, exc: Exception) -> None:
        """The session never started: an error report (a failed attempt) on the task, so the conductor
        proposes a fix and another musician claims it."""
        from bandstand.board import ErrorReport

        errors = sum(m.message_type == "error" for m in self.board.messages_since(0, task_id=task_id))
        reason = f"the agent session could not start: {exc}"
        files.status(f"step 1 failed: {reason}", ctx=0.0)
        self.board.report_error(task_id, self.setup.session_id, ErrorReport(
            context_usage=0, retry=min(5, errors + 1), error=reason[:500]))

    def _handoff(self, task_id: str, worked_by: str, files: Any, reason: str) -> None:
        """The conductor asked for an exit: write the HANDOFF, then the handoff message and exited."""
        from bandstand.board import Handoff
        from bandstand.board.taskfiles import HandoffDoc

        path = files.write_handoff(HandoffDoc(
            session_id=self.setup.session_id, worked_by=worked_by, completed_steps=[], pending_steps=["the work"],
            deviations=[f"{s}: {t}" for s, t in files.deviations()],
            next_session_instructions="the conductor asked for an exit: " + reason))
        self.board.handoff(task_id, self.setup.session_id, Handoff(
            context_usage=0, reason=reason, handoff_path=str(path), last_completed_step="none",
            remaining_steps=["the work"]))

    async def _turn(self, session: Any, task_id: str, worked_by: str, instruction: str) -> WorkResult:
        from bandstand.board.skilltext import launch_prompt

        prompt = launch_prompt(role="musician", name=worked_by, session_id=self.setup.session_id,
                               board=self.setup.board, task_id=task_id, workdir=str(self.setup.workdir),
                               instruction=instruction)
        reply = await session.send({"launch_prompt": prompt, "task_id": task_id, "instruction": instruction,
                                    "out": str(self.setup.out), "worker": self.setup.session_id})
        return WorkResult.from_json(reply.text)

    async def _work(self, task_id: str, worked_by: str, files: Any, session: Any, heart: _Heartbeat) -> None:
        from bandstand.board import CompletionReport, ErrorReport, KeyOutput, ReviewRequest, State
        from bandstand.errors import AgentError, InvalidInput

        board, sid = self.board, self.setup.session_id
        found = await asyncio.to_thread(board.last_message, task_id, "instruction")
        try:
            named = task_checks(found.message if found is not None else "")
        except InvalidInput as exc:  # an instruction written past the launcher's check: a failed attempt
            files.status(f"step 1 failed: {exc}", ctx=_context(session))
            errors = sum(m.message_type == "error" for m in await asyncio.to_thread(
                board.messages_since, 0, task_id=task_id))
            await asyncio.to_thread(board.report_error, task_id, sid, ErrorReport(
                context_usage=_context(session), retry=min(5, errors + 1), error=str(exc)[:500]))
            await self._verdict(task_id)
            return
        instruction = named.instruction
        checkpoint = 1
        while not self.stop.is_set():
            files.status("step 1 started: the work", ctx=_context(session))
            try:
                result = await self._turn(session, task_id, worked_by, instruction)
            except (AgentError, ValueError, KeyError) as exc:
                errors = sum(m.message_type == "error" for m in await asyncio.to_thread(
                    board.messages_since, 0, task_id=task_id))
                files.status(f"step 1 failed: {exc}", ctx=_context(session))
                await asyncio.to_thread(board.report_error, task_id, sid, ErrorReport(
                    context_usage=_context(session), retry=min(5, errors + 1), error=str(exc)[:500]))
                if await self._verdict(task_id) is not State.FIX_PROPOSED:
                    return
                continue
            files.status(f"step 1 completed: {result.summary}", ctx=_context(session))
            if heart.lost.is_set():
                return
            await asyncio.to_thread(board.post, task_id, "result", result.to_json(), from_session=sid)
            outputs = [KeyOutput(path=str(Path(result.folder) / f), kind="created") for f in result.files]
            await asyncio.to_thread(board.request_review, task_id, sid, ReviewRequest(
                smoothness=9, checkpoint=checkpoint, checkpoints_total=2, context_usage=_context(session),
                summary=result.summary, tests="not run yet (step 2 verifies)", key_outputs=outputs))
            verdict = await self._verdict(task_id)
            if verdict is State.REVIEW_APPROVED:
                break
            if verdict not in (State.REVIEW_FAILED, State.FIX_PROPOSED):
                return
            files.status(f"review answered {verdict}: redoing the work", ctx=_context(session))
        else:
            return
        await asyncio.to_thread(board.resume, task_id, sid)
        # answered: the approval is no longer a pending conductor message (the state check counts those)
        await asyncio.to_thread(board.post, task_id, "resumption", "approved: resuming with step 2, verification",
                                from_session=sid)
        files.status("step 2 started: verification", ctx=_context(session))
        problems = await asyncio.to_thread(verify, result)
        codes = await asyncio.to_thread(self._checks, task_id)
        problems += [f"the {name} check found issues (exit {code})" for name, code in codes.items() if code]
        if named.tests and not problems:
            gated, failed = await asyncio.to_thread(self._gates, task_id, named)
            codes.update(gated)
            problems += failed
        checks = " · ".join(f"{name} {code}" for name, code in codes.items())
        files.status("step 2 completed: " + ("; ".join(problems) or f"{len(result.files)} files verified")
                     + f"; checks: {checks}", ctx=_context(session))
        if problems:
            errors = sum(m.message_type == "error" for m in await asyncio.to_thread(
                board.messages_since, 0, task_id=task_id))
            await asyncio.to_thread(board.report_error, task_id, sid, ErrorReport(
                context_usage=_context(session), retry=min(5, errors + 1), error="; ".join(problems)[:500]))
            await self._verdict(task_id)
            return
        await asyncio.to_thread(board.report_completion, task_id, sid, CompletionReport(
            smoothness=9, checkpoint=2, checkpoints_total=2, context_usage=_context(session),
            summary=result.summary, tests=f"{len(result.files)} files verified (MIDI read back with notes); "
                                          f"checks: {checks}",
            key_outputs=[KeyOutput(path=str(Path(result.folder) / f), kind="created") for f in result.files]))
        if await self._verdict(task_id) is not State.REVIEW_APPROVED:
            return
        await asyncio.to_thread(board.resume, task_id, sid)
        files.status("task complete", ctx=_context(session))
        await asyncio.to_thread(board.complete, task_id, sid, result.summary)
        self.report.completed.append(task_id)

    def _checks(self, task_id: str) -> dict[str, int]:
        """The protocol's three checks at the checkpoint: state (with this session), temp files, headroom."""
        from bandstand.producer.board.board_checks import run_check

        return {name: int(run_check(name, task_id, board=self.board, workdir=self.setup.workdir,
                                    session_id=self.setup.session_id).code)
                for name in ("state", "temp", "headroom")}

    def _gates(self, task_id: str, named: TaskChecks) -> tuple[dict[str, int], list[str]]:
        """The checkpoint gates on the task's tests: coverage (≥ 80%), then flaky reruns (3×). Returns the
        exit codes and, for each failing gate, its message (what keeps the task from review)."""
        from bandstand.board.gates import COVERAGE_MIN, RERUNS
        from bandstand.errors import BoardUsageError
        from bandstand.producer.board.board_checks import run_check

        codes: dict[str, int] = {}
        problems: list[str] = []
        for name in ("coverage", "flaky"):
            try:
                report = run_check(name, task_id, workdir=self.setup.workdir, tests=named.tests,
                                   sources=named.sources, minimum=COVERAGE_MIN, reruns=RERUNS)
            except BoardUsageError as exc:  # a test path that is not there, coverage.py missing
                codes[name] = 2
                problems.append(f"the {name} gate cannot run: {exc}")
                continue
            codes[name] = int(report.code)
            if report.code:
                issues = [line.split(maxsplit=1)[1] for line in report.lines if not line.startswith("OK")]
                problems.append(f"the {name} gate failed (exit {report.code}): " + "; ".join(issues))
        return codes, problems

    async def _verdict(self, task_id: str) -> Any:
        """The pause watcher: wait until the conductor moves the task out of needs_review/error (the
        heartbeat thread keeps it fresh). After `PAUSE_TIMEOUT` a stale conductor ends the wait (None,
        for escalation); so does a stop request."""
        import time

        from bandstand.board import CONDUCTOR_TASK, State

        waited_since = time.monotonic()
        while not self.stop.is_set():
            task = await asyncio.to_thread(self.board.task, task_id)
            if task.state not in (State.NEEDS_REVIEW, State.ERROR):
                return task.state
            if time.monotonic() - waited_since >= PAUSE_TIMEOUT:
                if (await asyncio.to_thread(self.board.health, CONDUCTOR_TASK)).stale:
                    files_note = f"pause watcher: the conductor's heartbeat is stale after {PAUSE_TIMEOUT:g} s"
                    self.report.errors.append(f"{task_id}: {files_note}")
                    return None
                waited_since = time.monotonic()
            await asyncio.sleep(self.setup.poll)
        return None


def builtin_responder(request: Any) -> Any:
    """The built-in musician's turn: compose the task's song (off the event loop)."""
    data = request.data or {}

    async def work() -> str:
        result = await asyncio.to_thread(compose_work, str(data["task_id"]), str(data["instruction"]),
                                         str(data["out"]), str(data["worker"]))
        return result.to_json()

    return work()


def run_musician(setup: MusicianSetup, *, stop: threading.Event | None = None,
                 make_backend: Callable[[], Any] | None = None) -> MusicianReport:
    """Work the launch's tasks until every one is finished or `stop` is set (see the module docstring)."""
    from bandstand.board import Board
    from bandstand.board.skilltext import skill
    from bandstand.runtime import Session, SessionLimits

    stop = stop or threading.Event()
    backend = make_backend() if make_backend is not None else backend_for(setup.backend, setup.config,
                                                                          responder=builtin_responder)
    persona = skill("musician")

    tooled = setup.backend != "builtin"
    log_dir = Path(setup.workdir) / "temp" / "sessions" if tooled else None

    def make_session(name: str) -> Any:
        return Session(backend, name=name, persona=persona, session_id=setup.session_id,
                       limits=SessionLimits(turn_timeout=setup.turn_timeout), log_dir=log_dir)

    with Board.open(setup.board, workdir=setup.workdir, migrate=False,
                    stale_after=timedelta(seconds=setup.stale_after)) as board:
        if tooled:  # the model makes its own board writes, through the board tools
            from bandstand.producer.board.board_sessions import run_model_musician

            report: MusicianReport = asyncio.run(run_model_musician(setup, board, make_session, stop,
                                                                    MusicianReport(), PHASE))
            return report
        return asyncio.run(_Musician(setup, board, make_session, stop).run())
