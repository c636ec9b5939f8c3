"""Processes the producer tests start: each changes a session and may SIGKILL itself at a
named durable step (snapshot, entry, head, variation, files) — a crash at an exact point.

    python -m tests.producer.workers accept SESSION VARIATION_ID STEP
    python -m tests.producer.workers undo SESSION STEPS STEP
    python -m tests.producer.workers merge SESSION BRANCH STEP
    python -m tests.producer.workers checkout SESSION BRANCH|REV STEP
    python -m tests.producer.workers volumes SESSION COUNT TRACK_NAME
"""

from __future__ import annotations

import os
import signal
import sys

from bandstand.producer.sessions.projects import open_project
from bandstand.studio import Project


def _killer(at: str):  # type: ignore[no-untyped-def]
    def step(name: str) -> None:
        if name == at:
            os.kill(os.getpid(), signal.SIGKILL)
    return step


def main(argv: list[str]) -> None:
    command, session_dir, arg, extra = argv
    session = open_project(session_dir)
    if command == "accept":
        session.accept(arg, step=_killer(extra))
    elif command == "undo":
        session.undo(int(arg), step=_killer(extra))
    elif command in ("merge", "checkout"):
        from bandstand.producer.sessions import branches

        getattr(branches, command)(session, arg, step=_killer(extra))
    elif command == "volumes":
        for i in range(int(arg)):
            def change(head: Project, volume: float = round(0.01 * (i % 100), 2)) -> Project:
                track = next(t for t in head.tracks if t.name == extra)
                return head.with_track(track.model_copy(update={"volume": volume}))
            session.edit(change, author=f"worker {os.getpid()}", request=f"volume {i}")
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
