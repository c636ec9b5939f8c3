"""Songs through a board with workers started here: the conductor in this process and
`workers` ``bandstand worker`` processes on this machine (workers on other machines may join the
same board). Each result goes to `on_result` as the conductor sees it finished."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

from bandstand.board import Board
from bandstand.producer.batch.board import CONDUCTOR, BatchStatus, Conductor
from bandstand.producer.batch.jobs import SongJob, batch_id
from bandstand.producer.batch.songs import JobResult

__all__ = ["run_board"]


def run_board(jobs: Sequence[SongJob], url: str, out_dir: str | Path, *, workers: int = 1,
              stale_after: float = 60.0, heartbeat: float = 5.0,
              on_result: Callable[[JobResult], None] | None = None) -> list[JobResult]:
    """Conduct the songs on the board at `url` with `workers` local workers; results in job order
    (a song given up after its tries is a ``failed`` result)."""
    songs = list(jobs)
    out = Path(out_dir)
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

    with Board.open(url, stale_after=timedelta(seconds=stale_after)) as board:
        conductor = Conductor(board, songs, batch_id(songs), session=CONDUCTOR, out=out)
        conductor.enqueue()
        procs = [subprocess.Popen([sys.executable, "-m", "bandstand", "worker", "--board", url, "--out", str(out),
                                   "--heartbeat", str(heartbeat), "--session",
                                   f"{socket.gethostname()}-{os.getpid()}-w{k + 1}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for k in range(max(0, workers))]
        try:
            status = conductor.run(on_step=tell)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait()
    by_index = dict(status.results)
    for index, why in status.given_up.items():
        by_index.setdefault(index, JobResult(index, next(j.folder for j in songs if j.index == index), "failed",
                                             error=why))
    return [by_index[j.index] for j in songs if j.index in by_index]
