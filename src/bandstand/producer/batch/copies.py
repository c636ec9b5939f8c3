"""A song the board finished in an earlier run, brought into this run's folder.

A batch run again on the same board finds its songs done; their folders are
where that run's workers wrote them. When this run's `--out` is another
folder, `bring` copies each song there — atomically (through
``OUT/.staging``, then one rename), only a finished song (its ``batch.json``
names the same job, its MIDI has the SHA-256 the board recorded) and only a
folder without symbolic links — so the folder asked for holds every song.
When the source is gone (another machine's disk, deleted since), the song is
reported as ``elsewhere`` ("already composed in DIR"), never as composed;
so is one that cannot be copied (a full disk, no permission), with the reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from dataclasses import replace
from pathlib import Path

from bandstand.errors import OutputNotWritable
from bandstand.files import refuse_links
from bandstand.producer.batch.jobs import SongJob
from bandstand.producer.batch.songs import MIDI, STAGING, JobResult, song_record

__all__ = ["bring"]


def _has_links(folder: Path) -> bool:
    try:
        refuse_links(folder)
    except OutputNotWritable:
        return True
    return False


def _same_song(folder: Path, job: SongJob, sha: str) -> bool:
    """Whether `folder` is `job`'s finished song, its MIDI the one the board recorded."""
    record = song_record(folder)
    if record is None or folder.is_symlink() or record.get("job") != job.model_dump(mode="json"):
        return False
    try:
        return not sha or hashlib.sha256((folder / MIDI).read_bytes()).hexdigest() == sha
    except OSError:
        return False


def bring(job: SongJob, result: JobResult, out: str | Path) -> JobResult:
    """`result` (the board's record of `job`, finished in an earlier run) made true of `out`: the
    song ``kept`` when its folder is there, ``copied`` from where it was written when that folder
    is readable here, else ``elsewhere`` (see the module docstring)."""
    out = Path(out)
    final = out / job.folder
    here = str(final.resolve())
    if song_record(final) is not None:
        return replace(result, status="kept", seconds=0.0, where=here)
    source = Path(result.where) if result.where else None
    if source is None or not _same_song(source, job, result.midi_sha256) or _has_links(source):
        return replace(result, status="elsewhere", seconds=0.0)
    staging = out / STAGING / f"{job.folder}.copy-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, staging, symlinks=True)
        os.rename(staging, final)
    except OSError as exc:
        if song_record(final) is not None:
            return replace(result, status="kept", seconds=0.0, where=here)  # a worker of this run was first
        why = exc.strerror or str(exc)
        return replace(result, status="elsewhere", seconds=0.0, error=f"could not copy it here: {why}"[:500])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        with contextlib.suppress(OSError):
            (out / STAGING).rmdir()
    return replace(result, status="copied", seconds=0.0, where=here, source=str(source))
