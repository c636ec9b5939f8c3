"""Board tests run against both stores: a SQLite file and a real PostgreSQL
server (BANDSTAND_TEST_POSTGRES, started by scripts/test). Each test gets a
fresh database."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bandstand.board import Board

PG_URL = os.environ.get("BANDSTAND_TEST_POSTGRES")


def _pg_missing() -> None:
    if os.environ.get("CI"):
        pytest.fail("BANDSTAND_TEST_POSTGRES is not set in CI: scripts/setup.d/postgres.sh should start a server")
    pytest.skip("no PostgreSQL server: set BANDSTAND_TEST_POSTGRES (scripts/test does)")


def fresh_pg_database() -> str:
    """Create an empty database on the test server and return its URL."""
    import psycopg

    assert PG_URL
    name = "board_" + uuid.uuid4().hex[:12]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return PG_URL.rsplit("/", 1)[0] + "/" + name


def drop_pg_database(url: str) -> None:
    import psycopg

    assert PG_URL
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def board_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'board.db'}"
        return
    if not PG_URL:
        _pg_missing()
    url = fresh_pg_database()
    try:
        yield url
    finally:
        drop_pg_database(url)


@pytest.fixture
def board(board_url: str, tmp_path: Path) -> Iterator[Board]:
    b = Board.open(board_url, workdir=tmp_path)
    b.init("conductor-1")
    try:
        yield b
    finally:
        b.close()


def force_state(board: Board, task_id: str, state: str, session_id: str | None = "m-1") -> None:
    """Put a task straight into a state (test setup only), held by `session_id`."""
    quote = "'" + state + "'"
    sess = "NULL" if session_id is None else "'" + session_id + "'"
    board.store.execute_script(
        f"UPDATE orchestration_tasks SET state = {quote}, session_id = {sess}, worked_by = 'musician-{task_id}' "
        f"WHERE task_id = '{task_id}'"
    )
