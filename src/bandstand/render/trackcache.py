"""Finished tracks kept between renders: each heard track's audio after its insert chain and
fader (the rows `render_song` mixes), in a folder, keyed by a digest of everything that
makes it — so a render after a change plays only the tracks whose sound changed, and an
undo plays none.

A track's key (`track_keys`) is the SHA-256 of: the track's events (notes, controllers,
bends, aftertouch, program changes, its program and channel), how the full render plays it
(whole, or in two halves: `bandstand.render.partial.plan_of`), its fader, pan, inserts and
automation (not its sends: they feed the buses, which are mixed anew); the song's tempo map
and time signature, the render's length in frames (the song and its longest reverb tail) and
sample rate; the SoundFont's SHA-256, the synthesizer engine, and `CACHE_VERSION`, bandstand's,
numpy's and numba's versions (bump `CACHE_VERSION` when the synthesizer or a chain changes how
a track sounds). The same key, the same bits.

An entry is one file, `<key>.track`: a header (magic, version, key, frames, the span of
frames the track fills, a CRC-32 of the samples) and the samples of that span, channel by
channel. It is written to a temporary name and renamed (not fsynced: a damaged or missing
entry is only a miss), and read straight into the render's row; an entry that does not
check out — wrong length, key or CRC — is deleted and the track is played again, never an
error. Reading an entry marks it used (its mtime); `trim` keeps the render's own entries and
deletes the least recently used others beyond `budget` times their size (3: HEAD and the
revision before it, for an undo or redo, with room to spare).
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.render.partial import Font, plan_of
from bandstand.score import Song, assign_channels
from bandstand.version import __version__

__all__ = ["CACHE_VERSION", "SUFFIX", "TrackCache", "track_keys"]

CACHE_VERSION = 1  # bump when the synthesizer or a chain changes what a track sounds like
SUFFIX = ".track"
_MAGIC = b"BSTRACK\0"
_HEADER = struct.Struct("<8sI32sQQQI")  # magic, version, key, frames, first, end, crc32 of the samples
_READ = 1 << 22  # bytes read (and checked) at a time
_STALE_TEMP_SECONDS = 3600.0  # a temporary file this old is a crashed writer's


@functools.cache
def _versions() -> tuple[str, ...]:
    from importlib import metadata

    found = []
    for package in ("numpy", "numba"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} -")
    return (f"bandstand {__version__}", *found, sys.byteorder)


def track_keys(song: Song, heard: Sequence[bool], font: Font, *, sample_rate: int, frames: int) -> dict[int, str]:
    """The key of each heard track's finished audio (track index → hex digest); see the module
    docstring for what goes in."""
    channels = assign_channels(song)
    plan = plan_of(song, heard, font)
    common = repr((CACHE_VERSION, _versions(), font.engine, font.digest, sample_rate, frames, song.tempo,
                   [(c.beat, c.bpm) for c in song.tempo_map()], str(song.time_signature))).encode("utf-8")
    keys: dict[int, str] = {}
    for index, track in enumerate(song.tracks):
        if not heard[index]:
            continue
        m = track.mix
        own = repr((track.program, track.is_drum, channels[index], plan.get(index, ()), track.notes, track.controls,
                    track.pitch_bends, track.aftertouch, track.poly_aftertouch, track.program_changes,
                    m.volume, m.pan, m.inserts, m.automation))
        keys[index] = hashlib.sha256(common + b"\0" + own.encode("utf-8")).hexdigest()
    return keys


class TrackCache:
    """Finished tracks in `folder` (made when the first entry is stored), by key."""

    def __init__(self, folder: str | os.PathLike[str], *, budget: float = 3.0) -> None:
        self.folder = Path(folder)
        self.budget = budget

    def path(self, key: str) -> Path:
        return self.folder / f"{key}{SUFFIX}"

    def load(self, key: str, row: npt.NDArray[np.float32]) -> tuple[int, int] | None:
        """Read the entry `key` into `row` (2 × frames, zeros, each channel contiguous); returns the
        frames [first, end) it fills, or None — nothing kept, or an entry that does not check out
        (deleted; `row` is zeros again)."""
        path = self.path(key)
        try:
            fh = open(path, "rb", buffering=0)  # noqa: SIM115 - closed below, on every path
        except OSError:
            return None
        first = end = 0
        try:
            with fh:
                head = fh.read(_HEADER.size)
                if len(head) != _HEADER.size:
                    raise ValueError("short header")
                magic, version, digest, frames, start, stop, crc = _HEADER.unpack(head)
                if (magic != _MAGIC or version != CACHE_VERSION or digest != bytes.fromhex(key)
                        or frames != row.shape[1] or not start <= stop <= frames
                        or os.fstat(fh.fileno()).st_size != _HEADER.size + 2 * (stop - start) * row.itemsize):
                    raise ValueError("header does not match")
                first, end = start, stop  # from here on the row may be written
                seen = 0
                for channel in row:
                    view = memoryview(channel[first:end]).cast("B")
                    for lo in range(0, len(view), _READ):
                        part = view[lo : lo + _READ]
                        if fh.readinto(part) != len(part):
                            raise ValueError("short read")
                        seen = zlib.crc32(part, seen)
                if seen != crc:
                    raise ValueError("CRC does not match")
            os.utime(path)  # used: the last to go
            return int(first), int(end)
        except (OSError, ValueError, struct.error):
            row[:, first:end] = 0.0
            path.unlink(missing_ok=True)
            return None

    def store(self, key: str, row: npt.NDArray[np.float32], span: tuple[int, int]) -> None:
        """Keep `row` (2 × frames) under `key`: the samples of its span. A failure to write is not
        an error (the track is played again next time)."""
        first, end = span
        tmp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=self.folder)
            with os.fdopen(fd, "wb") as fh:
                fh.write(b"\0" * _HEADER.size)
                crc = 0
                for channel in row:
                    data = np.ascontiguousarray(channel[first:end]).data.cast("B")
                    fh.write(data)
                    crc = zlib.crc32(data, crc)
                fh.seek(0)
                fh.write(_HEADER.pack(_MAGIC, CACHE_VERSION, bytes.fromhex(key), row.shape[1], first, end, crc))
            os.replace(tmp, self.path(key))
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def trim(self, keep: Iterable[str]) -> list[Path]:
        """Delete the least recently used entries but `keep` while the folder holds more than
        `budget` times what `keep`'s entries take (and temporary files a crashed writer left);
        returns what was deleted."""
        keep = set(keep)
        entries: list[tuple[float, int, Path]] = []
        kept = 0
        removed: list[Path] = []
        now = time.time()
        try:
            listing = list(os.scandir(self.folder))
        except OSError:
            return removed
        for item in listing:
            try:
                info = item.stat()
            except OSError:
                continue
            if item.name.endswith(SUFFIX):
                if item.name.removesuffix(SUFFIX) in keep:
                    kept += info.st_size
                else:
                    entries.append((info.st_mtime, info.st_size, Path(item.path)))
            elif item.name.endswith(".tmp") and now - info.st_mtime > _STALE_TEMP_SECONDS:
                removed.append(Path(item.path))
        total = kept + sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.budget * kept:
                break
            removed.append(path)
            total -= size
        for path in removed:
            path.unlink(missing_ok=True)
        return removed
