"""The board every batch test runs on: SQLite, and PostgreSQL when one is there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ...board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database


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
