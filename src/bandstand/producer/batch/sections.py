"""A team song's sections as board tasks: musicians on other machines write them.

The worker that holds a team song runs its team as usual, but each section
agent sends its writing out (`BoardSections`, a `teams.SectionJobs`): a task
in the phase ``batch:<id>/sections`` with the `teams.SectionRequest` as a
``job`` message. Any worker claims it, rebuilds the song's setup, verifies
the contracts, writes the section with its own seat for that role (or the
built-in musician), posts the `SectionReply` as its ``result`` and reports
completion like any batch task; the conductor approves it, takes it over when
its worker goes silent, retries it when it fails. The section agent takes the
notes from the result and adds them to the song.

A song worker that is taken over finds its sections' tasks again by their key
(song task, role, section, contract fingerprint) — the contracts are the same,
so are the requests — and nothing is written twice.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from bandstand.board import Board
from bandstand.errors import BoardUsageError
from bandstand.producer.teams.remote import SectionReply, SectionRequest
from bandstand.producer.teams.safety import Deadline

__all__ = ["JOB", "BoardSections", "new_task", "section_phase"]

JOB = "job"
_NUMBER = re.compile(r"^task-(\d+)$")


def section_phase(batch_phase: str) -> str:
    return f"{batch_phase}/sections"


def new_task(board: Board, phase: str) -> str:
    """A new task with the next free number (another creator taking a number first is fine)."""
    numbers = [int(m.group(1)) for t in board.tasks() if (m := _NUMBER.match(t.task_id))]
    number = max(numbers, default=0)
    while True:
        number += 1
        task_id = f"task-{number:04d}"
        try:
            board.create_task(task_id, phase=phase)
            return task_id
        except BoardUsageError:
            continue


class BoardSections:
    """The song side of a team song's section tasks (see the module docstring)."""

    def __init__(self, board: Board, batch_phase: str, song_task: str, session: str, *, poll: float = 0.1) -> None:
        self.board = board
        self.phase = section_phase(batch_phase)
        self.song_task = song_task
        self.session = session
        self.poll = poll
        self._known: dict[str, str] | None = None

    def _key(self, request: SectionRequest) -> str:
        contract = request.contract
        return f"{self.song_task}:{contract.role}:{contract.section.index}:{contract.fingerprint[:16]}"

    def _existing(self) -> dict[str, str]:
        """Section tasks of this song already on the board (a taken-over song finds its own)."""
        if self._known is None:
            self._known = {}
            for task in self.board.tasks():
                if task.phase == self.phase:
                    found = self.board.last_message(task.task_id, JOB)
                    if found is not None:
                        self._known[str(json.loads(found.message)["key"])] = task.task_id
        return self._known

    def post(self, request: SectionRequest) -> str:
        """The task that writes this section: the one on the board already, or a new one."""
        key = self._key(request)
        known = self._existing()
        if key not in known:
            task_id = new_task(self.board, self.phase)
            self.board.post(task_id, JOB, json.dumps({"key": key, "song_task": self.song_task,
                                                      "request": request.to_json()}), from_session=self.session)
            known[key] = task_id
        return known[key]

    async def write(self, request: SectionRequest, deadline: Deadline) -> SectionReply:
        task_id = await asyncio.to_thread(self.post, request)
        while True:
            found = await asyncio.to_thread(self.board.last_message, task_id, "result")
            if found is not None:
                reply = SectionReply.from_json(found.message)
                return SectionReply(reply.part, reply.musician, reply.warnings, reply.error,
                                    f"{reply.where or 'a worker'} ({task_id})")
            if deadline.passed:
                raise TimeoutError(f"{task_id} did not report in time")
            await asyncio.sleep(min(self.poll, max(0.01, deadline.remaining())))


def job_of(board: Board, task_id: str) -> dict[str, Any] | None:
    """A section task's job (key, song task, request text), None for other tasks."""
    found = board.last_message(task_id, JOB)
    return None if found is None else dict(json.loads(found.message))
