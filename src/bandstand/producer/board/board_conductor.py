"""The launch's conductor: an agent session holding ``task-00`` that tends the board.

`LaunchConductor.setup(instructions)` creates the conductor's row and one task
per instruction (``task-01`` …, phase ``launch``, the instruction as an
``instruction`` message); tasks already on the board are kept, so a launch run
again on the same board continues it. `step()` is one pass over the board, as
the conductor skill says: its own heartbeat; each needs_review task reviewed —
the result verified (`board_work.verify`) and the session asked for its
verdict (a rejection needs the result to fail verification or the session to
say ``reject``; after `MAX_RETRIES` rejections it asks for an exit instead) — a model-backed session gives its verdict itself, through the board tools
(approve / reject, checked by `board.tools`), and answers error reports the same way
(propose_fix / request_exit); an error task given a fix while it has retries left, else an
exit request; a stale task in working, review_approved or review_failed handed
to the next musician (``fix_proposed``, crash recovery). When every task is
complete or exited, `finish()` completes ``task-00``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bandstand.producer.board.board_musician import PHASE
from bandstand.producer.board.board_work import WorkResult, verify

__all__ = ["MAX_RETRIES", "BoardProgress", "LaunchConductor"]

MAX_RETRIES = 3


@dataclass(slots=True)
class BoardProgress:
    """Where the launch stands: tasks by state, and what the conductor did so far."""

    states: dict[str, str] = field(default_factory=dict)
    approved: int = 0
    rejected: int = 0
    recovered: list[str] = field(default_factory=list)

    def count(self, *states: str) -> int:
        return sum(1 for s in self.states.values() if s in states)

    @property
    def done(self) -> bool:
        return bool(self.states) and self.count("complete", "exited") == len(self.states)

    def line(self) -> str:
        """``2/6 complete · 3 working · 1 needs_review · 4 approvals · 1 recovered``: every state a task is in."""
        from bandstand.board import State

        total = len(self.states)
        others = [f"{self.count(s.value)} {s.value}" for s in State
                  if s is not State.COMPLETE and self.count(s.value)]
        return " · ".join([f"{self.count('complete')}/{total} complete", *others, f"{self.approved} approvals",
                           f"{len(self.recovered)} recovered"])


def _verdict_of(text: str) -> tuple[str, str]:
    """('approve' | 'reject', note) from a conductor session's answer: JSON {verdict, note} or text."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and str(data.get("verdict", "")).lower() in ("approve", "reject"):
        return str(data["verdict"]).lower(), str(data.get("note") or data.get("feedback") or "")
    return "approve", " ".join(text.split())[:300]


class LaunchConductor:
    """See the module docstring. `session` is a started `runtime.Session` with the conductor skill."""

    def __init__(self, board: Any, session_id: str, session: Any, toolbox: Any = None) -> None:
        self.board = board
        self.session_id = session_id
        self.session = session
        self.toolbox = toolbox  # a model-backed conductor reviews through the board tools
        self.progress = BoardProgress()
        self.finished = False  # the conductor's row was terminal already: the board is read only

    def setup(self, instructions: Sequence[str]) -> list[str]:
        from bandstand.board import CONDUCTOR_TASK, TERMINAL
        from bandstand.errors import BoardUsageError

        conductor = self.board.find_task(CONDUCTOR_TASK)
        if conductor is not None and conductor.session_id != self.session_id:
            raise BoardUsageError(f"the board already has a conductor ({conductor.session_id}): launch with "
                                  f"--conductor {conductor.session_id} to continue it, or use another board")
        if conductor is not None and conductor.state in TERMINAL:
            missing = [k for k in range(1, len(instructions) + 1) if self.board.find_task(f"task-{k:02d}") is None]
            if missing:
                raise BoardUsageError(f"this board's conductor is {conductor.state} (a terminal state), so it takes "
                                      "no new tasks: launch on a new board")
            self.finished = True
            return []
        self.board.init(self.session_id)
        created = []
        for number, text in enumerate(instructions, start=1):
            task_id = f"task-{number:02d}"
            if self.board.find_task(task_id) is None:
                self.board.create_task(task_id, phase=PHASE)
                self.board.instruct(task_id, text, conductor_session=self.session_id)
                created.append(task_id)
        return created

    def tasks(self) -> list[Any]:
        return [t for t in self.board.tasks() if t.phase == PHASE]

    async def step(self) -> BoardProgress:
        from bandstand.board import CONDUCTOR_TASK, State

        if self.finished:
            self.progress.states = {t.task_id: str(t.state) for t in self.tasks()}
            return self.progress
        self.board.heartbeat(CONDUCTOR_TASK, self.session_id)
        stale = {t.task_id for t in self.board.stale_tasks()}
        for task in self.tasks():
            if task.state is State.NEEDS_REVIEW:
                await self._review(task)
            elif task.state is State.ERROR and self.toolbox is not None:
                await self._error_with_tools(task)
            elif task.state is State.ERROR:
                self._after_error(task)
            elif task.task_id in stale and task.state in (State.WORKING, State.REVIEW_APPROVED, State.REVIEW_FAILED):
                self.board.propose_fix(task.task_id, f"crash recovery: {task.worked_by} went silent (last "
                                       f"heartbeat {task.last_heartbeat}); the next musician takes over, "
                                       "reads the status file and re-runs verification",
                                       conductor_session=self.session_id)
                self.progress.recovered.append(task.task_id)
        self.progress.states = {t.task_id: str(t.state) for t in self.tasks()}
        return self.progress

    async def _review(self, task: Any) -> None:
        found = self.board.last_message(task.task_id, "result")
        report = self.board.messages_since(0, task_id=task.task_id)[-1].message
        problems = ["no result was posted"] if found is None else verify(WorkResult.from_json(found.message))
        if self.toolbox is not None:
            await self._review_with_tools(task, report, found, problems)
            return
        answer = await self.session.send({"review": task.task_id, "report": report, "problems": problems,
                                          "result": found.message if found else None})
        verdict, note = _verdict_of(answer.text)
        if problems or verdict == "reject":
            feedback = "; ".join(problems) or note or "the conductor rejected the result"
            rejections = sum(m.message_type == "rejection" for m in self.board.messages_since(0, task_id=task.task_id))
            if rejections >= MAX_RETRIES:
                self.board.request_exit(task.task_id, f"rejected {rejections} times ({feedback}): hand off",
                                        conductor_session=self.session_id)
                return
            self.board.reject(task.task_id, feedback, conductor_session=self.session_id)
            self.progress.rejected += 1
        else:
            self.board.approve(task.task_id, note or "approved", conductor_session=self.session_id)
            self.progress.approved += 1

    async def _review_with_tools(self, task: Any, report: str, found: Any, problems: list[str]) -> None:
        """The session reviews: its approve / reject calls are the board writes (checked by the toolbox). A
        session that answers without a verdict is asked once more; then the task waits for the next pass."""
        from bandstand.board import State

        message = (f"Review {task.task_id} ({task.worked_by}): it is needs_review.\nReport:\n{report}\n"
                   f"Result:\n{found.message if found is not None else '(none posted)'}\n"
                   f"Your verification found: {'; '.join(problems) or 'nothing wrong'}\n"
                   "Approve it with a note, or reject it with the reason, with the tools.")
        await self._until_it_moves(task, message, State.NEEDS_REVIEW,
                                   f"{task.task_id} is still needs_review: approve it or reject it with the tools.")

    async def _error_with_tools(self, task: Any) -> None:
        """The session answers an error report: `propose_fix` while retries remain (the toolbox refuses a
        fix after `MAX_RETRIES` reports), else `request_exit`. Asked once more when it does neither."""
        from bandstand.board import State

        errors = sum(m.message_type == "error" for m in self.board.messages_since(0, task_id=task.task_id))
        message = (f"{task.task_id} ({task.worked_by}) reported an error (report {errors}; fixes allowed: "
                   f"{MAX_RETRIES}): {task.last_error}\nPropose a fix (propose_fix) or ask it to hand off "
                   "(request_exit), with the tools.")
        await self._until_it_moves(task, message, State.ERROR,
                                   f"{task.task_id} is still in error: propose_fix or request_exit, with the tools.")

    async def _until_it_moves(self, task: Any, message: str, waiting: Any, again: str) -> None:
        """Ask the session (its tool calls are the board writes) until the task leaves `waiting`, twice
        at most, and count where it went."""
        from bandstand.board import State
        from bandstand.producer.board.board_sessions import tool_turns

        counted = {State.REVIEW_APPROVED: "approved", State.REVIEW_FAILED: "rejected"}
        for _ in range(2):
            await tool_turns(self.session, message, self.toolbox)
            state = self.board.task(task.task_id).state
            if state is not waiting:
                if state in counted:
                    setattr(self.progress, counted[state], getattr(self.progress, counted[state]) + 1)
                return
            message = again

    def _after_error(self, task: Any) -> None:
        # the thread's error reports, not retry_count: a claim (a successor taking the fix) resets that
        errors = sum(m.message_type == "error" for m in self.board.messages_since(0, task_id=task.task_id))
        if errors <= MAX_RETRIES:
            self.board.propose_fix(task.task_id, f"retry {errors} of {MAX_RETRIES}: {task.last_error}; "
                                   "try again and resubmit", conductor_session=self.session_id)
        else:
            self.board.request_exit(task.task_id, f"{errors} failures ({task.last_error}): hand off",
                                    conductor_session=self.session_id)

    def finish(self) -> None:
        from bandstand.board import CONDUCTOR_TASK, State

        if not self.finished and self.board.task(CONDUCTOR_TASK).state is State.WORKING:
            self.board.move(CONDUCTOR_TASK, self.session_id, State.COMPLETE, message_type="completion",
                            message="every task is complete or exited: " + self.progress.line())
