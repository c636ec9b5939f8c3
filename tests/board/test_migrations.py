"""The numbered migrations produce exactly the schema file, on both stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.board.stores import (
    PostgresStore,
    SqliteStore,
    migrations,
    named_queries,
    open_store,
    schema_sql,
)
from bandstand.errors import BoardUsageError

from .conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database


def _sqlite_shape(store: SqliteStore) -> dict[str, object]:
    shape: dict[str, object] = {}
    with store.transaction() as _:
        conn = store._conn
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'orchestration_%'"):
            shape[name] = [tuple(r) for r in conn.execute(f"PRAGMA table_info({name})")]
            shape[name + ".indexes"] = sorted(
                (r[1], tuple(c[2] for c in conn.execute(f"PRAGMA index_info({r[1]})")))
                for r in conn.execute(f"PRAGMA index_list({name})")
            )
    return shape


def test_sqlite_migrations_match_schema(tmp_path: Path) -> None:
    migrated = SqliteStore(tmp_path / "a.db")
    assert migrated.migrate() == [v for v, _, _ in migrations("sqlite")]
    assert migrated.migrate() == []  # idempotent
    from_schema = SqliteStore(tmp_path / "b.db")
    from_schema.execute_script(schema_sql("sqlite"))
    assert _sqlite_shape(migrated) == _sqlite_shape(from_schema)
    assert _sqlite_shape(migrated)  # not vacuous


def _pg_shape(store: PostgresStore) -> dict[str, object]:
    with store._conn.cursor() as cur:
        cur.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity "
            "FROM information_schema.columns WHERE table_name LIKE 'orchestration_%' ORDER BY 1, ordinal_position"
        )
        columns = [tuple(r.values()) for r in cur.fetchall()]
        cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename LIKE 'orchestration_%' ORDER BY 1")
        indexes = [tuple(r.values()) for r in cur.fetchall()]
    store._conn.rollback()
    return {"columns": columns, "indexes": indexes}


def test_postgres_migrations_match_schema() -> None:
    if not PG_URL:
        _pg_missing()
    a, b = fresh_pg_database(), fresh_pg_database()
    try:
        migrated, from_schema = PostgresStore(a), PostgresStore(b)
        assert migrated.migrate() == [1, 2]
        assert migrated.migrate() == []
        from_schema.execute_script(schema_sql("postgres"))
        assert _pg_shape(migrated) == _pg_shape(from_schema)
        assert _pg_shape(migrated)["columns"]
        migrated.close()
        from_schema.close()
    finally:
        drop_pg_database(a)
        drop_pg_database(b)


def test_both_dialects_have_the_same_named_queries() -> None:
    assert set(named_queries("sqlite")) == set(named_queries("postgres"))
    assert "FOR UPDATE SKIP LOCKED" in named_queries("postgres")["next_claimable"]


def test_bad_board_urls_are_clear() -> None:
    with pytest.raises(BoardUsageError, match="sqlite:///"):
        open_store("mysql://x")
    with pytest.raises(BoardUsageError, match="cannot connect"):
        open_store("postgresql://nobody@127.0.0.1:1/none")
