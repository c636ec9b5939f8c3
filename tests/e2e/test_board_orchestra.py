"""The examples/board/orchestra.sh play, end to end through real processes and
the real CLI: a conductor and three musicians, one rejected review, one
SIGKILL crash with recovery as -S2, one context handoff resumed as -S2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.board import Board, State

from ..board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_orchestra(store: str, tmp_path: Path) -> None:
    if store == "postgres" and not PG_URL:
        _pg_missing()
    url = f"sqlite:///{tmp_path / 'board.db'}" if store == "sqlite" else fresh_pg_database()
    env = {**os.environ, "BANDSTAND_BOARD": url, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    try:
        run = subprocess.run(["bash", str(ROOT / "examples/board/orchestra.sh"), str(tmp_path / "work")],
                             env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        out = run.stdout
        assert "task-01 review rejected" in out and "SIGKILL" in out
        assert "forced exit: the HANDOFF is missing" in out and "clean exit (fresh HANDOFF)" in out
        with Board.open(url, workdir=tmp_path / "work") as board:
            tasks = {t.task_id: t for t in board.tasks()}
            assert all(tasks[t].state is State.COMPLETE for t in ("task-01", "task-02", "task-03"))
            assert tasks["task-01"].worked_by == "musician-task-01"
            assert tasks["task-02"].worked_by == "musician-task-02-S2"
            assert tasks["task-03"].worked_by == "musician-task-03-S2"
            assert tasks["task-00"].state is State.EXIT_REQUESTED
            kinds = [m.message_type for m in board.messages_since(0, limit=10_000)]
            for kind in ("review_request", "rejection", "approval", "fix_proposal", "context_warning", "completion"):
                assert kind in kinds
        assert (tmp_path / "work/temp/task-03-HANDOFF").exists()
        assert not (tmp_path / "work/temp/task-02-HANDOFF").exists()
    finally:
        if store == "postgres":
            drop_pg_database(url)
