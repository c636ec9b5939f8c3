"""The two stores behind the board: SQLite (the embedded default) and
PostgreSQL (many workers on many machines). Both run the same protocol from
named queries per dialect (`sql/queries.<dialect>.sql`), one schema file and
numbered migrations (`sql/migrations/<dialect>/NNNN_*.sql`).

SQLite runs in WAL mode with a busy timeout and takes every write with
`BEGIN IMMEDIATE`, so guarded claims never race and never spin on "database
is locked". PostgreSQL uses ordinary transactions, `FOR UPDATE SKIP LOCKED`
for claiming the next task, and an advisory lock so message ids become
visible in order."""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from bandstand.errors import BoardUsageError

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)
DEFAULT_URL = "sqlite:///.bandstand/board.db"


@cache
def named_queries(dialect: str) -> dict[str, str]:
    """The named queries of a dialect, parsed from its SQL file."""
    text = resources.files("bandstand.board").joinpath(f"sql/queries.{dialect}.sql").read_text()
    parts = _NAME.split(text)
    queries: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        sql = "\n".join(line for line in body.strip().splitlines() if not line.startswith("--"))
        queries[name] = sql.strip().rstrip(";")
    return queries


def migrations(dialect: str) -> list[tuple[int, str, str]]:
    """(version, name, sql) of each numbered migration, in order."""
    folder = resources.files("bandstand.board").joinpath(f"sql/migrations/{dialect}")
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            number, _, name = entry.name.partition("_")
            found.append((int(number), name.removesuffix(".sql"), entry.read_text()))
    return sorted(found)


def schema_sql(dialect: str) -> str:
    """The schema file: what the migrations must produce."""
    return resources.files("bandstand.board").joinpath(f"sql/schema.{dialect}.sql").read_text()


def split_statements(sql: str) -> list[str]:
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


class Tx(Protocol):
    """One open transaction: run named queries in it."""

    def one(self, name: str, **params: Any) -> dict[str, Any] | None: ...
    def all(self, name: str, **params: Any) -> list[dict[str, Any]]: ...
    def run(self, name: str, **params: Any) -> int: ...


class Store(Protocol):
    """A board store: transactions over named queries, and migrations."""

    dialect: str
    url: str

    def transaction(self, *, write: bool = False) -> Any: ...
    def migrate(self) -> list[int]: ...
    def execute_script(self, sql: str) -> None: ...
    def close(self) -> None: ...


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection, queries: dict[str, str]) -> None:
        self._conn = conn
        self._q = queries

    def one(self, name: str, **params: Any) -> dict[str, Any] | None:
        row = self._conn.execute(self._q[name], params).fetchone()
        return dict(row) if row is not None else None

    def all(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return [dict(r) for r in self._conn.execute(self._q[name], params).fetchall()]

    def run(self, name: str, **params: Any) -> int:
        return self._conn.execute(self._q[name], params).rowcount


class SqliteStore:
    """The embedded store: one file, WAL, busy timeout, BEGIN IMMEDIATE for writes."""

    dialect = "sqlite"

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 30_000, writer_lock: bool = True) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}" + ("" if writer_lock else "?writer_lock=0")
        blocker = next((p for p in self.path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise BoardUsageError(
                f"cannot open the board at {self.path}: {blocker} is a file, not a folder; choose another --board path"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
        except (OSError, sqlite3.Error) as exc:
            raise BoardUsageError(f"cannot open the board at {self.path}: {exc}") from exc
        self._conn.row_factory = sqlite3.Row
        try:  # the first statements read the file: a file that is not SQLite fails here
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            # Memory-mapped reads: after another process commits, this connection
            # re-reads changed pages from the map instead of copying them in.
            self._conn.execute("PRAGMA mmap_size = 268435456")
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise BoardUsageError(
                f"{self.path} is not a board ({exc}); point --board at another file or move this one away"
            ) from exc
        self._lock = threading.RLock()
        self._queries = named_queries("sqlite")
        # Writers from several processes queue on an OS file lock before
        # BEGIN IMMEDIATE: the kernel wakes the next one the moment the lock is
        # free, where SQLite's own busy handler sleeps 1, 2, 5, 10 … ms and
        # collapses throughput under contention. Processes that do not take
        # the lock are still safe: BEGIN IMMEDIATE and the busy timeout remain.
        self._writer_lock = os.open(f"{self.path}.writer-lock", os.O_RDWR | os.O_CREAT, 0o644) if writer_lock else -1

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[_SqliteTx]:
        with self._lock:
            locked = write and self._writer_lock >= 0
            if locked:
                fcntl.flock(self._writer_lock, fcntl.LOCK_EX)
            try:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield _SqliteTx(self._conn, self._queries)
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            finally:
                if locked:
                    fcntl.flock(self._writer_lock, fcntl.LOCK_UN)

    def execute_script(self, sql: str) -> None:
        with self._lock:
            for statement in split_statements(sql):
                self._conn.execute(statement)

    def migrate(self) -> list[int]:
        """Apply the migrations this file lacks; return the versions applied."""
        applied: list[int] = []
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "CREATE TABLE IF NOT EXISTS board_migrations "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL)"
                )
                done = {r[0] for r in self._conn.execute("SELECT version FROM board_migrations")}
                for version, name, sql in migrations("sqlite"):
                    if version in done:
                        continue
                    for statement in split_statements(sql):
                        self._conn.execute(statement)
                    self._conn.execute(
                        "INSERT INTO board_migrations (version, name) VALUES (?, ?)", (version, name)
                    )
                    applied.append(version)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        return applied

    def close(self) -> None:
        self._conn.close()
        if self._writer_lock >= 0:
            os.close(self._writer_lock)


class _PgTx:
    def __init__(self, cur: Any, queries: dict[str, str]) -> None:
        self._cur = cur
        self._q = queries

    def one(self, name: str, **params: Any) -> dict[str, Any] | None:
        self._cur.execute(self._q[name], params)
        row = self._cur.fetchone()
        return dict(row) if row is not None else None

    def all(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self._cur.execute(self._q[name], params)
        return [dict(r) for r in self._cur.fetchall()]

    def run(self, name: str, **params: Any) -> int:
        self._cur.execute(self._q[name], params)
        return int(self._cur.rowcount)


def _pg_params(sql: str) -> str:
    """`:name` → psycopg's `%(name)s` (our queries use no `::` casts)."""
    return re.sub(r"(?<!:):(\w+)", r"%(\1)s", sql.replace("%", "%%"))


class PostgresStore:
    """The shared store: a PostgreSQL server, reached with psycopg 3."""

    dialect = "postgres"

    def __init__(self, url: str) -> None:
        import psycopg
        from psycopg.rows import dict_row

        self.url = url
        try:
            self._conn = psycopg.connect(url, row_factory=dict_row, autocommit=False)
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())  # psycopg's messages span lines; ours is one
            raise BoardUsageError(f"cannot connect to the board at {_redact(url)}: {reason}") from exc
        self._lock = threading.RLock()
        self._queries = {k: _pg_params(v) for k, v in named_queries("postgres").items()}

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[_PgTx]:
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            yield _PgTx(cur, self._queries)

    def execute_script(self, sql: str) -> None:
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            for statement in split_statements(sql):
                cur.execute(statement)

    def migrate(self) -> list[int]:
        applied: list[int] = []
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(7311983)")
            cur.execute(
                "CREATE TABLE IF NOT EXISTS board_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)"
            )
            cur.execute("SELECT version FROM board_migrations")
            done = {r["version"] for r in cur.fetchall()}
            for version, name, sql in migrations("postgres"):
                if version in done:
                    continue
                for statement in split_statements(sql):
                    cur.execute(statement)
                cur.execute("INSERT INTO board_migrations (version, name) VALUES (%s, %s)", (version, name))
                applied.append(version)
        return applied

    def close(self) -> None:
        self._conn.close()


def _redact(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


def open_store(url: str | None = None) -> SqliteStore | PostgresStore:
    """Open the store a URL names: `sqlite:///path/board.db[?writer_lock=0]` or `postgresql://…`."""
    url = url or DEFAULT_URL
    if url.startswith("sqlite:///"):
        path, _, query = url.removeprefix("sqlite:///").partition("?")
        return SqliteStore(path, writer_lock=query != "writer_lock=0")
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    raise BoardUsageError(
        f"unknown board URL {url!r}: use sqlite:///PATH (the default is {DEFAULT_URL}) "
        "or postgresql://USER@HOST:PORT/DB"
    )
