"""`App.board(where)`, the `BoardDesk`: the task board as the clients use it, on a real SQLite file —
opened from a URL or a path one way, a musician's reports built from their fields, the task files, the
watchers, the checks and the log view's read-only board."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bandstand.board import State
from bandstand.board.stores import DEFAULT_URL
from bandstand.errors import BoardUsageError, InvalidInput, NotFound
from bandstand.producer import App
from bandstand.producer.app import BoardReview, BoardWork, ContextEstimate

if TYPE_CHECKING:
    from bandstand.producer.app import BoardDesk


@pytest.fixture
def desk(tmp_path: Path) -> BoardDesk:
    """A board with the conductor's row and task-01 claimed by musician-1, its files under `tmp_path`."""
    desk = App.board(f"sqlite:///{tmp_path / 'board.db'}", workdir=tmp_path)
    with desk.open() as board:
        board.init("conductor")
        board.create_task("task-01", phase="build")
        board.instruct("task-01", "write the bass", conductor_session="conductor")
        assert board.claim("task-01", "musician-1").claimed
    return desk


def test_where_is_a_url_a_sqlite_files_path_or_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert App.board().url == App.board("").url == DEFAULT_URL
    assert App.board("postgresql://me@db:5432/orchestra").url == "postgresql://me@db:5432/orchestra"
    assert App.board("boards/b.db").url == f"sqlite:///{(tmp_path / 'boards' / 'b.db').resolve()}"
    desk = App.board(tmp_path / "b.db", workdir=str(tmp_path), stale_after=60, busy_timeout=2)
    assert (desk.workdir, desk.stale_after, desk.busy_timeout) == (tmp_path, 60, 2)
    with desk.open() as board:  # opened and migrated where the path says
        assert board.store.url == desk.url and board.stale_after == timedelta(seconds=60)
        assert board.tasks() == []
    with pytest.raises(BoardUsageError, match="unknown board URL"):
        App.board("mysql://x").open()


def test_a_review_is_built_from_its_fields_and_a_bad_checkpoint_is_refused_first(desk: BoardDesk) -> None:
    with pytest.raises(BoardUsageError, match="--checkpoint takes n/m"):
        BoardReview(7, "half", 30.0, "halfway")  # before any board is opened

    review = BoardReview(8, "1/2", 35.0, "tests pass", deviations=1, severity="Low", files=("a.py", "b.py"),
                         outputs=("midi/bass.mid:modified", "notes.md"), tests="3 passed")
    task = desk.review("task-01", "musician-1", review)
    assert task.state is State.NEEDS_REVIEW
    with desk.open() as board:
        sent = board.last_message("task-01", "review_request")
    assert sent is not None
    assert "midi/bass.mid (modified)" in sent.message and "notes.md (created)" in sent.message
    assert "Files modified: a.py, b.py" in sent.message and "checkpoint 1 of 2" in sent.message


def test_the_task_files_the_context_budget_and_a_handoff(desk: BoardDesk, tmp_path: Path) -> None:
    desk.status("task-01", "step 1 started", ctx=30)
    desk.deviation("task-01", "Medium", "used a helper instead of the spec's class", ctx=32)
    warning = desk.context_warning("task-01", ContextEstimate())  # the usage from the status file
    assert warning.context_usage == 32 and warning.deviations.count == 1
    checked = desk.context_check("task-01", "musician-1", ContextEstimate(cost=5))
    assert (checked.decision, checked.code, checked.posted) == ("proceed", 0, False)
    assert checked.said and checked.task.state is State.WORKING
    assert "context check" in (tmp_path / "temp" / "task-01-status").read_text()

    task = desk.handoff("task-01", "musician-1", reason="context", last_step="step 1", context=60,
                        remaining=["step 2"])
    assert task.state is State.EXITED
    handoff = (tmp_path / "temp" / "task-01-HANDOFF").read_text()
    assert "Re-run verification, then continue with: step 2" in handoff
    assert desk.assess_resumption("task-01").clean_exit
    path = desk.write_proposal("PATTERN", "bass-helper", title="A bass helper", rationale="used twice")
    assert path.parent == tmp_path / "docs" / "implementation" / "proposals" and "A bass helper" in path.read_text()


def test_rows_stale_tasks_and_an_error_report(desk: BoardDesk) -> None:
    rows, unknown = desk.task_rows()
    assert [r["task_id"] for r in rows] == ["task-00", "task-01"] and unknown == []
    with desk.open() as board:
        board.backdate_heartbeat("task-01", board.clock() - timedelta(hours=1))
    [(task, recovery)] = [(t, how) for t, how in desk.stale() if t.task_id == "task-01"]
    assert task.state is State.WORKING and recovery
    task = desk.report_error("task-01", "musician-1", error="the tests fail", retry=1, context=40)
    assert task.state is State.ERROR and task.last_error


def test_the_watchers_return_what_they_waited_for(desk: BoardDesk) -> None:
    with desk.open() as board:
        since = board.messages_since(0)[-1].id
    event = asyncio.run(desk.wait_for_verdict("task-01", "musician-1", poll=0.05))
    assert (event.kind, event.state) == ("state_changed", State.WORKING)  # not paused: it returns at once
    desk.review("task-01", "musician-1", BoardReview(8, "1/2", 35.0, "done"))
    with desk.open() as board:
        board.approve("task-01", "good", conductor_session="conductor")
    [message] = asyncio.run(desk.wait_for_messages("task-01", "musician-1", since=since, poll=0.05))
    assert message.message_type == "approval" and message.message == "good"


def test_checks_and_hooks(desk: BoardDesk) -> None:
    state = desk.check("state", "task-01", session_id="musician-1")  # the board opened for this check alone
    assert state.code == 1 and state.data["pending_messages"] == 1, state.render()  # the instruction
    assert desk.check("temp", "task-01").code in (0, 1)
    with pytest.raises(InvalidInput, match="no check"):
        desk.check("spelling", "task-01")
    answer = desk.stop_hook({"session_id": "musician-1"})
    assert json.dumps(answer)  # the hook's decision, as JSON


def test_the_log_views_board_is_read_only(tmp_path: Path, desk: BoardDesk) -> None:
    missing = App.board(tmp_path / "none.db")
    with pytest.raises(NotFound, match="there is no board"):
        missing.reader()
    assert not (tmp_path / "none.db").exists()
    snapshot = desk.snapshot()
    assert snapshot is not None and {t["task_id"] for t in snapshot["tasks"]} == {"task-00", "task-01"}
    watcher = desk.watch()
    try:
        assert watcher.poll() is not None and watcher.poll() is None  # nothing changed since
    finally:
        watcher.board.close()


def test_a_musicians_work_and_tools_are_checked_before_the_board_is_used(desk: BoardDesk, tmp_path: Path) -> None:
    assert desk.out_dir(None) == tmp_path / "output" / "board"
    assert desk.out_dir("songs") == Path("songs")
    with pytest.raises(InvalidInput, match="unknown backend"):
        desk.musician("musician-2", BoardWork(backend="nobody"))
    with pytest.raises(InvalidInput, match="the board roles"), desk.tools("musician-2", "drummer"):
        pass
    with desk.tools("musician-1", "musician") as toolbox:
        assert "claim_task" in {spec["name"] for spec in toolbox.specs()}
