"""A musician whose agent session cannot start (the fake `claude` crashes at start) has claimed
nothing — with the board tools the session claims, so no task is touched — and exits with one line;
the other musician completes the board. A model that never calls `claim_task` while tasks wait
stops its musician after a few sessions, with one line, instead of spinning."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bandstand.board import Board
from tests.peers.claude import fake_claude_bin

from .launching import env, launch_cmd, message_types, run_launch


def test_a_session_that_cannot_start_claims_nothing_and_another_musician_does_the_work(tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    crashed = tmp_path / "crashed"
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("write a walking bass for a jazz blues in F\nwrite a drum groove for a bossa nova\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    _, outcome = run_launch(
        url, tmp_path, "--musicians", "2", "--backend", "claude-code", "--tasks", str(tasks),
        BANDSTAND_CLAUDE_BIN=str(fake_claude_bin(tmp_path / "bin")), FAKE_CLAUDE_POLICY="board_policy",
        FAKE_CLAUDE_CRASH_ONCE=str(crashed), FAKE_CLAUDE_CRASH_PERSONA=skill("musician").splitlines()[0])
    assert crashed.exists()  # one musician session did crash at start
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {"task-01": "complete", "task-02": "complete"}
    # the crashed musician exited 1 with one line; the other finished the board
    assert sorted(outcome["musicians"].values()) == [0, 1], outcome["musicians"]
    failed = next(sid for sid, code in outcome["musicians"].items() if code == 1)
    log = (tmp_path / "temp" / f"{failed}.log").read_text().strip().splitlines()
    assert "Traceback" not in "\n".join(log)
    assert log[-1].startswith(f"bandstand: error: {failed}: the claude-code session could not start (")
    assert log[-1].endswith("; it claimed no task")
    with Board.open(url, workdir=tmp_path) as board:
        for task_id in ("task-01", "task-02"):
            assert "error" not in message_types(board, task_id)
            assert board.task(task_id).worked_by == f"musician-{task_id}"
        assert failed not in {m.from_session for m in board.messages_since(0)}


def test_a_model_that_never_claims_stops_its_musician(tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    url = f"sqlite:///{tmp_path / 'board.db'}"
    personas = {skill("musician").splitlines()[0]: "I would rather not.",
                skill("conductor").splitlines()[0]: "conducting"}
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--backend", "claude-code", "--tasks", "1"),
                          env=env(BANDSTAND_CLAUDE_BIN=str(fake_claude_bin(tmp_path / "bin")),
                                  FAKE_CLAUDE_PERSONAS=json.dumps(personas)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("bandstand: error: every musician stopped before the board was done: ")
    assert "3 claude-code sessions in a row claimed no task although tasks were waiting; stopping" in line
    with Board.open(url, workdir=tmp_path) as board:
        assert str(board.task("task-01").state) == "watching" and message_types(board, "task-01") == ["instruction"]
