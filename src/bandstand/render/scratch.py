"""Scratch space: the render's full-length buffers — every track's row, the mix, each bus —
in an unlinked temporary file mapped into memory, instead of in memory.

A song's buffers grow with its length (a 28-minute song is 600 MB per stereo
buffer, and a render holds one per track, the mix and a bus); its work does
not: every stage walks the song a slice or a chunk at a time. So the buffers
live in a file, which both synthesis threads write into, and every few steps
the process lets go of the pages it touched
(`madvise(MADV_DONTNEED)`: the data stays in the file and the page cache, which
the system may evict; touching a page again reads it back). The arithmetic is
the same, so the bytes are too; only where the numbers live changes.

The folder is the first of `$BANDSTAND_SCRATCH`, `$TMPDIR`, /var/tmp and /tmp
that is on a disk (a tmpfs is memory: nothing would be saved) with room for the
buffers; the room is reserved up front (`posix_fallocate`), so a disk that
fills up later cannot kill the render. Without such a folder the buffers stay
in memory, as `Scratch.find` answering None says.

A `Scratch` is owned by one render and passed down; `tick` is its step, called
from the render's cancellation check (`bandstand.render.cancel`)."""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.render.cancel import Check

__all__ = ["ENV_VAR", "SCRATCH_BYTES", "Scratch"]

ENV_VAR = "BANDSTAND_SCRATCH"
_MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs"})

SCRATCH_BYTES = 48 << 20  # renders whose full-length buffers are smaller stay in memory
_RELEASE_EVERY = 16  # steps (synthesis slices, chunks of 32,768 frames) between two releases


class Scratch:
    """Zeroed arrays backed by unlinked temporary files (in `folder`, default `$TMPDIR`), whose
    touched pages are let go of every `every` ticks."""

    @classmethod
    def find(cls, size: int) -> Scratch | None:
        """A scratch in the first folder on a disk with room for `size` bytes (see the module
        docstring), or None."""
        candidates = [os.environ.get(ENV_VAR, ""), os.environ.get("TMPDIR", ""), "/var/tmp", tempfile.gettempdir()]
        for folder in dict.fromkeys(c for c in candidates if c):
            try:
                room = os.statvfs(folder)
            except OSError:
                continue
            if room.f_bavail * room.f_frsize >= size * 1.1 and _filesystem(folder) not in _MEMORY_FILESYSTEMS:
                return cls(folder)
        return None

    def __init__(self, folder: str | None = None, every: int = _RELEASE_EVERY) -> None:
        self.folder, self.every = folder, every
        self._maps: list[mmap.mmap] = []
        self._ticks = 0
        self._lock = threading.Lock()

    def zeros(self, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
        """A zeroed float32 array of `shape` in a new temporary file (removed when nothing maps it)."""
        count = int(np.prod(shape))
        size = max(1, count * 4)
        with tempfile.TemporaryFile(dir=self.folder, prefix="bandstand-render-") as fh:
            try:  # the room reserved now: a write to a mapped file on a full disk would kill the process
                os.posix_fallocate(fh.fileno(), 0, size)
            except OSError:  # no room, or a file system that cannot reserve: keep it in memory
                return np.zeros(shape, dtype=np.float32)
            mapped = mmap.mmap(fh.fileno(), size)
        self._maps.append(mapped)
        out: npt.NDArray[np.float32] = np.frombuffer(mapped, dtype=np.float32, count=count).reshape(shape)
        return out

    def release(self) -> None:
        """Let go of every page this process touched (their data stays in the files)."""
        for mapped in self._maps:
            mapped.madvise(mmap.MADV_DONTNEED)

    def tick(self) -> None:
        """One step of work done; every `every` steps, `release`."""
        with self._lock:
            self._ticks += 1
            due = self._ticks % self.every == 0
        if due:
            self.release()

    def checked(self, check: Check) -> Check:
        """`check`, then a tick: the render's one call per step does both."""
        def step() -> None:
            check()
            self.tick()

        return step


def _filesystem(folder: str) -> str:
    """The type of the file system `folder` is on ("ext4", "tmpfs", …; "" when unknown), from the
    longest mount point above it in /proc/self/mountinfo (Linux)."""
    path = os.path.realpath(folder)
    best, kind = "", ""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = line.split(" ")
        if " - " not in line or len(fields) < 5:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = path == mount or path.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, line.split(" - ", 1)[1].split(" ", 1)[0]
    return kind
