"""A batch on the board (SQLite and PostgreSQL): the conductor puts each song on the board once,
workers claim, compose and complete them, a silent worker's song is taken over, an approved but
unfinished one is finished without composing it again, a failing song is retried then given up."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bandstand.board import Board, State
from bandstand.errors import BoardUsageError, FencingError
from bandstand.producer.batch import Conductor, batch_id, read_prompts, work
from bandstand.producer.batch.board import MAX_TRIES, PHASE_PREFIX

JOBS = read_prompts("funk groove in E minor\nsynthwave night drive\njazz ballad", seed=5, defaults={"bars": 8})


def conductor(url: str, jobs: list = JOBS, stale: float = 60.0) -> Conductor:  # type: ignore[type-arg]
    board = Board.open(url, stale_after=timedelta(seconds=stale))
    c = Conductor(board, jobs, batch_id(jobs))
    c.enqueue()
    return c


def run_workers(url: str, out: Path, n: int = 2, patience: float = 900.0) -> list[threading.Thread]:
    threads = []
    for k in range(n):
        def go(k: int = k) -> None:
            with Board.open(url) as board:
                work(board, str(out), f"w{k}", heartbeat=0.1, poll=0.02, idle_exit=1.0, patience=patience)
        t = threading.Thread(target=go)
        t.start()
        threads.append(t)
    return threads


def test_workers_compose_every_song_once(url: str, tmp_path: Path) -> None:
    c = conductor(url)
    again = conductor(url)
    assert again.tasks == c.tasks  # the same batch again: the same tasks, none new
    again.board.close()
    threads = run_workers(url, tmp_path / "out")
    status = c.run(poll=0.02)
    for t in threads:
        t.join()
    assert sorted(status.results) == [0, 1, 2] and not status.given_up
    assert sorted(r.folder for r in status.results.values()) == sorted(p.name for p in (tmp_path / "out").iterdir())
    tasks = [t for t in c.board.tasks() if t.phase == PHASE_PREFIX + c.batch]
    assert {t.state for t in tasks} == {State.COMPLETE}
    kinds = [m.message_type for m in c.board.messages_since(0, limit=1000) if m.task_id in c.tasks]
    assert kinds.count("instruction") == kinds.count("result") == kinds.count("completion") == kinds.count(
        "approval") == 3
    c.board.close()


def test_a_silent_workers_song_is_taken_over(url: str, tmp_path: Path) -> None:
    c = conductor(url, JOBS[:1], stale=5)
    dead = c.board.claim_next("dead-worker", phase_prefix=PHASE_PREFIX)
    assert dead is not None and dead.claimed
    c.board.backdate_heartbeat(dead.task_id, datetime.now(UTC) - timedelta(seconds=30))
    c.step()
    assert c.board.task(dead.task_id).state is State.FIX_PROPOSED and c.status.takeovers == 1
    threads = run_workers(url, tmp_path / "out", 1)
    status = c.run(poll=0.02)
    threads[0].join()
    task = c.board.task(dead.task_id)
    assert task.state is State.COMPLETE and task.worked_by is not None and task.worked_by.endswith("-S2")
    assert status.results[0].status == "composed" and status.results[0].worker == "w0"
    with pytest.raises(FencingError, match=r"held by session w0|terminal"):
        c.board.heartbeat(dead.task_id, "dead-worker")
    c.board.close()


def test_an_approved_song_left_unfinished_is_finished_without_composing_it_again(url: str, tmp_path: Path) -> None:
    c = conductor(url, JOBS[:1], stale=5)
    with Board.open(url) as board:  # a worker that composes, reports, and dies before completing
        work(board, str(tmp_path / "out"), "mortal", heartbeat=0.1, poll=0.02, patience=0.0, max_tasks=1)
    task_id = next(iter(c.tasks))
    c.step()
    assert c.board.task(task_id).state is State.REVIEW_APPROVED
    c.board.backdate_heartbeat(task_id, datetime.now(UTC) - timedelta(seconds=30))
    c.step()
    assert c.board.task(task_id).state is State.EXIT_REQUESTED
    threads = run_workers(url, tmp_path / "out", 1)
    status = c.run(poll=0.02)
    threads[0].join()
    assert status.results[0].worker == "mortal"  # composed once, by the worker that died
    kinds = [m.message_type for m in c.board.messages_since(0, task_id=task_id)]
    assert kinds.count("completion") == 1 and kinds.count("result") == 1
    assert c.board.task(task_id).state is State.COMPLETE
    c.board.close()


def test_a_failing_song_is_retried_then_given_up(url: str, tmp_path: Path) -> None:
    bad = [JOBS[0].model_copy(update={"genre": "no-such-genre-anywhere"})]
    c = conductor(url, bad)
    threads = run_workers(url, tmp_path / "out", 1)
    status = c.run(poll=0.02)
    threads[0].join()
    assert list(status.given_up) == [0] and "genre" in status.given_up[0]
    errors = [m for m in c.board.messages_since(0, limit=1000) if m.message_type == "error"]
    assert len(errors) == MAX_TRIES
    assert not (tmp_path / "out" / bad[0].folder).exists()
    c.board.close()


def test_a_board_conducted_by_someone_else_is_refused(url: str) -> None:
    with Board.open(url) as board:
        board.init("somebody-else")
        with pytest.raises(BoardUsageError, match="conductor is somebody-else"):
            Conductor(board, JOBS, batch_id(JOBS)).enqueue()
