"""Where a render's full-length buffers — every track's row, the mix, each bus — live: in
memory when they fit the machine's room for them (`memory_allowance`), else in an unlinked
temporary file mapped into memory.

A song's buffers grow with its length (a 28-minute song is 600 MB per stereo
buffer, and a render holds one per track, the mix and a bus); its work does
not: every stage walks the song a slice or a chunk at a time. So a long song's
buffers live in a file, which both synthesis threads write into, and when the file's pages the
process has mapped pass a budget (`RESIDENT_BUDGET`, looked at every few steps) it lets go
of them all (`madvise(MADV_DONTNEED)`: the data stays in the file and the page cache, which
the system may write back to the disk and evict; touching a page again maps it back). The
arithmetic is the same, so the bytes are too; only where the numbers live changes.

A file's pages cost: a first write to one is several times dearer than to memory, and a
page let go of and touched again is a second fault. And for a song of a few minutes they buy
nothing: the pages let go of stay in the page cache — in RAM — until the render frees them,
because the kernel writes dirty pages back only past `vm.dirty_background_ratio` of the
memory (10 % by default) or after 30 s. A two-minute compose held 300 MB resident with the
file against 520 MB in memory, but its memory cgroup was charged 604 MB against 579 MB.
So buffers that fit `memory_allowance` (1 GiB, and at most an eighth of the memory
available) stay in memory — anonymous pages, mapped a stretch at a time as for the file —
and longer songs, or a machine short of memory, get the file, whose pages the kernel can
write back and take away under pressure, so the resident set stays flat however long the song.

The file's map is read without readahead (`MADV_RANDOM`). A fault on a page of the file that
is not in the page cache makes the kernel read ahead — Linux 6.18 in large folios — and the
reserved blocks, never written, are read as zeros: the profile of a 256-bar render had 53 % of
its samples in the kernel zeroing readahead folios (`page_cache_ra_order`, `memset`), 61 % in
the kernel in all: 8.5 s of CPU after a `sync`, 15.0–15.4 s right after FluidSynth had written
its 150 MB WAV (FluidSynth itself: 9.5 s). Without readahead each fault makes only its own
page: 7.8 s after a `sync`, 7.7–8.0 s after FluidSynth's write (three runs each way).

For the file, the budget is what lets go: a song lets go a handful of times, not at every
step (which cost a 64-bar compose half a second of the kernel's time), and a long one stays
within the same budget. Pages about to be written are mapped a stretch at a time (`ready`:
one call instead of a fault a page), in memory and in the file alike.

The folder is the first of `$BANDSTAND_SCRATCH`, `$TMPDIR`, /var/tmp and /tmp
that is on a disk (a tmpfs is memory: nothing would be saved) with room for the
buffers; the room is reserved up front (`posix_fallocate`), so a disk that
fills up later cannot kill the render. Without such a folder the buffers stay
in memory, as `Scratch.find` answering None says.

A `Scratch` is owned by one render and passed down; `tick` is its step, called
from the render's cancellation check (`bandstand.render.cancel`)."""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.errors import ConfigError
from bandstand.render.cancel import Check

Ready = Callable[[npt.NDArray[np.float32]], None]  # makes a stretch of a buffer ready to be written (`Scratch.ready`)

__all__ = ["ENV_VAR", "MEMORY_BYTES", "MEMORY_ENV_VAR", "RESIDENT_BUDGET", "Ready", "Scratch", "mapped_files",
           "memory_allowance", "place"]

ENV_VAR = "BANDSTAND_SCRATCH"
MEMORY_ENV_VAR = "BANDSTAND_RENDER_MEMORY_MB"  # the most a render's buffers may take in memory (0: always the file)
_MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs"})

MEMORY_BYTES = 1 << 30  # buffers up to this size stay in memory (and up to an eighth of the memory available)
_AVAILABLE_SHARE = 8
RESIDENT_BUDGET = 128 << 20  # bytes of scratch pages mapped before they are let go
_LOOK_EVERY = 8  # steps (synthesis slices, chunks of 32,768 frames) between two looks at what is mapped
_STATM = "/proc/self/statm"  # its third figure: the pages of files this process has mapped (Linux)
_POPULATE_WRITE = 23  # madvise(MADV_POPULATE_WRITE): Linux 5.14 and later
_PAGE = mmap.PAGESIZE
_REMOVE = getattr(mmap, "MADV_REMOVE", 9)  # madvise(MADV_REMOVE): free the pages and the file's room


class Scratch:
    """Zeroed arrays backed by unlinked temporary files (in `folder`, default `$TMPDIR`), whose
    touched pages are let go of when, at a look every `every` ticks, the process maps more than
    `budget` bytes of files beyond what it mapped when the scratch was made — or, made by
    `in_memory`, by anonymous memory, kept until `discard`."""

    @classmethod
    def in_memory(cls) -> Scratch:
        """A scratch whose arrays are anonymous memory (never let go of before `discard`)."""
        return cls(memory=True)

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

    def __init__(self, folder: str | None = None, every: int = _LOOK_EVERY, budget: int = RESIDENT_BUDGET, *,
                 memory: bool = False) -> None:
        self.folder, self.every, self.budget = folder, every, budget
        self.memory = memory  # anonymous memory rather than files (`in_memory`)
        self._before = None if memory else mapped_files()
        self._maps: list[mmap.mmap] = []
        self._bases: list[tuple[int, int, mmap.mmap]] = []  # each map's address, size and map
        self.populates = True  # whether `ready` maps pages ahead (False once the kernel said it cannot)
        self._ticks = 0
        self._lock = threading.Lock()

    def zeros(self, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
        """A zeroed float32 array of `shape` in a new temporary file (removed when nothing maps it),
        or in new anonymous memory."""
        count = int(np.prod(shape))
        size = max(1, count * 4)
        if self.memory:
            return self._keep(mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS), count, shape)
        with tempfile.TemporaryFile(dir=self.folder, prefix="bandstand-render-") as fh:
            try:  # the room reserved now: a write to a mapped file on a full disk would kill the process
                os.posix_fallocate(fh.fileno(), 0, size)
            except OSError:  # no room, or a file system that cannot reserve: keep it in memory
                return np.zeros(shape, dtype=np.float32)
            mapped = mmap.mmap(fh.fileno(), size)
        with contextlib.suppress(OSError, AttributeError):  # no readahead: see the module docstring
            mapped.madvise(mmap.MADV_RANDOM)
        return self._keep(mapped, count, shape)

    def _keep(self, mapped: mmap.mmap, count: int, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
        self._maps.append(mapped)
        out: npt.NDArray[np.float32] = np.frombuffer(mapped, dtype=np.float32, count=count).reshape(shape)
        self._bases.append((out.ctypes.data, len(mapped), mapped))
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
                        _madvise(mapped, base, offset, min(size, start - base + width) - offset, _POPULATE_WRITE)
                    except OSError:  # an older kernel: the writer's faults map the pages as before
                        self.populates = False
                        return
                    break

    def discard(self) -> None:
        """The render is done with every array of this scratch: their pages (and their files'
        room) are freed on a thread of its own (`madvise(MADV_REMOVE)`, `MADV_DONTNEED` in
        memory), so the caller does not wait while the kernel lets go of hundreds of MB (about
        50 ms for a three-minute song, on the thread that dropped the arrays last); whoever
        drops them last then has nothing left to free. The arrays read zeros afterwards: nothing
        may use them."""
        bases, self._maps, self._bases = self._bases, [], []
        if bases:
            advice = mmap.MADV_DONTNEED if self.memory else _REMOVE
            threading.Thread(target=_free, args=(bases, advice), name="bandstand-scratch-free", daemon=True).start()

    def release(self) -> None:
        """Let go of every page this process touched (their data stays in the files; in memory,
        nothing is let go of)."""
        if self.memory:
            return
        for base, size, mapped in self._bases:
            _madvise(mapped, base, 0, size, mmap.MADV_DONTNEED)

    def tick(self) -> None:
        """One step of work done; every `every` steps, a look at what is mapped, and `release`
        when it is over the budget."""
        with self._lock:
            self._ticks += 1
            due = self._ticks % self.every == 0
        if due and not self.memory:
            now = mapped_files()
            if now is None or self._before is None or now - self._before > self.budget:
                self.release()

    def checked(self, check: Check) -> Check:
        """`check`, then a tick: the render's one call per step does both."""
        def step() -> None:
            check()
            self.tick()

        return step


def place(size: int, scratch: bool | None = None) -> Scratch | None:
    """Where a render's `size` bytes of full-length buffers go: with `scratch` None, in memory
    when they fit `memory_allowance`, else in a file (`Scratch.find`), else in memory all the
    same; True asks for the file (None without a folder for it: numpy's memory), False for
    numpy's memory (None)."""
    if scratch is None:
        if size <= memory_allowance():
            return Scratch.in_memory()
        return Scratch.find(size) or Scratch.in_memory()
    return Scratch.find(size) if scratch else None


def memory_allowance() -> int:
    """The most bytes a render's buffers may take in memory: `$BANDSTAND_RENDER_MEMORY_MB` when
    set (0: every render uses the file), else `MEMORY_BYTES` and no more than an eighth of the
    memory available now (`MemAvailable`, Linux; the physical memory's where it cannot be read).
    A value that is not a number of MB, 0 or more, is a `ConfigError` (one line), as a wrong
    `$BANDSTAND_SYNTH` is."""
    given = os.environ.get(MEMORY_ENV_VAR, "").strip()
    if given:
        try:
            megabytes = float(given)
        except ValueError:
            megabytes = -1.0
        if not 0 <= megabytes < 1 << 40:  # also refuses nan and inf
            raise ConfigError(f"${MEMORY_ENV_VAR} is {given!r}; give the MB a render may keep in memory, "
                              "e.g. 512, or 0 for every render in a scratch file")
        return int(megabytes * (1 << 20))
    available = _available_memory()
    return MEMORY_BYTES if available is None else min(MEMORY_BYTES, available // _AVAILABLE_SHARE)


def _available_memory() -> int | None:
    """Bytes of memory available now (Linux's `MemAvailable`), else the physical memory's size,
    else None."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _free(bases: list[tuple[int, int, mmap.mmap]], advice: int) -> None:
    """Free each map's pages (and, with `MADV_REMOVE`, the room of its file: a hole punched
    through it)."""
    for address, size, mapped in bases:  # the map held open until its pages are gone
        with contextlib.suppress(OSError):  # a file system that cannot punch holes: freed when unmapped
            _madvise(mapped, address, 0, size, advice)


def _madvise(mapped: mmap.mmap, address: int, offset: int, length: int, advice: int) -> None:
    """`madvise(advice)` on `length` bytes at `offset` of `mapped` (whose first byte is at
    `address`), through libc, which lets go of the interpreter lock while the kernel works:
    `mmap.madvise` holds it, so while one synthesis thread's next stretch was being mapped
    (`ready`: the kernel zeroing hundreds of MB over a render) the other thread and the
    pipeline waited. Raises OSError as `mmap.madvise` does; where libc cannot be called,
    `mmap.madvise` does the work."""
    call = _libc_madvise()
    if call is None:
        mapped.madvise(advice, offset, length)
        return
    if call(address + offset, length, advice) != 0:
        import ctypes

        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


_LIBC: list[Callable[[int, int, int], int] | None] = []


def _libc_madvise() -> Callable[[int, int, int], int] | None:
    """libc's madvise, looked up once (None where it cannot be called)."""
    if not _LIBC:
        try:
            import ctypes

            call = ctypes.CDLL(None, use_errno=True).madvise
            call.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            call.restype = ctypes.c_int
            _LIBC.append(call)
        except (OSError, AttributeError):  # not a libc we can call
            _LIBC.append(None)
    return _LIBC[0]


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
