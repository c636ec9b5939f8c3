"""A board another process holds, or one that is not a board any more (issue 17): a writer
suspended inside a transaction (SIGSTOP, as Ctrl-Z or a debugger do) used to block every
other writer without limit — the OS lock ignored SQLite's busy timeout — and PostgreSQL's
row and advisory locks waited forever too. Now the wait ends after --busy-timeout with one
line naming the holder (exit 2), readers are not held up, and the board works again once the
holder is gone. A corrupted file and /dev/null are one line too, not an internal error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bandstand.board import Board
from bandstand.errors import BoardBusy

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "board.md"


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BANDSTAND_BOARD": url}
    return subprocess.run([sys.executable, "-m", "bandstand", "board", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def one_line(run: subprocess.CompletedProcess[str]) -> str:
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr and "internal error" not in run.stderr, \
        run.stderr
    return run.stderr


@pytest.fixture
def holder(board: Board, board_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """A process stopped inside a write transaction on task-01."""
    board.create_task("task-01")
    board.claim("task-01", "m-1")
    proc = subprocess.Popen([sys.executable, "-m", "tests.board.workers", "hold", board_url, "m-1", "task-01"],
                            cwd=ROOT, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"inside"
        proc.send_signal(signal.SIGSTOP)
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)
        assert proc.stdout is not None
        proc.stdout.close()


def test_a_stopped_writer_makes_the_board_busy_not_stuck(board: Board, board_url: str,
                                                         holder: subprocess.Popen[bytes]) -> None:
    run = cli(board_url, "--busy-timeout", "1", "instruct", "task-01", "write the bass", "-s", "conductor-1")
    assert run.returncode == 2
    line = one_line(run)
    assert f"the board is busy (held by PID {holder.pid}); it is stopped (Ctrl-Z or a debugger)" in line
    assert f"kill -CONT {holder.pid}" in line
    if board_url.startswith("sqlite:///"):  # the page shows this very line
        shown = next(ln for ln in DOC.read_text().splitlines() if ln.startswith("bandstand: error: the board is busy"))
        path = board_url.removeprefix("sqlite:///")
        assert line.strip() == shown.replace("8125", str(holder.pid)).replace("30 s", "1 s").replace(
            ".bandstand/board.db", path)
    run = cli(board_url, "--busy-timeout", "1", "claim", "task-01", "-s", "m-2")
    assert run.returncode == 2 and "the board is busy" in one_line(run)
    # readers are not held up
    run = cli(board_url, "--busy-timeout", "1", "show", "task-01")
    assert run.returncode == 0 and "state: working" in run.stdout, run.stderr
    # in a long-lived process too, and giving up leaves nothing held behind
    with Board.open(board_url, busy_timeout=0.5) as waiting:
        with pytest.raises(BoardBusy, match=f"held by PID {holder.pid}"):
            waiting.post("task-01", "status", "anyone?", from_session="m-2")
        # once the holder is gone, its transaction is gone and the board works again
        holder.kill()
        holder.wait(timeout=30)
        assert _post_when_free(waiting) > 0
    run = cli(board_url, "instruct", "task-01", "write the bass", "-s", "conductor-1")
    assert run.returncode == 0, run.stderr
    assert board.task("task-01").last_heartbeat != "2026-01-01T00:00:00.000000Z"  # rolled back


def _post_when_free(board: Board) -> int:
    """Post as soon as the board is free again (BoardBusy is retryable: retry it)."""
    for _ in range(60):
        try:
            return board.post("task-01", "status", "back", from_session="m-2")
        except BoardBusy as exc:
            assert exc.retryable
    raise AssertionError("the board stayed busy after its holder was gone")


def test_a_writer_outside_the_os_lock_is_reported_too(tmp_path: Path) -> None:
    # a process that opened the board without the writer lock (or the sqlite3 shell) holds only
    # SQLite's own lock: the busy timeout ends the wait
    url = f"sqlite:///{tmp_path / 'board.db'}"
    with Board.open(url) as board:
        board.init("conductor-1")
        board.create_task("task-01")
    proc = subprocess.Popen([sys.executable, "-m", "tests.board.workers", "hold", url + "?writer_lock=0", "m-1",
                             "task-01"], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"inside"
        proc.send_signal(signal.SIGSTOP)
        run = cli(url, "--busy-timeout", "1", "create", "task-02")
        assert run.returncode == 2 and "the board is busy (held by another process)" in one_line(run)
    finally:
        proc.kill()
        proc.wait(timeout=30)
        assert proc.stdout is not None
        proc.stdout.close()


def _corrupt(path: Path, start: int) -> None:
    """Scribble over the page headers from byte `start` on: those b-tree pages no longer parse."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        for page in range(start // 4096, size // 4096):
            fh.seek(page * 4096 + 8)
            fh.write(b"\x13" * 64)


@pytest.fixture
def written(tmp_path: Path) -> str:
    """A board with a few hundred messages, closed (so everything is in the main file)."""
    url = f"sqlite:///{tmp_path / 'board.db'}"
    with Board.open(url) as board:
        board.init("conductor-1")
        board.create_task("task-01")
        for i in range(300):
            board.post("task-01", "status", f"line {i} " + "x" * 200, from_session="m-1")
    return url


@pytest.mark.parametrize("command", [("list",), ("show", "task-01"), ("create", "task-05")])
def test_a_damaged_file_is_said_in_one_line(written: str, tmp_path: Path, command: tuple[str, ...]) -> None:
    _corrupt(tmp_path / "board.db", 4096)  # every page but the header
    run = cli(written, *command)
    assert run.returncode == 2
    assert "the board file is damaged" in one_line(run) and str(tmp_path / "board.db") in run.stderr


def test_a_damaged_page_is_said_when_it_is_read(written: str, tmp_path: Path) -> None:
    _corrupt(tmp_path / "board.db", (tmp_path / "board.db").stat().st_size // 2)  # the later messages' pages
    assert cli(written, "list").returncode == 0  # the tasks still read
    run = cli(written, "messages", "--since", "5")
    assert run.returncode == 2
    assert "the board file is damaged (database disk image is malformed)" in one_line(run)


def test_a_file_whose_header_is_gone_is_not_a_board(written: str, tmp_path: Path) -> None:
    with (tmp_path / "board.db").open("r+b") as fh:
        fh.write(b"these are my notes, not a board\n")
    run = cli(written, "list")
    assert run.returncode == 2 and "is not a board (file is not a database: damaged, or never a board)" in one_line(run)


@pytest.mark.parametrize("path", ["/dev/null", "{tmp}"])
def test_a_device_or_a_folder_is_not_a_board(tmp_path: Path, path: str) -> None:
    target = Path(path.format(tmp=tmp_path))
    run = cli(f"sqlite:///{target}", "list")
    assert run.returncode == 2 and "cannot use" in one_line(run) and "point --board at a file" in run.stderr
    for junk in ("-journal", "-wal", ".writer-lock"):  # nothing created beside it (in /dev!)
        assert not Path(f"{target}{junk}").exists()
