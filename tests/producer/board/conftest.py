from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database


@pytest.fixture(params=["sqlite", "postgres"])
def board_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh board on a SQLite file, and on a real PostgreSQL server."""
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
