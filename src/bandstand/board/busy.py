"""Waiting for another writer, bounded. SQLite writers queue on an OS file lock
(`WriterLock`) that the kernel hands to the next waiter the moment it is free — but an
OS lock has no timeout, so a writer suspended inside a transaction (Ctrl-Z, a debugger)
would hold every other writer forever. `WriterLock` gives up after the busy timeout and
says who holds the lock (each holder writes its PID into the lock file); `busy_error`
words that one line for both stores."""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bandstand.errors import BoardBusy

__all__ = ["WriterLock", "busy_error", "stopped_hint"]


def stopped_hint(pid: int) -> str:
    """What to do when /proc says the holder is stopped; '' otherwise (or without /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    state = stat.rsplit(")", 1)[-1].split()[0]
    if state in ("T", "t"):
        return f"; it is stopped (Ctrl-Z or a debugger): resume it (fg, or kill -CONT {pid}) or end it"
    return ""


def busy_error(holder: str, hint: str, waited: float, where: str) -> BoardBusy:
    return BoardBusy(f"the board is busy ({holder}){hint}; gave up after {waited:g} s: {where}")


class WriterLock:
    """The OS lock SQLite writers of one board file take before `BEGIN IMMEDIATE`."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)

    @contextmanager
    def held(self, where: str) -> Iterator[None]:
        """Hold the lock (recording our PID in it), or raise BoardBusy after the timeout."""
        fd = self._take(where)
        try:
            os.pwrite(fd, f"{os.getpid():>12}\n".encode(), 0)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            if fd != self._fd:
                os.close(fd)

    def _take(self, where: str) -> int:
        """Take the lock within the timeout; return the descriptor holding it.

        Uncontended, that is ours. Contended, a helper thread waits in the kernel (so the
        next writer is still woken the moment the lock is free) on a descriptor of its own,
        which this thread adopts — or, after the timeout, the helper closes it as soon as it
        gets the lock: giving up never leaves a lock behind."""
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return self._fd
        except BlockingIOError:
            pass
        fresh = os.open(self.path, os.O_RDWR)
        decided = threading.Lock()
        got = threading.Event()
        gave_up = threading.Event()

        def wait() -> None:
            try:
                fcntl.flock(fresh, fcntl.LOCK_EX)
            except OSError:
                os.close(fresh)
                return
            with decided:
                if gave_up.is_set():
                    os.close(fresh)  # closing the descriptor releases the lock
                else:
                    got.set()

        threading.Thread(target=wait, name="board-writer-lock", daemon=True).start()
        got.wait(self.timeout)
        with decided:
            if got.is_set():
                return fresh
            gave_up.set()
        raise self._busy(where)

    def _busy(self, where: str) -> BoardBusy:
        try:
            pid = int(os.pread(self._fd, 32, 0).split()[0])
        except (OSError, ValueError, IndexError):
            return busy_error("held by another process", "", self.timeout, where)
        return busy_error(f"held by PID {pid}", stopped_hint(pid), self.timeout, where)

    def close(self) -> None:
        os.close(self._fd)
