"""Real processes racing on a real store: every task claimed exactly once;
message ids strictly increasing under concurrent writers, none lost."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.board import Board, State

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tests.board.workers", *args], cwd=ROOT)


def test_eight_processes_claim_500_tasks_exactly_once(board: Board, board_url: str, tmp_path: Path) -> None:
    ids = [f"task-{i:03d}" for i in range(1, 501)]
    for task_id in ids:
        board.create_task(task_id)
    procs = [spawn("claim-all", board_url, f"m-{n}", str(tmp_path / f"claimed-{n}")) for n in range(8)]
    while len(list(tmp_path.glob("*.ready"))) < 8:  # every claimer connected and waiting
        time.sleep(0.01)
    for n in range(8):
        (tmp_path / f"claimed-{n}.go").touch()
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    claimed = [line for n in range(8) for line in (tmp_path / f"claimed-{n}").read_text().split("\n") if line]
    assert sorted(claimed) == ids  # all claimed, none twice
    for n in range(8):
        for task_id in filter(None, (tmp_path / f"claimed-{n}").read_text().split("\n")):
            task = board.task(task_id)
            assert task.state is State.WORKING and task.session_id == f"m-{n}"
    assert sum(1 for n in range(8) if (tmp_path / f"claimed-{n}").read_text()) >= 2  # they really raced


def test_eight_processes_race_for_one_task(board: Board, board_url: str) -> None:
    board.create_task("task-01")
    procs = [spawn("claim-one", board_url, f"m-{n}", "task-01") for n in range(8)]
    codes = [p.wait(timeout=60) for p in procs]
    assert sorted(codes) == [0] + [1] * 7
    winner = f"m-{codes.index(0)}"
    assert board.task("task-01").session_id == winner
    fallbacks = [t for t in board.tasks() if t.task_id.startswith("fallback-")]
    assert len(fallbacks) == 7 and all(t.state is State.EXITED for t in fallbacks)
    assert len([m for m in board.messages_since(0) if m.message_type == "claim_blocked"]) == 7


def test_message_ids_increase_and_none_is_lost(board: Board, board_url: str) -> None:
    board.create_task("task-01")
    writers = [spawn("post", board_url, f"w-{n}", "150") for n in range(4)]
    seen: list[int] = []
    last = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        batch = board.messages_since(last)
        for m in batch:
            assert m.id > last  # strictly increasing as read
            last = m.id
            seen.append(m.id)
        if all(w.poll() is not None for w in writers) and not board.messages_since(last):
            break
        time.sleep(0.005)
    assert [w.wait() for w in writers] == [0] * 4
    everything = [m.id for m in board.messages_since(0, limit=10_000)]
    assert len(everything) == 600 and seen == everything  # the poller saw every message, in order
    per_writer: dict[str, list[int]] = {}
    for m in board.messages_since(0, limit=10_000):
        per_writer.setdefault(m.from_session or "", []).append(int(m.message.split()[1]))
    assert all(v == list(range(150)) for v in per_writer.values())
