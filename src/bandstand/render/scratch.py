"""Scratch space: the render's full-length buffers — every track's row, the mix, each bus —
in an unlinked temporary file mapped into memory, instead of in memory.

A song's buffers grow with its length (a 28-minute song is 600 MB per stereo
buffer, and a render holds one per track, the mix and a bus); its work does
not: every stage walks the song a slice or a chunk at a time. So the buffers
live in a file, which both synthesis threads write into, and when the file's pages the
process has mapped pass a budget (`RESIDENT_BUDGET`, looked at every few steps) it lets go
of them all (`madvise(MADV_DONTNEED)`: the data stays in the file and the page cache, which
the system may evict; touching a page again maps it back). The arithmetic is the same, so
the bytes are too; only where the numbers live changes.

Letting go costs: a page let go of and touched again is a second fault, and a first write
to a file page is several times dearer than to memory. So the budget is what lets go: a
song of a few minutes lets go a handful of times, not at every step (which cost a
64-bar compose half a second of the kernel's time), and a long one stays within the same
budget, so the peak does not grow with the song. Pages about to be written are mapped a
stretch at a time (`ready`: one call instead of a fault a page).

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
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.render.cancel import Check

Ready = Callable[[npt.NDArray[np.float32]], None]  # makes a stretch of a buffer ready to be written (`Scratch.ready`)

__all__ = ["ENV_VAR", "RESIDENT_BUDGET", "SCRATCH_BYTES", "Ready", "Scratch", "mapped_files"]

ENV_VAR = "BANDSTAND_SCRATCH"
_MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs"})

SCRATCH_BYTES = 48 << 20  # renders whose full-length buffers are smaller stay in memory
RESIDENT_BUDGET = 128 << 20  # bytes of scratch pages mapped before they are let go
_LOOK_EVERY = 8  # steps (synthesis slices, chunks of 32,768 frames) between two looks at what is mapped
_STATM = "/proc/self/statm"  # its third figure: the pages of files this process has mapped (Linux)
_POPULATE_WRITE = 23  # madvise(MADV_POPULATE_WRITE): Linux 5.14 and later
_PAGE = mmap.PAGESIZE
_REMOVE = getattr(mmap, "MADV_REMOVE", 9)  # madvise(MADV_REMOVE): free the pages and the file's room


class Scratch:
    """Zeroed arrays backed by unlinked temporary files (in `folder`, default `$TMPDIR`), whose
    touched pages are let go of when, at a look every `every` ticks, the process maps more than
    `budget` bytes of files beyond what it mapped when the scratch was made."""

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

    def __init__(self, folder: str | None = None, every: int = _LOOK_EVERY, budget: int = RESIDENT_BUDGET) -> None:
        self.folder, self.every, self.budget = folder, every, budget
        self._before = mapped_files()
        self._maps: list[mmap.mmap] = []
        self._bases: list[tuple[int, int, mmap.mmap]] = []  # each map's address, size and map
        self.populates = True  # whether `ready` maps pages ahead (False once the kernel said it cannot)
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
        self._bases.append((out.ctypes.data, size, mapped))
        return out

    def ready(self, view: npt.NDArray[np.float32]) -> None:
        """Make `view`'s pages (a slice of one of this scratch's arrays, contiguous along its last
        axis) ready to be written: one call per row that maps them all
        (`madvise(MADV_POPULATE_WRITE)`) instead of a fault a page as the writer meets them, about
        half the kernel's time for a file page's first write. Does nothing for any other array, or
        where the kernel cannot (before Linux 5.14)."""
        if not self.populates or view.size == 0 or view.strides[-1] != view.itemsize:
            return
        data, width = view.ctypes.data, view.shape[-1] * view.itemsize
        rows = [data + i * view.strides[0] for i in range(view.shape[0])] if view.ndim == 2 else [data]
        for start in rows:
            for base, size, mapped in self._bases:
                if base <= start < base + size:
                    offset = (start - base) & ~(_PAGE - 1)
                    try:
                        mapped.madvise(_POPULATE_WRITE, offset, min(size, start - base + width) - offset)
                    except OSError:  # an older kernel: the writer's faults map the pages as before
                        self.populates = False
                        return
                    break

    def discard(self) -> None:
        """The render is done with every array of this scratch: their files' pages and room are
        freed on a thread of its own (`madvise(MADV_REMOVE)`), so the caller does not wait while
        the kernel lets go of hundreds of MB (about 50 ms for a three-minute song, on the
        thread that dropped the arrays last); whoever drops them last then has nothing left to
        free. The arrays read zeros afterwards: nothing may use them."""
        bases, self._maps, self._bases = self._bases, [], []
        if bases:
            threading.Thread(target=_remove, args=(bases,), name="bandstand-scratch-free", daemon=True).start()

    def release(self) -> None:
        """Let go of every page this process touched (their data stays in the files)."""
        for mapped in self._maps:
            mapped.madvise(mmap.MADV_DONTNEED)

    def tick(self) -> None:
        """One step of work done; every `every` steps, a look at what is mapped, and `release`
        when it is over the budget."""
        with self._lock:
            self._ticks += 1
            due = self._ticks % self.every == 0
        if due:
            now = mapped_files()
            if now is None or self._before is None or now - self._before > self.budget:
                self.release()

    def checked(self, check: Check) -> Check:
        """`check`, then a tick: the render's one call per step does both."""
        def step() -> None:
            check()
            self.tick()

        return step


def _remove(bases: list[tuple[int, int, mmap.mmap]]) -> None:
    """Free each map's pages and the room of its file (a hole punched through it), through libc
    (which lets go of the interpreter lock while the kernel works; `mmap.madvise` holds it)."""
    import ctypes

    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):  # not a libc we can call: the pages are freed when unmapped
        return
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for address, size, _mapped in bases:  # the map held open until its pages are gone
        madvise(address, size, _REMOVE)  # a file system that cannot punch holes: freed when unmapped


def mapped_files() -> int | None:
    """Bytes of files this process has mapped now, the scratch's pages among them (Linux's
    /proc/self/statm); None where that cannot be read (then every look lets go)."""
    try:
        with open(_STATM, "rb") as fh:
            return int(fh.read().split()[2]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


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
