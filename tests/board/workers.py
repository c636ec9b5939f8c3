"""Worker processes for the concurrency and fault tests (run with `python -m`).

    python -m tests.board.workers claim-all URL SESSION OUT      claim until none is left; write claimed ids to OUT
                                                                 (starts when OUT.go exists, after writing OUT.ready)
    python -m tests.board.workers claim-one URL SESSION TASK     try one claim; exit 0 won, 1 blocked
    python -m tests.board.workers post URL SESSION N             post N messages
    python -m tests.board.workers work URL SESSION TASK WORKDIR  claim, log a step, heartbeat forever (to be killed)
    python -m tests.board.workers hold URL SESSION TASK          inside a write transaction (a message, the task's
                                                                 heartbeat), print "inside" and wait (to be stopped)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bandstand.board import Board
from bandstand.board.taskfiles import TaskFiles


def main(argv: list[str]) -> int:
    cmd, url, session, *rest = argv
    board = Board.open(url, migrate=False, workdir=rest[-1] if cmd == "work" else ".")
    if cmd == "claim-all":
        out = Path(rest[0])
        out.with_suffix(".ready").touch()
        while not out.with_suffix(".go").exists():
            time.sleep(0.001)
        claimed = []
        while (result := board.claim_next(session)) is not None:
            claimed.append(result.task_id)
        out.write_text("\n".join(claimed))
        return 0
    if cmd == "claim-one":
        return 0 if board.claim(rest[0], session).claimed else 1
    if cmd == "post":
        for i in range(int(rest[0])):
            board.post("task-01", "status", f"{session} {i}", from_session=session)
        return 0
    if cmd == "work":
        task_id = rest[0]
        assert board.claim(task_id, session).claimed
        files = TaskFiles(rest[1], task_id)
        files.step_started(1, ctx=12)
        print("working", flush=True)
        while True:
            board.heartbeat(task_id, session)
            time.sleep(0.05)
    if cmd == "hold":
        with board.store.transaction(write=True) as tx:
            tx.one("lock_messages")
            tx.run("backdate_heartbeat", task_id=rest[0], heartbeat="2026-01-01T00:00:00.000000Z")
            print("inside", flush=True)
            time.sleep(3600)
    raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
