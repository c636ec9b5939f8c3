"""`bandstand board` for recovery, alerts and checks, through real `bandstand` processes on
SQLite and PostgreSQL: `stale` in every held state, `emergency` waking a musician's
background watcher, a blocked claim on the task's own thread, `check-state` on damaged rows
and `check-headroom` on the protocol's own status lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bandstand.board import Board

from ..board.conftest import PG_URL, _pg_missing, drop_pg_database, force_state, fresh_pg_database


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'board.db'}"
        return
    if not PG_URL:
        _pg_missing()
    made = fresh_pg_database()
    try:
        yield made
    finally:
        drop_pg_database(made)


def bandstand(url: str, workdir: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BANDSTAND_BOARD": url}
    env.pop("CLAUDE_SESSION_ID", None)
    return subprocess.run([sys.executable, "-m", "bandstand", "board", "--workdir", str(workdir), *args],
                          env=env, capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload]


@pytest.fixture
def board(url: str, tmp_path: Path) -> Iterator[Board]:
    b = Board.open(url, workdir=tmp_path)
    b.init("cond")
    yield b
    b.close()


def test_stale_reports_every_held_state_with_its_recovery(board: Board, url: str, tmp_path: Path) -> None:
    for n, state in enumerate(["needs_review", "error", "review_approved", "review_failed", "watching"], start=1):
        board.create_task(f"task-0{n}")
        board.claim(f"task-0{n}", f"m-{n}")
        force_state(board, f"task-0{n}", state, f"m-{n}")
        board.backdate_heartbeat(f"task-0{n}", datetime.now(UTC) - timedelta(minutes=12))
    run = bandstand(url, tmp_path, "--json", "stale")
    assert run.returncode == 0, run.stderr
    found = {t["task_id"]: (t["state"], t["recovery"]) for t in json.loads(run.stdout)}
    assert set(found) == {"task-01", "task-02", "task-03", "task-04"}
    assert "propose-fix" in found["task-03"][1]
    run = bandstand(url, tmp_path, "propose-fix", "task-03", "-s", "cond", "--fix", "the session went silent")
    assert run.returncode == 0 and "fix_proposed" in run.stdout, run.stderr


def test_emergency_wakes_the_background_watcher(board: Board, url: str, tmp_path: Path) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    env = {**os.environ, "BANDSTAND_BOARD": url}
    watcher = subprocess.Popen(
        [sys.executable, "-m", "bandstand", "board", "wait", "task-01", "--kind", "background", "--poll", "0.05",
         "-s", "m-1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run = bandstand(url, tmp_path, "emergency", "task-01", "-s", "cond", "-m", "stop: the schema changed")
        assert run.returncode == 0 and "task-01: emergency #" in run.stdout, run.stderr
        out, err = watcher.communicate(timeout=60)
    finally:
        watcher.kill()
    assert watcher.returncode == 0, err
    assert "emergency: stop: the schema changed" in out
    # only the conductor sends one; --all reaches every held task and skips the rest
    assert bandstand(url, tmp_path, "emergency", "task-01", "-s", "m-1", "-m", "x").returncode == 1
    board.create_task("task-02")
    run = bandstand(url, tmp_path, "--json", "emergency", "--all", "-s", "cond", "-m", "everyone stop")
    assert run.returncode == 0 and list(json.loads(run.stdout)) == ["task-01"], run.stderr
    run = bandstand(url, tmp_path, "emergency", "-s", "cond", "-m", "who?")
    assert run.returncode == 2 and "--all" in run.stderr and "Traceback" not in run.stderr


def test_a_blocked_claim_is_told_on_the_task(board: Board, url: str, tmp_path: Path) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    assert bandstand(url, tmp_path, "claim", "task-01", "-s", "m-2").returncode == 1
    run = bandstand(url, tmp_path, "--json", "messages", "--task", "task-01")
    blocked = [m for m in json.loads(run.stdout) if m["message_type"] == "claim_blocked"]
    assert len(blocked) == 1 and blocked[0]["from_session"] == "m-2"
    assert json.loads(bandstand(url, tmp_path, "--json", "messages", "--task", "task-00").stdout) == []


def test_check_state_fails_on_a_damaged_row(board: Board, url: str, tmp_path: Path) -> None:
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    assert bandstand(url, tmp_path, "check-state", "task-01", "m-1").returncode == 0
    board.store.execute_script("UPDATE orchestration_tasks SET state = 'bogus' WHERE task_id = 'task-01'")
    run = bandstand(url, tmp_path, "check-state", "task-01", "m-1")
    assert run.returncode == 1 and "'bogus' is not a protocol state" in run.stdout, run.stderr
    run = bandstand(url, tmp_path, "list")
    assert run.returncode == 1 and "not a protocol state" in run.stdout and "Traceback" not in run.stderr
    run = bandstand(url, tmp_path, "show", "task-01")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "not a protocol state" in run.stderr
    # a state the protocol knows, without what that state implies, is not valid either
    board.store.execute_script("UPDATE orchestration_tasks SET state = 'needs_review', session_id = NULL "
                               "WHERE task_id = 'task-01'")
    run = bandstand(url, tmp_path, "check-state", "task-01")
    assert run.returncode == 1 and "no session_id" in run.stdout


def test_check_headroom_reads_the_protocols_lines(url: str, tmp_path: Path) -> None:
    run = bandstand(url, tmp_path, "check-headroom", "task-01")
    assert run.returncode == 1 and "no status file" in run.stdout  # it used to say healthy
    status = tmp_path / "temp" / "task-01-status"
    status.parent.mkdir()
    status.write_text("step 1 started [ctx: 10%]\nagent 1 launched [ctx: 14%]\nagent 2 launched [ctx: 18%]\n"
                      "agent 1 returned [ctx: 25%]\nstep 1 completed [ctx: 30%]\n")
    run = bandstand(url, tmp_path, "--json", "check-headroom", "task-01")
    data = json.loads(run.stdout)["data"]
    assert run.returncode == 0 and (data["agents_launched"], data["agents_returned"], data["agents_out"]) == (2, 1, 1)
    with status.open("a") as fh:
        fh.write("Self-correction: the fixture was wrong [ctx: 33%]\n")
    assert bandstand(url, tmp_path, "check-headroom", "task-01").returncode == 1
