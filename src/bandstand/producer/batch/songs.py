"""One song of a batch, written atomically and idempotently.

A song is composed into a staging folder (``OUT/.staging/<folder>.<worker>``)
and only then renamed to ``OUT/<folder>`` — a rename of a whole folder, so
the song's folder either does not exist or is complete. A folder that
exists already is a song that was composed: it is kept, not composed again
(a worker that died after the rename, a batch run again). Two workers that
race both compose, one rename wins and the other's staging folder is thrown
away. Every song folder holds ``batch.json``: the job, who composed it and the
SHA-256 of its full MIDI arrangement.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bandstand.errors import RuntimeFailure
from bandstand.files import write_json
from bandstand.producer.batch.jobs import SongJob

__all__ = ["MARKER", "MIDI", "STAGING", "JobResult", "clear_staging", "compose_job", "song_record"]

MARKER = "batch.json"
MIDI = "midi/full-arrangement.mid"
STAGING = ".staging"


@dataclass(frozen=True, slots=True)
class JobResult:
    """How a song went: ``composed`` now, ``kept`` (its folder was there already), ``copied``
    (finished on the board in an earlier run, copied from `source`), ``elsewhere`` (finished in an
    earlier run in `where`, not here) or ``failed``. `where` is the song's folder (absolute)."""

    index: int
    folder: str
    status: str
    midi_sha256: str = ""
    seconds: float = 0.0
    worker: str = ""
    error: str = ""
    where: str = ""
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def said(self) -> str:
        """The status as a person reads it (the table, the progress lines)."""
        if self.status == "copied":
            return f"copied from {self.source}"
        if self.status == "elsewhere":
            where = f"already composed in {self.where or 'a folder the board does not name'}"
            return where + (f" ({self.error})" if self.error else "")
        return self.status + (f": {self.error}" if self.error else "")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def song_record(folder: Path) -> dict[str, Any] | None:
    """A finished song's `batch.json` (None when the folder is not a finished song)."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _compose(job: SongJob, staging: Path, sections: Any) -> Path:
    """Compose the job under `staging`; returns the session folder."""
    if job.team:
        from bandstand.producer.teams import TeamOptions, run_team

        session = staging / "song"
        options = TeamOptions(seed=job.seed, compose=job.compose_options(), session_dir=str(session), accept=True,
                              jobs=sections)
        asyncio.run(run_team(job.prompt, options))
        if job.render_audio:
            from bandstand.producer.sessions.projects import open_project

            open_project(session).ensure_audio()
        return session
    from bandstand.producer.composing.compose import compose_song

    result = compose_song(job.prompt, assume_defaults=True, seed=job.seed, out_dir=str(staging),
                          render_audio=job.render_audio, **job.compose_options()).result
    if result.status not in ("completed", "completed_partial"):
        reason = result.state.error.message if result.state.error else result.status
        raise RuntimeFailure(f"song {job.index + 1} ({job.folder}) was not composed: {reason}")
    return result.session_dir


def compose_job(job: SongJob, out_dir: str | Path, *, worker: str = "", sections: Any = None) -> JobResult:
    """Compose `job` into ``out_dir/<folder>`` unless it is there already (see the module docstring).
    A team song's sections go to `sections` (a `teams.SectionJobs`: the board) when given."""
    out = Path(out_dir)
    final = out / job.folder
    where = str(final.resolve())
    record = song_record(final)
    if record is not None:  # taken over after its worker renamed it and died before its clean-up
        _clear_attempts(out, job.folder)
        return JobResult(job.index, job.folder, "kept", str(record.get("midi_sha256", "")), 0.0,
                         str(record.get("worker", "")), where=where)
    started = time.perf_counter()
    staging = out / STAGING / f"{job.folder}.{worker or 'local'}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        session = _compose(job, staging, sections)
        sha = _sha(session / MIDI)
        write_json(session / MARKER, {"job": job.model_dump(mode="json"), "worker": worker, "midi_sha256": sha,
                                      "composed_at": time.time()})
        try:
            os.rename(session, final)
        except OSError:
            if song_record(final) is None:
                raise
            record = song_record(final) or {}
            shutil.rmtree(staging, ignore_errors=True)
            _clear_attempts(out, job.folder)
            return JobResult(job.index, job.folder, "kept", str(record.get("midi_sha256", "")), 0.0,
                             str(record.get("worker", "")), where=where)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _clear_attempts(out, job.folder)
    return JobResult(job.index, job.folder, "composed", sha, round(time.perf_counter() - started, 3), worker,
                     where=where)


def _clear_attempts(out: Path, folder: str) -> None:
    """What earlier attempts at the song `folder` left in the staging folder (a worker stopped
    mid-song, or after its rename but before its clean-up), then the staging folder if empty."""
    for leftover in (out / STAGING).glob(f"{folder}.*"):
        shutil.rmtree(leftover, ignore_errors=True)
    with contextlib.suppress(OSError):
        (out / STAGING).rmdir()


def clear_staging(out_dir: str | Path, pids: set[int]) -> None:
    """Remove the staging folders the processes `pids` left (they were stopped mid-song: a
    worker ended by the pool before its own clean-up ran), then the staging folder if empty.
    Folders of other processes — another run on the same folder — are left alone."""
    staging = Path(out_dir) / STAGING
    if not staging.is_dir():
        return
    for entry in staging.iterdir():
        _, _, pid = entry.name.rpartition("-")
        if pid.isdigit() and int(pid) in pids:
            shutil.rmtree(entry, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.rmdir()
