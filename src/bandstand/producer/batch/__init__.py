"""Batches: many songs in one go (``bandstand batch PROMPTS_FILE``).

- `jobs` — the prompts file read into `SongJob`s (seed per song, folder per song, the batch id).
- `songs` — one song composed into its folder atomically and idempotently (`compose_job`).
- `copies` — a song the board finished in an earlier run brought into this run's folder (`bring`).
- `local` — the songs on a pool of processes on this machine (`run_local`).
- `board` — the songs as board tasks: the `Conductor` and the `work` loop of ``bandstand worker``
  (SQLite or PostgreSQL, workers on any number of machines, stale workers taken over).
- `sections` — a team song's sections as board tasks (`BoardSections`): musicians on other machines
  write them.
- `desk` — the batch desk clients reach through `App.batches` (a batch planned and run, a dataset, a
  worker), with `where` (``--on``, the board's URL), `board_run`, `on_ray` and `dataset` under it.
"""

from bandstand.producer.batch.board import CONDUCTOR, BatchStatus, Conductor, WorkerReport, work
from bandstand.producer.batch.jobs import SongJob, batch_id, load_prompts, read_prompts
from bandstand.producer.batch.local import run_local
from bandstand.producer.batch.songs import JobResult, compose_job, song_record

__all__ = [
    "CONDUCTOR",
    "BatchStatus",
    "Conductor",
    "JobResult",
    "SongJob",
    "WorkerReport",
    "batch_id",
    "compose_job",
    "load_prompts",
    "read_prompts",
    "run_local",
    "song_record",
    "work",
]
