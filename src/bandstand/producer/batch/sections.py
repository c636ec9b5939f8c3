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

A section task's id follows from its key (song task, role, section, contract
fingerprint) and its job is posted before the task exists: a song taken over
finds its sections' tasks again (the contracts are the same, so are the
requests), two workers that hold the same song at once — one of them wrongly
presumed dead — share one task per section, and nothing is written twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
from typing import Any

from bandstand.board import Board
from bandstand.errors import BoardUsageError
from bandstand.producer.teams.remote import SectionReply, SectionRequest
from bandstand.producer.teams.safety import Deadline

__all__ = ["JOB", "BoardSections", "job_of", "new_task", "section_phase", "section_task"]

JOB = "job"
_NUMBER = re.compile(r"^task-(\d{2,8})$")


def section_phase(batch_phase: str) -> str:
    return f"{batch_phase}/sections"


def section_task(key: str) -> str:
    """The id of the section task with this key: 16 digits from its SHA-256."""
    return f"task-{int(hashlib.sha256(key.encode('utf-8')).hexdigest()[:13], 16):016d}"


def new_task(board: Board, phase: str) -> str:
    """A new task with the next free number (another creator taking a number first is fine);
    section tasks' ids (16 digits) are not in the count."""
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

    def _key(self, request: SectionRequest) -> str:
        contract = request.contract
        return f"{self.song_task}:{contract.role}:{contract.section.index}:{contract.fingerprint[:16]}"

    def post(self, request: SectionRequest) -> str:
        """The task that writes this section: the one on the board already, or a new one. Its id
        follows from its key and its job is posted before it exists, so a claimer always finds
        the job, and two workers holding the same song (one of them presumed dead) share one
        task."""
        key = self._key(request)
        task_id = section_task(key)
        if self.board.find_task(task_id) is None:
            if self.board.last_message(task_id, JOB) is None:
                self.board.post(task_id, JOB, json.dumps({"key": key, "song_task": self.song_task,
                                                          "request": request.to_json()}), from_session=self.session)
            with contextlib.suppress(BoardUsageError):  # the other worker of this song made it first
                self.board.create_task(task_id, phase=self.phase)
        return task_id

    async def write(self, request: SectionRequest, deadline: Deadline) -> SectionReply:
        task_id = await asyncio.to_thread(self.post, request)
        while True:
            found = await asyncio.to_thread(self.board.last_message, task_id, "result")
            if found is not None:
                reply = SectionReply.from_json(found.message)
                return SectionReply(reply.part, reply.musician, reply.warnings, reply.error,
                                    f"{reply.where or 'a worker'} ({task_id})", reply.contract)
            if deadline.passed:
                raise TimeoutError(f"{task_id} did not report in time")
            await asyncio.sleep(min(self.poll, max(0.01, deadline.remaining())))


def job_of(board: Board, task_id: str) -> dict[str, Any] | None:
    """A section task's job (key, song task, request text), None for other tasks."""
    found = board.last_message(task_id, JOB)
    return None if found is None else dict(json.loads(found.message))
