"""The board as the log view sees it: tasks with their heartbeat's age and staleness,
the newest messages first and then each new one once; nothing changed → None."""

from __future__ import annotations

from datetime import timedelta

from bandstand.board import Board
from bandstand.board.view import BoardWatcher


def test_the_watcher_says_what_changed(board_url: str) -> None:
    with Board.open(board_url) as board:
        board.init("conductor")
        board.create_task("task-01")
        board.instruct("task-01", "write the bass", conductor_session="conductor")
        watcher = BoardWatcher(board, keep=1)
        first = watcher.poll()
        assert first is not None
        tasks = {t["task_id"]: t for t in first["tasks"]}
        assert tasks["task-01"]["state"] == "watching" and not tasks["task-01"]["stale"]
        assert tasks["task-00"]["heartbeat_age_s"] is not None and tasks["task-00"]["heartbeat_age_s"] < 60
        assert [m["message"] for m in first["messages"]] == ["write the bass"]  # the newest `keep`
        assert watcher.poll() is None  # nothing changed

        board.claim("task-01", "s1")
        board.post("task-01", "status", "halfway", from_session="s1")
        changed = watcher.poll()
        assert changed is not None and [m["message"] for m in changed["messages"]] == ["halfway"]
        assert {t["task_id"]: t["state"] for t in changed["tasks"]}["task-01"] == "working"

        board.backdate_heartbeat("task-01", board.clock() - timedelta(minutes=10))
        stale = watcher.poll()
        assert stale is not None and {t["task_id"]: t["stale"] for t in stale["tasks"]} == {
            "task-00": False, "task-01": True}


def test_a_row_in_an_unknown_state_is_shown_not_fatal(board_url: str) -> None:
    # a bogus state used to stop every poll with an internal ValueError
    with Board.open(board_url) as board:
        board.init("conductor")
        board.create_task("task-01")
        board.store.execute_script("UPDATE orchestration_tasks SET state = 'bogus' WHERE task_id = 'task-01'")
        snapshot = BoardWatcher(board).poll()
        assert snapshot is not None
        tasks = {t["task_id"]: t for t in snapshot["tasks"]}
        assert tasks["task-01"]["state"] == "bogus" and tasks["task-01"]["valid_state"] is False
        assert tasks["task-00"]["valid_state"] is True
