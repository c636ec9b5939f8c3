"""The two stores behind the board: SQLite (the embedded default) and
PostgreSQL (many workers on many machines). Both run the same protocol from
named queries per dialect (`sql/queries.<dialect>.sql`), one schema file and
numbered migrations (`sql/migrations/<dialect>/NNNN_*.sql`).

SQLite runs in WAL mode with a busy timeout and takes every write with
`BEGIN IMMEDIATE`, so guarded claims never race and never spin on "database
is locked". PostgreSQL uses ordinary transactions, `FOR UPDATE SKIP LOCKED`
for claiming the next task, and an advisory lock so message ids become
visible in order.

Every wait for another writer is bounded (`busy_timeout`, 30 s by default):
a writer suspended inside a transaction (Ctrl-Z, a debugger) ends the wait
with `BoardBusy` naming the process that holds the board; a file SQLite
cannot read is `BoardDamaged`. Both are one line at the command line."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bandstand.board.busy import WriterLock, busy_error, stopped_hint
from bandstand.errors import BandstandError, BoardBusy, BoardDamaged, BoardUsageError

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)
DEFAULT_URL = "sqlite:///.bandstand/board.db"
#: How long a writer waits for another one before giving up with BoardBusy, seconds.
BUSY_TIMEOUT = 30.0


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


#: SQLite result codes (`sqlite_errorname`, without extended suffixes) → what they mean here.
_SQLITE_DAMAGED = frozenset({"SQLITE_CORRUPT", "SQLITE_IOERR", "SQLITE_FORMAT"})
_SQLITE_BUSY = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})


class SqliteStore:
    """The embedded store: one file, WAL, busy timeout, BEGIN IMMEDIATE for writes."""

    dialect = "sqlite"

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT, writer_lock: bool = True) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}" + ("" if writer_lock else "?writer_lock=0")
        self.busy_timeout = busy_timeout
        busy_timeout_ms = int(busy_timeout * 1000)
        blocker = next((p for p in self.path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise BoardUsageError(
                f"cannot open the board at {self.path}: {blocker} is a file, not a folder; choose another --board path"
            )
        if self.path.exists() and not self.path.is_file():  # /dev/null, a folder, a pipe
            kind = "a folder" if self.path.is_dir() else "not a regular file"
            raise BoardUsageError(f"cannot use {self.path} as the board: it is {kind}; point --board at a file")
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
            raise self._translate(exc) from exc
        self._lock = threading.RLock()
        self._queries = named_queries("sqlite")
        # Writers from several processes queue on an OS file lock before
        # BEGIN IMMEDIATE: the kernel wakes the next one the moment the lock is
        # free, where SQLite's own busy handler sleeps 1, 2, 5, 10 … ms and
        # collapses throughput under contention. Processes that do not take
        # the lock are still safe: BEGIN IMMEDIATE and the busy timeout remain.
        self._writer = WriterLock(f"{self.path}.writer-lock", busy_timeout) if writer_lock else None

    def _translate(self, exc: sqlite3.Error) -> BandstandError:
        """What an error from SQLite means for the person running the command, in one line."""
        name = (getattr(exc, "sqlite_errorname", "") or "").split("_")
        code = "_".join(name[:2])
        if code in _SQLITE_BUSY:
            return busy_error("held by another process", "", self.busy_timeout, f"{self.path} ({exc})")
        if "already exists" in str(exc):  # migrating again: the record of migrations did not read back
            exc = sqlite3.DatabaseError("its tables are there but its record of migrations is unreadable")
        if code == "SQLITE_NOTADB":  # a header SQLite does not recognise: never a board, or its first page is gone
            return BoardDamaged(f"{self.path} is not a board ({exc}: damaged, or never a board); point --board "
                                "at another file or move this one away")
        if code in _SQLITE_DAMAGED or "malformed" in str(exc) or "record of migrations" in str(exc):
            return BoardDamaged(f"the board file is damaged ({exc}): {self.path}; restore it from a backup "
                                "or move it away and start a new board")
        if code in ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_FULL"):
            return BoardUsageError(f"cannot use the board at {self.path}: {exc}")
        return BoardDamaged(f"the board at {self.path} failed: {exc}")

    @contextmanager
    def _begin(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction on the connection; SQLite's errors leave it as ours (`_translate`)."""
        held = self._writer.held(str(self.path)) if write and self._writer is not None else nullcontext()
        with self._lock, held:
            try:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.Error as exc:
                raise self._translate(exc) from exc
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._translate(exc) from exc
                raise

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[_SqliteTx]:
        with self._begin(write) as conn:
            yield _SqliteTx(conn, self._queries)

    def execute_script(self, sql: str) -> None:
        with self._lock:
            for statement in split_statements(sql):
                self._conn.execute(statement)

    def _applied(self) -> set[int] | None:
        """Versions recorded in the file, or None when it has no migration record yet."""
        with self._begin(write=False) as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'board_migrations'").fetchone() is None:
                return None
            return {r[0] for r in conn.execute("SELECT version FROM board_migrations")}

    def migrate(self) -> list[int]:
        """Apply the migrations this file lacks; return the versions applied. A board that has
        them all is only read, so a busy board still opens for reading."""
        wanted = migrations("sqlite")
        done = self._applied()
        if done is not None and all(v in done for v, _, _ in wanted):
            return []
        applied: list[int] = []
        with self._begin(write=True) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS board_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            done = {r[0] for r in conn.execute("SELECT version FROM board_migrations")}
            for version, name, sql in wanted:
                if version in done:
                    continue
                for statement in split_statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO board_migrations (version, name) VALUES (?, ?)", (version, name))
                applied.append(version)
        return applied

    def close(self) -> None:
        self._conn.close()
        if self._writer is not None:
            self._writer.close()


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


#: How a board connection names itself to the server, so a busy board can say who holds it.
_APP_NAME = "bandstand-board pid="


class PostgresStore:
    """The shared store: a PostgreSQL server, reached with psycopg 3. Every lock wait is
    bounded by `lock_timeout` (the busy timeout); the connection's application_name carries
    the client's PID, so a busy board names the process that holds it."""

    dialect = "postgres"

    def __init__(self, url: str, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        import psycopg
        from psycopg.rows import dict_row

        self.url = url
        self.busy_timeout = busy_timeout
        try:
            self._conn = psycopg.connect(url, row_factory=dict_row, autocommit=False,
                                         application_name=f"{_APP_NAME}{os.getpid()}")
            with self._conn.cursor() as cur:
                cur.execute(f"SET lock_timeout = {max(1, int(busy_timeout * 1000))}")
            self._conn.commit()
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())  # psycopg's messages span lines; ours is one
            raise BoardUsageError(f"cannot connect to the board at {_redact(url)}: {reason}") from exc
        self._lock = threading.RLock()
        self._queries = {k: _pg_params(v) for k, v in named_queries("postgres").items()}

    def _busy(self) -> BoardBusy:
        """Who holds the board: the oldest other board connection idle inside a transaction
        (a client suspended mid-transaction looks exactly like that to the server)."""
        holder, hint = "held by another session", ""
        with suppress(Exception), self._conn.cursor() as cur:
            cur.execute(
                "SELECT application_name, pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%' ORDER BY xact_start LIMIT 1"
            )
            row = cur.fetchone()
            self._conn.rollback()
            if row is not None:
                name = str(row["application_name"] or "")
                if name.startswith(_APP_NAME) and name.removeprefix(_APP_NAME).isdigit():
                    pid = int(name.removeprefix(_APP_NAME))
                    holder, hint = f"held by PID {pid}", stopped_hint(pid)
                else:
                    holder = f"held by server process {row['pid']}, {name or 'unnamed'}"
        return busy_error(holder, hint, self.busy_timeout, _redact(self.url))

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[_PgTx]:
        from psycopg import errors

        try:
            with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
                yield _PgTx(cur, self._queries)
        except errors.LockNotAvailable as exc:
            raise self._busy() from exc

    def execute_script(self, sql: str) -> None:
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            for statement in split_statements(sql):
                cur.execute(statement)

    def _applied(self) -> set[int] | None:
        with self._lock, self._conn.transaction(), self._conn.cursor() as cur:
            cur.execute("SELECT to_regclass('board_migrations') IS NOT NULL AS present")
            row = cur.fetchone()
            if row is None or not row["present"]:
                return None
            cur.execute("SELECT version FROM board_migrations")
            return {r["version"] for r in cur.fetchall()}

    def migrate(self) -> list[int]:
        """Apply the migrations the database lacks (under an advisory lock, so several machines
        may start at once); a database that has them all is only read."""
        from psycopg import errors

        done = self._applied()
        if done is not None and all(v in done for v, _, _ in migrations("postgres")):
            return []
        try:
            return self._migrate()
        except errors.LockNotAvailable as exc:
            raise self._busy() from exc

    def _migrate(self) -> list[int]:
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


def open_store(url: str | None = None, *, busy_timeout: float = BUSY_TIMEOUT) -> SqliteStore | PostgresStore:
    """Open the store a URL names: `sqlite:///path/board.db[?writer_lock=0]` or `postgresql://…`.
    `busy_timeout`: seconds a write waits for another writer before `BoardBusy`."""
    url = url or DEFAULT_URL
    if url.startswith("sqlite:///"):
        path, _, query = url.removeprefix("sqlite:///").partition("?")
        return SqliteStore(path, writer_lock=query != "writer_lock=0", busy_timeout=busy_timeout)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url, busy_timeout=busy_timeout)
    raise BoardUsageError(
        f"unknown board URL {url!r}: use sqlite:///PATH (the default is {DEFAULT_URL}) "
        "or postgresql://USER@HOST:PORT/DB"
    )
