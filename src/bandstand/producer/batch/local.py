"""A batch on this machine: the songs on a pool of worker processes.

Each song runs `songs.compose_job` in a process of its own pool (started
through a fork server, so the workers begin from a clean process and import
bandstand once); results arrive as they finish and go to `on_result`. Songs
already in the output folder are kept, so running a batch again finishes
what an interrupted run left.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from bandstand.producer.batch.jobs import SongJob
from bandstand.producer.batch.songs import JobResult, clear_staging, compose_job

__all__ = ["run_local"]


def _job(job: SongJob, out_dir: str) -> JobResult:
    worker = f"local-{os.getpid()}"
    try:
        return compose_job(job, out_dir, worker=worker)
    except Exception as exc:  # one song's failure is that song's, reported, never the batch's
        return JobResult(job.index, job.folder, "failed", worker=worker, error=f"{type(exc).__name__}: {exc}")


def _leave_ctrl_c_to_the_batch() -> None:
    # Ctrl-C in a terminal reaches the whole process group: a worker that died of it could leave
    # the pool's shutdown waiting for a result that never comes; the batch cancels what has not
    # started and lets the songs being written finish
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(jobs: Sequence[SongJob], out_dir: str | Path, *, workers: int = 1,
              on_result: Callable[[JobResult], None] | None = None) -> list[JobResult]:
    """Compose every job with `workers` processes; the results in job order."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["bandstand.producer.batch.songs"])
    results: dict[int, JobResult] = {}
    workers_seen: set[int] = set()
    try:
        with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context,
                                 initializer=_leave_ctrl_c_to_the_batch) as pool:
            pending: set[Future[JobResult]] = {pool.submit(_job, job, str(out_dir)) for job in jobs}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        result = future.result()
                        results[result.index] = result
                        if on_result is not None:
                            on_result(result)
            except BaseException:
                workers_seen.update(pool._processes or {})  # the pool may end them before they clean up
                for future in pending:
                    future.cancel()  # the songs being written finish (the pool's shutdown waits for them)
                raise
    except BaseException:
        clear_staging(out_dir, workers_seen)  # the pool has stopped: what its workers left is nobody's
        raise
    return [results[j.index] for j in jobs]
