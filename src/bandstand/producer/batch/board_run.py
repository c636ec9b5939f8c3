"""Songs through a board with workers started here: the conductor in this process and
`workers` ``bandstand worker`` processes on this machine (workers on other machines may join the
same board). `conduct` is the one loop (``bandstand batch --board`` shows its every step,
``bandstand dataset --on board`` each result as the conductor sees it finished, `run_board`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

from bandstand.board import Board
from bandstand.producer.batch.board import CONDUCTOR, BatchStatus, Conductor
from bandstand.producer.batch.jobs import SongJob, batch_id
from bandstand.producer.batch.songs import JobResult

__all__ = ["conduct", "run_board"]


def conduct(jobs: Sequence[SongJob], url: str, out_dir: str | Path, *, workers: int = 1,
            session: str | None = None, stale_after: float = 60.0, heartbeat: float = 5.0,
            on_step: Callable[[BatchStatus], None] | None = None, stop: threading.Event | None = None,
            workers_stderr: bool = False) -> tuple[list[JobResult], BatchStatus]:
    """Conduct the songs on the board at `url` (as `session`, default `CONDUCTOR`) with `workers`
    local workers — their stderr this process's when `workers_stderr` — until every song is done
    or given up or `stop` is set; the results in job order (a song given up after its tries is a
    ``failed`` result) and the batch's last status."""
    songs = list(jobs)
    out = Path(out_dir)
    with Board.open(url, stale_after=timedelta(seconds=stale_after)) as board:
        conductor = Conductor(board, songs, batch_id(songs), session=session or CONDUCTOR, out=out)
        conductor.enqueue()
        procs = [subprocess.Popen([sys.executable, "-m", "bandstand", "worker", "--board", url, "--out", str(out),
                                   "--heartbeat", str(heartbeat), "--session",
                                   f"{socket.gethostname()}-{os.getpid()}-w{k + 1}"],
                                  stdout=subprocess.DEVNULL, stderr=None if workers_stderr else subprocess.DEVNULL)
                 for k in range(max(0, workers))]
        try:
            status = conductor.run(on_step=on_step, stop=stop)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait()
    by_index = dict(status.results)
    for index, why in status.given_up.items():
        by_index.setdefault(index, JobResult(index, next(j.folder for j in songs if j.index == index), "failed",
                                             error=why))
    return [by_index[j.index] for j in songs if j.index in by_index], status


def run_board(jobs: Sequence[SongJob], url: str, out_dir: str | Path, *, workers: int = 1,
              stale_after: float = 60.0, heartbeat: float = 5.0,
              on_result: Callable[[JobResult], None] | None = None) -> list[JobResult]:
    """`conduct`, each result (a song given up too) to `on_result` once, as the conductor sees it."""
    songs = list(jobs)
    told: set[int] = set()

    def tell(status: BatchStatus) -> None:
        for index in sorted(set(status.results) - told):
            told.add(index)
            if on_result is not None:
                on_result(status.results[index])
        for index, why in sorted(status.given_up.items()):
            if index not in told:
                told.add(index)
                if on_result is not None:
                    on_result(JobResult(index, next(j.folder for j in songs if j.index == index), "failed",
                                        error=why))

    return conduct(songs, url, out_dir, workers=workers, stale_after=stale_after, heartbeat=heartbeat,
                   on_step=tell)[0]
