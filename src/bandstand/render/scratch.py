"""Scratch space: the render's full-length buffers — every track's row, the mix, each bus —
in an unlinked temporary file mapped into memory, instead of in memory.

A song's buffers grow with its length (a 28-minute song is 600 MB per stereo
buffer, and a render holds one per track, the mix and a bus); its work does
not: every stage walks the song a slice or a chunk at a time. So the buffers
live in a file (`$TMPDIR`, which must be a disk, not a tmpfs, for this to save
memory), shared with the forked synthesis child as anonymous shared memory was,
and every few steps the process lets go of the pages it touched
(`madvise(MADV_DONTNEED)`: the data stays in the file and the page cache, which
the system may evict; touching a page again reads it back). The arithmetic is
the same, so the bytes are too; only where the numbers live changes.

A `Scratch` is owned by one render and passed down; `tick` is its step, called
from the render's cancellation check (`bandstand.render.cancel`)."""

from __future__ import annotations

import mmap
import tempfile
import threading

import numpy as np
import numpy.typing as npt

from bandstand.render.cancel import Check

__all__ = ["SCRATCH_BYTES", "Scratch"]

SCRATCH_BYTES = 48 << 20  # renders whose full-length buffers are smaller stay in memory
_RELEASE_EVERY = 16  # steps (synthesis slices, chunks of 32,768 frames) between two releases


class Scratch:
    """Zeroed arrays backed by unlinked temporary files (in `folder`, default `$TMPDIR`), whose
    touched pages are let go of every `every` ticks."""

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
            fh.truncate(size)  # a sparse file: it reads as zeros and costs nothing until written
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
