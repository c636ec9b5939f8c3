"""A dataset: many songs drawn from a grid, with every song's files and one table for the set
(``bandstand dataset SPEC.toml --out DIR``).

The spec (TOML) names a grid of genres, moods, tempos and keys and the seeds; every cell of the
grid × every seed is one song, composed with its stems, its mix and its lead sheet into a folder
of its own (atomically, by `songs.compose_job`: a song's folder either does not exist or is
complete, so an interrupted run is resumed by running it again). ``metadata.parquet`` (written
atomically after the songs) holds one row per finished song in the folder: its prompt, seed,
genre, key, tempo, metre, sections, note count per part, loudness and file paths — what pandas or
Hugging Face ``datasets`` read directly.

    [dataset]
    seeds = 2                      # or a list: [0, 7, 42]
    bars = 8
    audio = true                   # stems and the mix WAV (default true)
    parts = ["drums", "bass", "chords"]
    prompt = "{mood} {genre} at {tempo} BPM in {key}"

    [grid]
    genre = ["funk", "jazz"]
    mood = ["dark", "warm"]
    tempo = [90, 120]
    key = ["E minor", "C major"]

Everything is checked before anything is written: an unknown genre, mood, key or field, a tempo
out of range, a malformed file, or more songs than `MAX_RUN` without a ``--limit`` or a
``--shard`` are one line naming the spec.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.compose.api import MOODS, Overrides
from bandstand.errors import ConfigError, InvalidInput
from bandstand.files import read_user_text
from bandstand.producer.batch.jobs import SongJob, slug
from bandstand.producer.batch.songs import MARKER, JobResult, song_record

__all__ = ["AXES", "MAX_RUN", "TABLE", "DatasetRun", "DatasetSpec", "Progress", "Shard", "build_dataset", "load_spec",
           "parse_shard", "read_spec", "song_row", "write_table"]

AXES: tuple[str, ...] = ("genre", "mood", "tempo", "key")
MAX_RUN = 10_000  # songs in one run; a bigger set is split with --limit or --shard
TABLE = "metadata.parquet"
_DATASET_FIELDS = ("seeds", "bars", "audio", "parts", "prompt")
_RunSongs = Callable[[list[SongJob], Path, Callable[[JobResult], None]], list[JobResult]]


@dataclass(frozen=True, slots=True)
class Shard:
    """Song `index` of `count` (0-based): the songs whose number modulo `count` is `index`."""

    index: int = 0
    count: int = 1


def parse_shard(text: str) -> Shard:
    """``I/N`` (0 ≤ I < N) as a `Shard`."""
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if found is None or not 0 <= int(found[1]) < int(found[2]):
        raise InvalidInput(f"--shard {text!r}: write I/N with 0 ≤ I < N, e.g. --shard 0/4 (the first of four)")
    return Shard(int(found[1]), int(found[2]))


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """A dataset spec: the grid's axes (only those given), the seeds and the song options."""

    source: str
    grid: dict[str, tuple[Any, ...]]
    seeds: Sequence[int]  # a range for `seeds = N`: never a list of 10⁷ numbers
    bars: int | None = None
    audio: bool = True
    parts: tuple[str, ...] | None = None
    prompt: str | None = None

    @property
    def total(self) -> int:
        """Songs in the whole set: the grid's cells × the seeds."""
        return math.prod(len(v) for v in self.grid.values()) * len(self.seeds)

    def cell(self, number: int) -> dict[str, Any]:
        """The grid values of song `number` (seeds vary fastest, then the last axis)."""
        rest = number // len(self.seeds)
        chosen: dict[str, Any] = {}
        for axis in reversed(list(self.grid)):
            values = self.grid[axis]
            rest, at = divmod(rest, len(values))
            chosen[axis] = values[at]
        return {axis: chosen[axis] for axis in self.grid}

    def job(self, number: int) -> SongJob:
        """Song `number` of the set as a batch job (its folder numbered within the whole set)."""
        chosen = self.cell(number)
        prompt = self.prompt.format(**chosen) if self.prompt else _default_prompt(chosen)
        width = max(3, len(str(self.total)))
        options = {k: chosen[k] for k in ("genre", "tempo", "key") if k in chosen}
        return SongJob(index=number, prompt=prompt, seed=self.seeds[number % len(self.seeds)],
                       folder=f"{number + 1:0{width}d}-{slug(prompt)}", bars=self.bars, parts=self.parts,
                       render_audio=self.audio, **options)

    def numbers(self, *, limit: int | None = None, shard: Shard = Shard()) -> range:
        """The songs of one run: every `shard.count`-th song from `shard.index`, the first `limit` of them."""
        chosen = range(shard.index, self.total, shard.count)
        return chosen if limit is None else chosen[:limit]

    def jobs(self, *, limit: int | None = None, shard: Shard = Shard()) -> list[SongJob]:
        """The run's songs as jobs; more than `MAX_RUN` is refused (split with --limit or --shard)."""
        numbers = self.numbers(limit=limit, shard=shard)
        if len(numbers) > MAX_RUN:
            raise InvalidInput(f"{self.source}: {len(numbers):,} songs in one run (the grid has {self.total:,}); "
                               f"a run makes at most {MAX_RUN:,}: give --limit N or --shard I/N")
        return [self.job(n) for n in numbers]


def _default_prompt(chosen: dict[str, Any]) -> str:
    words = " ".join(str(chosen[a]) for a in ("mood", "genre") if a in chosen) or "song"
    if "tempo" in chosen:
        words += f" at {chosen['tempo']:g} BPM"
    if "key" in chosen:
        words += f" in {chosen['key']}"
    return words


def _list(value: Any, where: str) -> tuple[Any, ...]:
    values = tuple(value) if isinstance(value, list) else (value,)
    if not values:
        raise InvalidInput(f"{where}: an empty list; give at least one value")
    return values


def _check_axis(axis: str, values: tuple[Any, ...], where: str) -> tuple[Any, ...]:
    moods = [m.label for m in MOODS]
    out: list[Any] = []
    for value in values:
        if axis == "tempo":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidInput(f"{where}: tempo {value!r} is not a number; write BPM, e.g. tempo = [90, 120]")
            value = float(value)
        elif not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{where}: {axis} {value!r} is not a word; write e.g. {axis} = [\"…\"]")
        if axis == "mood" and value not in moods:
            raise InvalidInput(f"{where}: unknown mood {value!r}; use any of: {', '.join(moods)}")
        if axis != "mood":
            try:
                Overrides(**{axis: value}).validated()
            except (InvalidInput, ConfigError) as exc:
                raise InvalidInput(f"{where}: {exc}") from None
        out.append(value)
    return tuple(out)


def read_spec(text: str, *, source: str = "spec") -> DatasetSpec:
    """A dataset spec from its TOML text (see the module docstring)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{source}: not valid TOML ({exc}); see docs/batch.md for the dataset spec") from None
    unknown = sorted(set(data) - {"dataset", "grid"})
    if unknown:
        raise InvalidInput(f"{source}: unknown table [{unknown[0]}]; a dataset spec has [dataset] and [grid]")
    head, grid_in = data.get("dataset", {}), data.get("grid", {})
    if not isinstance(head, dict) or not isinstance(grid_in, dict):
        raise InvalidInput(f"{source}: [dataset] and [grid] are tables")
    for table, allowed, fields in (("dataset", _DATASET_FIELDS, head), ("grid", AXES, grid_in)):
        extra = sorted(set(fields) - set(allowed))
        if extra:
            raise InvalidInput(f"{source}: [{table}] {extra[0]}: unknown field; use any of: {', '.join(allowed)}")
    grid = {axis: _check_axis(axis, _list(grid_in[axis], f"{source}: [grid] {axis}"), f"{source}: [grid] {axis}")
            for axis in AXES if axis in grid_in}
    seeds_in = head.get("seeds", 1)
    if isinstance(seeds_in, int) and not isinstance(seeds_in, bool):
        if seeds_in < 1:
            raise InvalidInput(f"{source}: [dataset] seeds = {seeds_in}; give a count ≥ 1 or a list of seeds")
        if seeds_in > 2**31:
            raise InvalidInput(f"{source}: [dataset] seeds = {seeds_in:,}: seeds run from 0 to 2³¹−1")
        seeds: Sequence[int] = range(seeds_in)
    elif isinstance(seeds_in, list) and seeds_in and all(isinstance(s, int) and not isinstance(s, bool)
                                                         and 0 <= s < 2**31 for s in seeds_in):
        seeds = tuple(seeds_in)
    else:
        raise InvalidInput(f"{source}: [dataset] seeds: a count (seeds = 3) or a list of seeds from 0 to 2³¹−1")
    bars = head.get("bars")
    if bars is not None:
        from bandstand.compose.api import Overrides

        if isinstance(bars, bool) or not isinstance(bars, int):
            raise InvalidInput(f"{source}: [dataset] bars {bars!r} is not a whole number")
        try:
            Overrides(bars=bars).validated()
        except InvalidInput as exc:
            raise InvalidInput(f"{source}: [dataset] {exc}") from None
    audio = head.get("audio", True)
    if not isinstance(audio, bool):
        raise InvalidInput(f"{source}: [dataset] audio = {audio!r}; write true or false")
    parts = head.get("parts")
    if parts is not None:
        from bandstand.compose.api import make_config

        try:
            parts = tuple(make_config(parts=parts).parts or ())
        except (InvalidInput, ConfigError) as exc:
            raise InvalidInput(f"{source}: [dataset] {exc}") from None
    prompt = head.get("prompt")
    if prompt is not None:
        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidInput(f"{source}: [dataset] prompt: a text with {{genre}}, {{mood}}, {{tempo}} or {{key}}")
        names = set(re.findall(r"{(\w*)[^}]*}", prompt))
        missing = sorted(names - set(grid))
        if missing:
            raise InvalidInput(f"{source}: [dataset] prompt uses {{{missing[0]}}}, which [grid] does not set; "
                               f"the grid sets {', '.join(grid) or 'nothing'}")
    return DatasetSpec(source=source, grid=grid, seeds=seeds, bars=bars, audio=audio, parts=parts, prompt=prompt)


def load_spec(path: str | Path) -> DatasetSpec:
    """Read a dataset spec file (TOML)."""
    source = Path(path)
    text = read_user_text(source, "dataset spec", "a TOML file (see docs/batch.md)")
    return read_spec(text, source=str(source))


# --------------------------------------------------------------------------- progress


@dataclass(slots=True)
class Progress:
    """A run's counts and its estimated time left (from the songs composed so far)."""

    total: int
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    composed: int = 0
    kept: int = 0
    failed: int = 0

    def add(self, result: JobResult) -> None:
        self.done += 1
        self.composed += result.status == "composed"
        self.kept += result.status == "kept"
        self.failed += result.status == "failed"

    def eta(self) -> float | None:
        """Seconds left at the pace of this run's composed songs (None before the first)."""
        if self.composed == 0:
            return None
        pace = (time.monotonic() - self.started) / self.composed
        return pace * (self.total - self.done)

    def line(self) -> str:
        eta = self.eta()
        left = "ETA —" if eta is None else f"ETA {int(eta) // 60}m{int(eta) % 60:02d}s"
        return (f"{self.done}/{self.total} songs ({self.composed} composed, {self.kept} kept, "
                f"{self.failed} failed), {left}")


# --------------------------------------------------------------------------- the table


def _song_files(folder: Path, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The song's files, as paths relative to the dataset's folder (``007-…/midi/bass.mid``)."""
    root = folder.parent

    def rel(path: Path) -> str | None:
        return path.relative_to(root).as_posix() if path.is_file() else None

    return {"midi_path": rel(folder / "midi" / "full-arrangement.mid"),
            "part_midi_paths": [rel(folder / str(p.get("file", ""))) for p in parts],
            "mix_path": rel(folder / "audio" / "full-arrangement.wav"),
            "stem_paths": sorted(p.relative_to(root).as_posix() for p in (folder / "audio" / "stems").glob("*.wav")),
            "lead_sheet_path": rel(folder / "notes" / "lead-sheet.musicxml")}


def song_row(folder: Path) -> dict[str, Any] | None:
    """One finished song's row of the table (None for a folder that is not a finished song)."""
    record = song_record(folder)
    if record is None:
        return None
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    job = record.get("job", {})
    parts = manifest.get("parts", [])
    files = _song_files(folder, parts)
    loudness = None
    if files["mix_path"] is not None:
        from bandstand.render.loudness import wav_loudness

        value = wav_loudness(folder.parent / files["mix_path"])
        loudness = round(value, 2) if math.isfinite(value) else None
    genre = manifest.get("genre") or []
    return {
        "song": folder.name,
        "prompt": manifest.get("prompt", job.get("prompt")),
        "seed": int(manifest.get("seed", job.get("seed", 0))),
        "genre": job.get("genre") or (genre[0] if isinstance(genre, list) and genre else genre or None),
        "key": manifest.get("key"),
        "tempo": float(manifest["tempo"]) if manifest.get("tempo") is not None else None,
        "metre": manifest.get("time_signature"),
        "bars": manifest.get("total_bars"),
        "sections": [s.get("name", "") for s in manifest.get("sections", [])],
        "section_bars": [int(s.get("bars", 0)) for s in manifest.get("sections", [])],
        "parts": [p.get("role", "") for p in parts],
        "part_notes": [int(p.get("note_count", 0)) for p in parts],
        "notes": sum(int(p.get("note_count", 0)) for p in parts),
        "loudness_lufs": loudness,
        **files,
        "midi_sha256": record.get("midi_sha256", ""),
    }


def _rows(out: Path) -> Iterator[dict[str, Any]]:
    for folder in sorted(p for p in out.iterdir() if p.is_dir() and (p / MARKER).is_file()):
        row = song_row(folder)
        if row is not None:
            yield row


def write_table(out: str | Path) -> tuple[Path, int]:
    """Write ``OUT/metadata.parquet`` (atomically) from every finished song in `out`; returns its
    path and its rows. Each part's notes are columns too (``notes_drums``, …: empty where a song
    has no such part), so a table needs no unpacking to be filtered by instrument."""
    pa, pq = _arrow()
    folder = Path(out)
    rows = list(_rows(folder))
    roles = sorted({r for row in rows for r in row["parts"]})
    for row in rows:
        counts = dict(zip(row["parts"], row["part_notes"], strict=True))
        for role in roles:
            row[f"notes_{role}"] = counts.get(role)
    table = pa.Table.from_pylist(rows) if rows else pa.table({"song": pa.array([], pa.string())})
    target = folder / TABLE
    temp = folder / f".{TABLE}.{os.getpid()}.tmp"
    try:
        pq.write_table(table, temp)
        os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return target, len(rows)


def _arrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError("the dataset table needs pyarrow: pip install '.[ray]' in the checkout (or pip install pyarrow)") \
            from None
    return pa, pq


@dataclass(frozen=True, slots=True)
class DatasetRun:
    """What one run did: its songs' results, the table and how many rows it holds."""

    results: list[JobResult]
    table: Path
    rows: int
    total: int


def build_dataset(spec: DatasetSpec, out: str | Path, run_songs: _RunSongs, *, limit: int | None = None,
                  shard: Shard = Shard(), on_result: Callable[[JobResult, Progress], None] | None = None) -> DatasetRun:
    """Compose the run's songs of `spec` into `out` with `run_songs` (the local pool, the board or
    Ray: each takes the jobs, the folder and a callback per song) and write the table. An
    interrupted run (Ctrl-C) still writes the table of the songs finished, then stops."""
    _arrow()
    jobs = spec.jobs(limit=limit, shard=shard)
    folder = Path(out)
    progress = Progress(len(jobs))

    def said(result: JobResult) -> None:
        progress.add(result)
        if on_result is not None:
            on_result(result, progress)

    folder.mkdir(parents=True, exist_ok=True)
    try:
        results = run_songs(jobs, folder, said)
    finally:
        table, rows = write_table(folder)
    return DatasetRun(results, table, rows, spec.total)

