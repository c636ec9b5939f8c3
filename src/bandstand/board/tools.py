"""The board as tools an agent session calls: the one place a model's board writes are checked.

A `BoardToolbox` is bound to one board, one session id and one role. The
musician's tools claim, heartbeat, log status lines, submit the work, ask for
review, report completion or an error, wait for the conductor's verdict (the
pause watcher, which keeps the heartbeat fresh), resume, complete and hand
off; the conductor's list and read tasks and approve, reject, propose a fix or
ask for an exit. Each tool's arguments are one pydantic model, from which the
JSON schema the model sees is generated (`specs`).

`call(name, arguments)` never raises for what a model got wrong: unknown
tools, arguments that do not fit the schema, and every move the protocol's
state machine or fencing refuses (a report on a task the session has not
claimed, a second claim while holding a task, a review of a task nobody asked
to review, a completion report before the gates passed on the task's tests)
come back as a `ToolAnswer` with `is_error` set and one line that
says why — nothing is written then. The session id is the toolbox's, never an
argument, so a model cannot act as another session.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.board import checks, gates
from bandstand.board.board import CONDUCTOR_TASK, Board
from bandstand.board.reports import CompletionReport, ErrorReport, Handoff, ReviewRequest
from bandstand.board.states import CLAIMABLE, TERMINAL, State
from bandstand.board.taskfiles import HandoffDoc, TaskFiles
from bandstand.errors import BoardError, BoardUsageError, InvalidInput

__all__ = ["CONDUCTOR_TOOLS", "MAX_REJECTIONS", "MAX_WAIT", "MUSICIAN_TOOLS", "BoardToolbox", "ToolAnswer"]

#: Rejections of one task (and fixes after error reports) before the conductor must ask for an exit instead.
MAX_REJECTIONS = 3
#: Longest a `wait_for_review` call waits, seconds (a budget on one tool call).
MAX_WAIT = 600.0


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Task(_Args):
    task_id: str = Field(min_length=1, max_length=64, description="the task, e.g. task-03")


class ClaimArgs(_Args):
    task_id: str | None = Field(None, max_length=64,
                                description="the task to claim; leave out to claim the next one of the launch")


class StatusArgs(_Task):
    line: str = Field(min_length=1, max_length=500, description="e.g. 'step 1 started'")
    context_usage: float = Field(ge=0, le=100, description="context used, percent")


class SubmitArgs(_Task):
    answer: str = Field(max_length=200_000, description="the work itself: what you made, the files, how you checked it")


class ReviewArgs(_Task):
    summary: str = Field(min_length=1, max_length=2000)
    checkpoint: int = Field(ge=1, description="this checkpoint's number")
    checkpoints_total: int = Field(ge=1)
    context_usage: float = Field(ge=0, le=100, description="context used, percent")
    smoothness: int = Field(9, ge=0, le=9)
    tests: str = Field("", max_length=2000, description="what was run and how it went")


class ErrorArgs(_Task):
    error: str = Field(min_length=1, max_length=500)
    context_usage: float = Field(ge=0, le=100)
    retry: int = Field(1, ge=0, le=5)


class CheckArgs(_Task):
    check: Literal["state", "temp", "headroom", "coverage", "flaky"] = Field(
        description="state, temp, headroom: the protocol's health checks; coverage (>= 80%) and flaky "
                    "(failures rerun 3x): the checkpoint gates on the task's tests")
    tests: list[str] = Field(default_factory=list, max_length=50,
                             description="the gates' test paths, relative to the workdir")
    sources: list[str] = Field(default_factory=list, max_length=50,
                               description="what the coverage gate measures (packages or paths)")


class WaitArgs(_Task):
    timeout_seconds: float = Field(120.0, gt=0, le=MAX_WAIT)


class CompleteArgs(_Task):
    summary: str = Field("complete", max_length=2000)


class HandoffArgs(_Task):
    reason: str = Field(min_length=1, max_length=500)
    last_completed_step: str = Field("none", max_length=500)
    remaining_steps: list[str] = Field(default_factory=list, max_length=50)
    context_usage: float = Field(ge=0, le=100)


class NoteArgs(_Task):
    note: str = Field("approved", max_length=2000)


class ReasonArgs(_Task):
    reason: str = Field(min_length=1, max_length=2000)


class NoArgs(_Args):
    pass


@dataclass(frozen=True, slots=True)
class _Tool:
    args: type[_Args]
    description: str
    writes: bool = True


MUSICIAN_TOOLS: dict[str, _Tool] = {
    "claim_task": _Tool(ClaimArgs, "Claim a task (working). You hold one task at a time; a blocked claim "
                                   "means: end your session."),
    "heartbeat": _Tool(_Task, "Refresh your task's heartbeat (at every step boundary)."),
    "log_status": _Tool(StatusArgs, "Append a line to the task's status file with your context usage; "
                                    "also refreshes the heartbeat."),
    "submit_work": _Tool(SubmitArgs, "Record the work itself as the task's result (the conductor reviews it). "
                                     "While working, or redoing it after a rejection or a proposed fix."),
    "request_review": _Tool(ReviewArgs, "A checkpoint reached, tests pass: working → needs_review."),
    "report_completion": _Tool(ReviewArgs, "The final review (the completion report): working → needs_review."),
    "report_error": _Tool(ErrorArgs, "A failure: working → error; then wait for the conductor."),
    "wait_for_review": _Tool(WaitArgs, "Wait until the conductor answers (the task leaves needs_review or "
                                       "error); keeps the heartbeat fresh. Returns the state and the "
                                       "conductor's message.", writes=False),
    "run_check": _Tool(CheckArgs, "Run a check and get its report and exit code (0 healthy). A task whose "
                                  "instruction names tests must pass both gates on them before its "
                                  "completion report.", writes=False),
    "resume": _Tool(_Task, "Back to work after an approval: review_approved → working."),
    "complete": _Tool(CompleteArgs, "Finish after the completion report was approved: working → complete "
                                    "(your last write)."),
    "handoff": _Tool(HandoffArgs, "Stop before the end: writes the HANDOFF file, then working → exited."),
    "read_task": _Tool(_Task, "The task's state, holder and latest messages.", writes=False),
}

CONDUCTOR_TOOLS: dict[str, _Tool] = {
    "list_tasks": _Tool(NoArgs, "Every task of the board with its state and holder.", writes=False),
    "read_task": _Tool(_Task, "The task's state, holder and latest messages.", writes=False),
    "approve": _Tool(NoteArgs, "Approve a review: needs_review → review_approved."),
    "reject": _Tool(ReasonArgs, "Send a review back with the reason: needs_review → review_failed."),
    "propose_fix": _Tool(ReasonArgs, "Propose a fix (needs_review or error → fix_proposed)."),
    "request_exit": _Tool(ReasonArgs, "Ask the musician to hand off and exit (any non-terminal state)."),
}

ROLE_TOOLS = {"musician": MUSICIAN_TOOLS, "conductor": CONDUCTOR_TOOLS}
#: Where a musician may submit work: while working, and redoing it after review_failed or fix_proposed.
_SUBMITTING = frozenset({State.WORKING, State.REVIEW_FAILED, State.FIX_PROPOSED})


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """What a tool call gives back to the model: JSON text, or one line saying why it was refused."""

    content: str
    is_error: bool = False


def _ok(**fields: Any) -> ToolAnswer:
    return ToolAnswer(json.dumps(fields, ensure_ascii=False, default=str))


class BoardToolbox:
    """The board tools of one session (see the module docstring).

    `submit(task_id, answer)` turns a musician's answer into the task's result (the JSON text posted
    as a ``result`` message); `review_problems(task_id)` says what the conductor's own verification
    found (an approval is refused while it finds something). `phase` limits claims to the launch's
    tasks. `wait_for_review` reads the task every `poll` seconds and refreshes the heartbeat every
    `heartbeat` seconds; `stop` ends it early."""

    def __init__(self, board: Board, session_id: str, role: str, *, workdir: str | Path = ".",
                 phase: str | None = None, poll: float = 0.5, heartbeat: float = 5.0,
                 submit: Callable[[str, str], str] | None = None,
                 review_problems: Callable[[str], list[str]] | None = None,
                 gates_for: Callable[[str], tuple[tuple[str, ...], tuple[str, ...]]] | None = None,
                 stop: threading.Event | None = None) -> None:
        if role not in ROLE_TOOLS:
            raise BoardUsageError(f"no board tools for {role!r}: the roles are {', '.join(ROLE_TOOLS)}")
        self.board = board
        self.session_id = session_id
        self.role = role
        self.workdir = Path(workdir)
        self.phase = phase
        self.poll = poll
        self.heartbeat_every = heartbeat
        self.submit = submit
        self.review_problems = review_problems
        self.gates_for = gates_for
        self.passed: dict[str, dict[str, tuple[str, ...]]] = {}  # task → gate → the tests it passed on
        self.stop = stop or threading.Event()
        self.tools = ROLE_TOOLS[role]
        self.holding: str | None = None  # the task this session claimed
        self.calls: list[tuple[str, bool]] = []  # (tool, refused) per call, in order

    def specs(self) -> list[dict[str, Any]]:
        """The tools as name, description and parameters (JSON schema), in a stable order."""
        return [{"name": name, "description": tool.description, "parameters": tool.args.model_json_schema()}
                for name, tool in self.tools.items()]

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        """Run one call; every refusal is an error answer and writes nothing."""
        answer = self._call(name, arguments)
        self.calls.append((name, answer.is_error))
        return answer

    def _call(self, name: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        tool = self.tools.get(name)
        if tool is None:
            return ToolAnswer(f"error: {name}: there is no {self.role} tool {name!r}; the tools are "
                              f"{', '.join(self.tools)}", True)
        try:
            args = tool.args.model_validate(dict(arguments))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "arguments"
            return ToolAnswer(f"error: {name}: {where}: {first['msg']}", True)
        try:
            answer: ToolAnswer = getattr(self, f"_{name}")(args)
            return answer
        except (BoardError, BoardUsageError, InvalidInput) as exc:
            return ToolAnswer(f"error: {name}: {exc}", True)

    # ------------------------------------------------------------------ musician

    def _claim_task(self, args: ClaimArgs) -> ToolAnswer:
        if self.holding is not None and self.board.task(self.holding).state not in TERMINAL:
            return ToolAnswer(f"error: claim_task: you hold {self.holding} already; finish it or hand it off first",
                              True)
        if args.task_id is None:
            claim = self.board.claim_next(self.session_id, phase_prefix=self.phase)
            if claim is None:
                return ToolAnswer("error: claim_task: no task is left to claim; end your session", True)
        else:
            found = self.board.find_task(args.task_id)
            if found is None or (self.phase is not None and found.phase != self.phase):
                return ToolAnswer(f"error: claim_task: {args.task_id} is not a task of this launch", True)
            if found.state not in CLAIMABLE:  # refused before the claim: a blocked claim writes a fallback row
                return ToolAnswer(f"error: claim_task: {args.task_id} is {found.state} (held by "
                                  f"{found.worked_by or 'nobody'}); only watching, fix_proposed or "
                                  "exit_requested tasks can be claimed", True)
            claim = self.board.claim(args.task_id, self.session_id)
        if not claim.claimed:
            return ToolAnswer(f"error: claim_task: blocked ({claim.reason}); end your session", True)
        self.holding = claim.task_id
        instruction = self.board.last_message(claim.task_id, "instruction")
        asked = self.board.conductor_messages_since(claim.task_id, 0)
        return _ok(claimed=True, task_id=claim.task_id, worked_by=claim.worked_by,
                   instruction=instruction.message if instruction else "",
                   conductor_said=asked[-1].message if asked else None,
                   last_conductor_message=asked[-1].message_type if asked else None)

    def _heartbeat(self, args: _Task) -> ToolAnswer:
        self.board.heartbeat(args.task_id, self.session_id)
        return _ok(task_id=args.task_id, heartbeat="fresh")

    def _log_status(self, args: StatusArgs) -> ToolAnswer:
        self.board.heartbeat(args.task_id, self.session_id)  # fenced: only the holder logs
        TaskFiles(self.workdir, args.task_id).status(args.line, ctx=args.context_usage)
        return _ok(task_id=args.task_id, logged=args.line)

    def _submit_work(self, args: SubmitArgs) -> ToolAnswer:
        task = self.board.task(args.task_id)
        if task.session_id != self.session_id or task.state not in _SUBMITTING:
            return ToolAnswer(f"error: submit_work: {args.task_id} is {task.state}, held by "
                              f"{task.session_id or 'nobody'}: only the holding session submits, while working "
                              "(or redoing it after a rejection or a proposed fix)", True)
        if self.submit is None:
            return ToolAnswer("error: submit_work: this board takes no submitted work", True)
        result = self.submit(args.task_id, args.answer)
        self.board.post(args.task_id, "result", result, from_session=self.session_id)
        self.board.heartbeat(args.task_id, self.session_id)
        return _ok(task_id=args.task_id, result=json.loads(result))

    def _report(self, args: ReviewArgs, kind: type[ReviewRequest]) -> ToolAnswer:
        report = kind(smoothness=args.smoothness, checkpoint=args.checkpoint, checkpoints_total=args.checkpoints_total,
                      context_usage=args.context_usage, summary=args.summary, tests=args.tests)
        task = self.board.request_review(args.task_id, self.session_id, report)
        return _ok(task_id=task.task_id, state=str(task.state), next="call wait_for_review")

    def _request_review(self, args: ReviewArgs) -> ToolAnswer:
        return self._report(args, ReviewRequest)

    def _report_completion(self, args: ReviewArgs) -> ToolAnswer:
        tests, sources = self.gates_for(args.task_id) if self.gates_for is not None else ((), ())
        if tests:
            passed = self.passed.get(args.task_id, {})
            missing = [gate for gate in ("coverage", "flaky") if passed.get(gate) != tuple(tests)]
            if missing:
                return ToolAnswer(f"error: report_completion: {args.task_id} names tests ({' '.join(tests)}; "
                                  f"source {' '.join(sources)}): pass the {' and the '.join(missing)} gate on "
                                  "them first (run_check)", True)
        return self._report(args, CompletionReport)

    def _run_check(self, args: CheckArgs) -> ToolAnswer:
        if args.check in ("coverage", "flaky") and not args.tests:
            return ToolAnswer(f"error: run_check: the {args.check} gate needs the task's tests", True)
        if args.check == "coverage" and not args.sources:
            return ToolAnswer("error: run_check: the coverage gate needs the sources it measures", True)
        with self._beating(args.task_id):  # a gate runs the tests: seconds to minutes
            report = self._check(args)
        if args.check in ("coverage", "flaky"):
            done = self.passed.setdefault(args.task_id, {})
            if report.code == 0:
                done[args.check] = tuple(args.tests)
            else:
                done.pop(args.check, None)
        return _ok(task_id=args.task_id, check=args.check, code=report.code, report=report.render())

    @contextlib.contextmanager
    def _beating(self, task_id: str) -> Iterator[None]:
        """Keep the heartbeat of a task this session holds fresh while a long call runs."""
        done = threading.Event()

        def beat() -> None:
            while not done.wait(self.heartbeat_every):
                try:
                    self.board.heartbeat(task_id, self.session_id)
                except BoardError:
                    return

        thread = threading.Thread(target=beat, daemon=True, name=f"tool-heartbeat-{task_id}")
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def _check(self, args: CheckArgs) -> Any:
        if args.check == "state":
            report = checks.check_state(self.board, args.task_id, self.session_id)
        elif args.check == "temp":
            report = checks.check_temp(self.workdir, args.task_id)
        elif args.check == "headroom":
            report = checks.check_headroom(self.workdir, args.task_id)
        elif args.check == "coverage":
            report = gates.coverage_gate(self.workdir, args.task_id, args.tests, args.sources, gates.COVERAGE_MIN)
        else:
            report = gates.flaky_reruns(self.workdir, args.task_id, args.tests, gates.RERUNS)
        return report

    def _report_error(self, args: ErrorArgs) -> ToolAnswer:
        task = self.board.report_error(args.task_id, self.session_id, ErrorReport(
            context_usage=args.context_usage, retry=args.retry, error=args.error))
        return _ok(task_id=task.task_id, state=str(task.state), next="call wait_for_review")

    def _wait_for_review(self, args: WaitArgs) -> ToolAnswer:
        task = self.board.task(args.task_id)
        if task.session_id != self.session_id:
            return ToolAnswer(f"error: wait_for_review: {args.task_id} is held by {task.session_id or 'nobody'}, "
                              "not you", True)
        deadline = time.monotonic() + args.timeout_seconds
        beat = 0.0  # the watcher keeps the heartbeat fresh, every `heartbeat_every` seconds
        while task.state in (State.NEEDS_REVIEW, State.ERROR):
            if time.monotonic() >= deadline or self.stop.is_set():
                return _ok(task_id=args.task_id, state=str(task.state), waiting=True,
                           note="no verdict yet: call wait_for_review again")
            if time.monotonic() - beat >= self.heartbeat_every:
                self.board.heartbeat(args.task_id, self.session_id)
                beat = time.monotonic()
            self.stop.wait(self.poll)
            task = self.board.task(args.task_id)
        said = self.board.conductor_messages_since(args.task_id, 0)
        return _ok(task_id=args.task_id, state=str(task.state), conductor_said=said[-1].message if said else None,
                   message_type=said[-1].message_type if said else None)

    def _resume(self, args: _Task) -> ToolAnswer:
        task = self.board.resume(args.task_id, self.session_id)
        # answered: the approval is no longer a pending conductor message (the state check counts those)
        self.board.post(args.task_id, "resumption", "approved: resuming", from_session=self.session_id)
        return _ok(task_id=task.task_id, state=str(task.state))

    def _complete(self, args: CompleteArgs) -> ToolAnswer:
        task = self.board.complete(args.task_id, self.session_id, args.summary)
        return _ok(task_id=task.task_id, state=str(task.state), next="the task is finished: end your session")

    def _handoff(self, args: HandoffArgs) -> ToolAnswer:
        task = self.board.task(args.task_id)
        if task.session_id != self.session_id:  # checked before the HANDOFF file is written
            return ToolAnswer(f"error: handoff: {args.task_id} is held by {task.session_id or 'nobody'}, not you",
                              True)
        files = TaskFiles(self.workdir, args.task_id)
        path = files.write_handoff(HandoffDoc(
            session_id=self.session_id, worked_by=task.worked_by or "", completed_steps=[args.last_completed_step],
            pending_steps=list(args.remaining_steps), deviations=[f"{s}: {t}" for s, t in files.deviations()],
            next_session_instructions=args.reason))
        moved = self.board.handoff(args.task_id, self.session_id, Handoff(
            context_usage=args.context_usage, reason=args.reason, handoff_path=str(path),
            last_completed_step=args.last_completed_step, remaining_steps=list(args.remaining_steps)))
        return _ok(task_id=moved.task_id, state=str(moved.state), handoff=str(path))

    def _read_task(self, args: _Task) -> ToolAnswer:
        task = self.board.task(args.task_id)
        messages = self.board.messages_since(0, task_id=args.task_id)[-8:]
        return _ok(task_id=task.task_id, state=str(task.state), worked_by=task.worked_by, holder=task.session_id,
                   last_error=task.last_error,
                   messages=[{"id": m.id, "type": m.message_type, "from": m.from_session, "text": m.message[:1500]}
                             for m in messages])

    # ------------------------------------------------------------------ conductor

    def _list_tasks(self, args: NoArgs) -> ToolAnswer:
        del args
        return _ok(tasks=[{"task_id": t.task_id, "state": str(t.state), "worked_by": t.worked_by}
                          for t in self.board.tasks() if t.task_id != CONDUCTOR_TASK
                          and (self.phase is None or t.phase == self.phase)])

    def _approve(self, args: NoteArgs) -> ToolAnswer:
        problems = self.review_problems(args.task_id) if self.review_problems is not None else []
        if problems:
            return ToolAnswer(f"error: approve: your verification of {args.task_id} found problems "
                              f"({'; '.join(problems)}): reject it with them", True)
        task = self.board.approve(args.task_id, args.note, conductor_session=self.session_id)
        return _ok(task_id=task.task_id, state=str(task.state))

    def _reject(self, args: ReasonArgs) -> ToolAnswer:
        rejections = sum(m.message_type == "rejection" for m in self.board.messages_since(0, task_id=args.task_id))
        if rejections >= MAX_REJECTIONS and self.board.task(args.task_id).state is State.NEEDS_REVIEW:
            return ToolAnswer(f"error: reject: {args.task_id} was rejected {rejections} times already: "
                              "call request_exit instead", True)
        task = self.board.reject(args.task_id, args.reason, conductor_session=self.session_id)
        return _ok(task_id=task.task_id, state=str(task.state))

    def _propose_fix(self, args: ReasonArgs) -> ToolAnswer:
        errors = sum(m.message_type == "error" for m in self.board.messages_since(0, task_id=args.task_id))
        if errors > MAX_REJECTIONS and self.board.task(args.task_id).state is State.ERROR:
            return ToolAnswer(f"error: propose_fix: {args.task_id} reported {errors} errors, more than the "
                              f"{MAX_REJECTIONS} fixes a task gets: call request_exit instead", True)
        task = self.board.propose_fix(args.task_id, args.reason, conductor_session=self.session_id)
        return _ok(task_id=task.task_id, state=str(task.state))

    def _request_exit(self, args: ReasonArgs) -> ToolAnswer:
        task = self.board.request_exit(args.task_id, args.reason, conductor_session=self.session_id)
        return _ok(task_id=task.task_id, state=str(task.state))
