"""A musician whose agent session cannot start (the fake `claude` crashes at start) files an error
report on its task and exits with one line; the conductor proposes a fix and the other musician
takes the task over and completes it."""

from __future__ import annotations

import json
from pathlib import Path

from bandstand.board import Board
from tests.peers.claude import fake_claude_bin

from .launching import message_types, run_launch

MUSICIAN_REPLY = "Wrote the part as asked."
CONDUCTOR_REPLY = {"verdict": "approve", "note": "heard and approved"}


def test_a_session_that_cannot_start_is_an_error_report_and_another_musician_takes_the_task(
        tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    musician_line = skill("musician").splitlines()[0]
    crashed = tmp_path / "crashed"
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("write a walking bass for a jazz blues in F\nwrite a drum groove for a bossa nova\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    _, outcome = run_launch(
        url, tmp_path, "--musicians", "2", "--backend", "claude-code", "--tasks", str(tasks),
        BANDSTAND_CLAUDE_BIN=str(fake_claude_bin(tmp_path / "bin")),
        FAKE_CLAUDE_CRASH_ONCE=str(crashed), FAKE_CLAUDE_CRASH_PERSONA=musician_line,
        FAKE_CLAUDE_PERSONAS=json.dumps({musician_line: MUSICIAN_REPLY,
                                         skill("conductor").splitlines()[0]: json.dumps(CONDUCTOR_REPLY)}))
    assert crashed.exists()  # one musician session did crash at start
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {"task-01": "complete", "task-02": "complete"}
    # the crashed musician exited 1 with one line; the other finished the board
    assert sorted(outcome["musicians"].values()) == [0, 1], outcome["musicians"]
    failed = next(sid for sid, code in outcome["musicians"].items() if code == 1)
    log = (tmp_path / "temp" / f"{failed}.log").read_text().strip().splitlines()
    assert "Traceback" not in "\n".join(log)
    assert log[-1].startswith(f"bandstand: error: {failed}: the claude-code session could not start (")
    assert "filed an error report on task-0" in log[-1]
    with Board.open(url, workdir=tmp_path) as board:
        hit = [t for t in ("task-01", "task-02") if "error" in message_types(board, t)]
        assert len(hit) == 1
        task_id = hit[0]
        thread = board.messages_since(0, task_id=task_id)
        kinds = [m.message_type for m in thread]
        error = next(m for m in thread if m.message_type == "error")
        task = board.task(task_id)
    # the failed attempt: the error report, then the conductor's fix, then a successor's claim and work
    assert kinds.index("error") < kinds.index("fix_proposal") < kinds.index("review_request")
    assert error.from_session == failed and "the agent session could not start" in error.message
    assert task.worked_by == f"musician-{task_id}-S2" and task.session_id != failed
    assert (tmp_path / "output" / "board" / task_id / "answer.md").read_text() == MUSICIAN_REPLY + "\n"
    status = (tmp_path / "temp" / f"{task_id}-status").read_text()
    assert "step 1 failed: the agent session could not start" in status
