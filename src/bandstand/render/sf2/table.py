"""A SoundFont as the compiled engine reads it: every region one row of a float64 table
(`layout.R_*` columns), presets as ranges of rows, the samples as float32.

Parsing a General MIDI SoundFont walks tens of thousands of generator records in Python
(about a second for TimGM6mb, 6 MB), so the table is kept: in this process by the file's
SHA-256, and on disk in bandstand's cache folder (`$BANDSTAND_CACHE`, else
`$XDG_CACHE_HOME/bandstand`, else `~/.cache/bandstand`) as a small `.npz` of the table and
where the samples lie in the file. The samples are converted from the file's own bytes each
time (milliseconds). A cache that cannot be written or read is parsed anew, never an error."""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.errors import OutputNotWritable
from bandstand.files import atomic_open
from bandstand.render.sf2 import layout as L
from bandstand.render.sf2.parse import Envelope, Region, SoundFont, SoundFontError, parse

__all__ = ["CACHE_ENV", "FontTable", "cache_folder", "font_table", "table_of"]

CACHE_ENV = "BANDSTAND_CACHE"
_VERSION = 1  # bump when the table's layout or the parse changes
_ENVELOPE = ("delay", "attack", "hold", "decay", "sustain", "release", "keynum_to_hold", "keynum_to_decay")
_COLUMNS: tuple[tuple[int, str], ...] = (
    (L.R_LOOP_MODE, "loop_mode"), (L.R_SAMPLE_RATE, "sample_rate"), (L.R_LOKEY, "lokey"), (L.R_HIKEY, "hikey"),
    (L.R_LOVEL, "lovel"), (L.R_HIVEL, "hivel"), (L.R_GROUP, "group"), (L.R_OFFSET, "offset"), (L.R_END, "end"),
    (L.R_LOOP_START, "loop_start"), (L.R_LOOP_END, "loop_end"), (L.R_TRANSPOSE, "transpose"), (L.R_TUNE, "tune"),
    (L.R_KEYCENTER, "pitch_keycenter"), (L.R_KEYTRACK, "pitch_keytrack"), (L.R_ATTENUATION, "attenuation"),
    (L.R_PAN, "pan"), (L.R_FILTER_Q, "initial_filter_q"), (L.R_FILTER_FC, "initial_filter_fc"),
    (L.R_MODENV_TO_PITCH, "mod_env_to_pitch"), (L.R_MODENV_TO_FC, "mod_env_to_filter_fc"),
    (L.R_MODLFO_TO_FC, "mod_lfo_to_filter_fc"), (L.R_MODLFO_TO_VOLUME, "mod_lfo_to_volume"),
    (L.R_MODLFO_DELAY, "delay_mod_lfo"), (L.R_MODLFO_FREQ, "freq_mod_lfo"), (L.R_MODLFO_TO_PITCH, "mod_lfo_to_pitch"),
    (L.R_VIBLFO_DELAY, "delay_vib_lfo"), (L.R_VIBLFO_FREQ, "freq_vib_lfo"), (L.R_VIBLFO_TO_PITCH, "vib_lfo_to_pitch"),
)


@dataclass(frozen=True)
class FontTable:
    """The regions (rows × `layout.REGION_COLUMNS`), each preset's rows [first[p], first[p+1]),
    the presets' banks and numbers (sorted as `parse` sorts them), and the samples."""

    regions: npt.NDArray[np.float64]
    first: npt.NDArray[np.int64]
    banks: npt.NDArray[np.int64]
    numbers: npt.NDArray[np.int64]
    samples: npt.NDArray[np.float32]


def _row(region: Region) -> list[float]:
    row = [0.0] * L.REGION_COLUMNS
    for column, name in _COLUMNS:
        row[column] = float(getattr(region, name))
    for base, envelope in ((L.R_AMPENV, region.ampenv), (L.R_MODENV, region.modenv)):
        for i, name in enumerate(_ENVELOPE):
            row[base + i] = float(getattr(envelope, name))
    return row


def table_of(font: SoundFont) -> FontTable:
    """The table of a parsed SoundFont."""
    rows = [_row(r) for p in font.presets for r in p.regions]
    first = np.zeros(len(font.presets) + 1, dtype=np.int64)
    np.cumsum([len(p.regions) for p in font.presets], out=first[1:])
    regions = np.array(rows, dtype=np.float64).reshape(len(rows), L.REGION_COLUMNS)
    return FontTable(regions, first, np.array([p.bank for p in font.presets], dtype=np.int64),
                     np.array([p.number for p in font.presets], dtype=np.int64), font.samples)


def _envelope_of(row: npt.NDArray[np.float64], base: int) -> Envelope:
    return Envelope(*(float(row[base + i]) for i in range(len(_ENVELOPE))))


def cache_folder() -> Path | None:
    """Where tables are kept on disk, or None when there is no such folder to be had."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg) / "bandstand"
    home = os.environ.get("HOME", "").strip()
    return Path(home) / ".cache" / "bandstand" if home else None


def _samples(data: bytes) -> tuple[int, int]:
    """Where the 16-bit samples lie in the file: (offset, count) of the sdta/smpl chunk (the
    parse has checked the file already)."""
    pos, end = 12, len(data)
    while pos + 8 <= end:
        cid = data[pos : pos + 4]
        (size,) = struct.unpack_from("<I", data, pos + 4)
        if cid == b"LIST" and data[pos + 8 : pos + 12] == b"sdta":
            inner, stop = pos + 12, min(end, pos + 8 + size)
            while inner + 8 <= stop:
                (length,) = struct.unpack_from("<I", data, inner + 4)
                if data[inner : inner + 4] == b"smpl":
                    return inner + 8, min(length, stop - inner - 8) // 2
                inner += 8 + length + (length & 1)
        pos += 8 + size + (size & 1)
    raise SoundFontError("the SoundFont has no sample data")


def _convert(data: bytes, offset: int, count: int) -> npt.NDArray[np.float32]:
    """The samples as `parse` converts them (÷ 32767, a million at a time), one zero after."""
    pcm = np.frombuffer(data, dtype="<i2", count=count, offset=offset)
    samples = np.zeros(count + 1, dtype=np.float32)
    step = 1 << 20
    for at in range(0, count, step):
        chunk = pcm[at : at + step]
        samples[at : at + len(chunk)] = chunk / 32767.0
    return samples


_TABLES: dict[bytes, FontTable] = {}
_LOCK = threading.Lock()


def font_table(data: bytes) -> FontTable:
    """The table of a SoundFont file's bytes: kept in this process, else read from the disk
    cache, else parsed (and cached). Raises `SoundFontError` for a file that is no SoundFont."""
    key = hashlib.sha256(data).digest()
    with _LOCK:
        table = _TABLES.get(key)
        if table is None:
            table = _load(data, key) or _build(data, key)
            if len(_TABLES) >= 4:
                _TABLES.pop(next(iter(_TABLES)))
            _TABLES[key] = table
        return table


def _path(key: bytes) -> Path | None:
    folder = cache_folder()
    return folder / f"sf2-{key.hex()[:40]}-v{_VERSION}.npz" if folder is not None else None


def _load(data: bytes, key: bytes) -> FontTable | None:
    path = _path(key)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as kept:
            regions, first = kept["regions"], kept["first"]
            banks, numbers, where = kept["banks"], kept["numbers"], kept["samples"]
        if (regions.ndim != 2 or regions.shape[1] != L.REGION_COLUMNS or first.ndim != 1
                or len(first) != len(banks) + 1 or len(banks) != len(numbers) or first[-1] != len(regions)):
            return None
        offset, count = (int(x) for x in where)
        if offset < 0 or count < 0 or offset + 2 * count > len(data):
            return None
        samples = _convert(data, offset, count)
        if len(regions) and (regions[:, [L.R_OFFSET, L.R_END, L.R_LOOP_START, L.R_LOOP_END]].max() > count
                             or regions[:, [L.R_OFFSET, L.R_END, L.R_LOOP_START, L.R_LOOP_END]].min() < 0):
            return None  # a damaged cache must not point past the samples
        return FontTable(regions.astype(np.float64), first.astype(np.int64), banks.astype(np.int64),
                         numbers.astype(np.int64), samples)
    except (OSError, ValueError, KeyError, EOFError, TypeError):
        return None


def _build(data: bytes, key: bytes) -> FontTable:
    """Parse the file into its table and keep the table on disk for the next process. A cache
    that cannot be written (no room, no such folder, a file where a folder should be) is not an
    error: the next process parses again."""
    table = table_of(parse(data))
    path = _path(key)
    if path is not None:
        with contextlib.suppress(OSError, SoundFontError, OutputNotWritable):
            _keep(path, table, *_samples(data))
    return table


def _keep(path: Path, table: FontTable, offset: int, count: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as fh:
        np.savez(fh, regions=table.regions, first=table.first, banks=table.banks, numbers=table.numbers,
                 samples=np.array((offset, count), dtype=np.int64))


def regions_of(table: FontTable, preset: int) -> list[Region]:
    """The regions of one preset rebuilt from the table (for tests: the table holds every
    value `Region` does)."""
    out: list[Region] = []
    for row in table.regions[table.first[preset] : table.first[preset + 1]]:
        values: dict[str, object] = {}
        for column, name in _COLUMNS:
            value = float(row[column])
            values[name] = value if name in ("attenuation", "pan", "delay_mod_lfo", "delay_vib_lfo") else int(value)
        values["ampenv"] = _envelope_of(row, L.R_AMPENV)
        values["modenv"] = _envelope_of(row, L.R_MODENV)
        out.append(Region(**values))  # type: ignore[arg-type]
    return out


def preset_for(table: FontTable, program: int, drums: bool, bank: int = 0) -> int:
    """The preset a program change selects (as the engine's program change does: the drum
    banks first on the drum channel, then the bank, then bank 0), or -1."""
    candidates = ([(128 | bank, program), (128, program), (128, 0)] if drums else []) + [(bank, program), (0, program)]
    for b, p in candidates:
        found = np.flatnonzero((table.banks == b) & (table.numbers == p))
        if len(found):
            return int(found[0])
    return -1


def voices_of(table: FontTable, preset: int, key: int, velocity: int) -> tuple[tuple[float, float], ...]:
    """The voices one note of a preset sounds, each as (release seconds, seconds until its sample
    runs out — infinite when it loops): what a note's synthesis costs is the sum over them of
    min(held + release, that length)."""
    return velocity_voices(key_voices(table, preset, key), velocity)


def velocity_voices(voices: tuple[tuple[float, float, float, float], ...],
                    velocity: int) -> tuple[tuple[float, float], ...]:
    """`voices_of` for one velocity, from its key's `key_voices`."""
    return tuple((release, length) for low, high, release, length in voices if low <= velocity <= high)


def key_voices(table: FontTable, preset: int, key: int) -> tuple[tuple[float, float, float, float], ...]:
    """The voices one key of a preset can sound, at any velocity: (lowest velocity, highest,
    release seconds, seconds until the sample runs out), in region order — worked out once for
    all the velocities a part strikes the key with (`velocity_voices`)."""
    if not 0 <= preset < len(table.first) - 1:
        return ()
    rows = table.regions[table.first[preset] : table.first[preset + 1]]
    hit = rows[(rows[:, L.R_LOKEY] <= key) & (key <= rows[:, L.R_HIKEY])]
    release = np.where(hit[:, L.R_AMPENV + 5] > 0, hit[:, L.R_AMPENV + 5], 0.01)
    looping = (hit[:, L.R_LOOP_MODE] != 0) & (hit[:, L.R_LOOP_START] < hit[:, L.R_LOOP_END])
    pitch = (key - hit[:, L.R_KEYCENTER]) * hit[:, L.R_KEYTRACK] / 1200.0
    rate = np.maximum(hit[:, L.R_SAMPLE_RATE], 1.0) * np.exp2(np.clip(pitch, -10.0, 10.0))
    length = np.where(looping, np.inf, np.maximum(hit[:, L.R_END] - hit[:, L.R_OFFSET], 0.0) / rate)
    return tuple((float(lo), float(hi), float(r), float(n))
                 for lo, hi, r, n in zip(hit[:, L.R_LOVEL], hit[:, L.R_HIVEL], release, length, strict=True))
