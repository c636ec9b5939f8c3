"""The batch desk (`App.batches`): many songs at once into one folder, as the clients ask for them — the
songs of a prompts file (`plan`, `run`), a dataset (`plan_dataset`, `build_dataset`), a board's worker
(`work`). Where the songs run is decided here, once, from what a person typed (`--on`, `--board`,
`--workers`, `--runtime-env`): this machine's pool (`local.run_local`), a board's workers
(`board_run`; the board named by a URL or a SQLite file's path) or Ray (`on_ray.run_ray`). A plan is
read and checked before anything is written; the client shows its progress and what it made."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.errors import InvalidInput
from bandstand.producer.batch.jobs import SongJob, batch_id, load_prompts
from bandstand.producer.batch.songs import JobResult
from bandstand.producer.batch.where import Where, parse_on, parse_runtime_env
from bandstand.producer.board.desk import board_url
from bandstand.producer.requests_models import BatchRequest, DatasetRequest, WorkerRequest

if TYPE_CHECKING:
    from bandstand.producer.batch.board import BatchStatus, WorkerReport
    from bandstand.producer.batch.dataset import DatasetRun, DatasetSpec, Progress, Shard
    from bandstand.protocol.jsonvalue import JSONObject

__all__ = ["BatchDesk", "BatchPlan", "BatchRun", "DatasetPlan", "RunSongs"]

RunSongs = Callable[[list[SongJob], Path, Callable[[JobResult], None]], list[JobResult]]
"""Where songs run, as one function: (the jobs, the folder, a callback per song) → the results in job order."""


@dataclass(frozen=True, slots=True)
class BatchPlan:
    """A batch read and checked, nothing run yet: its songs, its id (`jobs.batch_id`), where they run (on a
    board, `where.address` is the board's URL) and Ray's runtime environment."""

    request: BatchRequest
    jobs: list[SongJob]
    ident: str
    where: Where
    runtime_env: JSONObject | None

    @property
    def cluster(self) -> str | None:
        """The Ray cluster the songs run on as said: the address given, RAY_ADDRESS's, else "local"."""
        if self.where.kind != "ray":
            return None
        return self.where.address or os.environ.get("RAY_ADDRESS") or "local"


@dataclass(frozen=True, slots=True)
class BatchRun:
    """A batch's results in job order; on a board, its last status too (takeovers, songs given up)."""

    results: list[JobResult]
    status: BatchStatus | None = None


@dataclass(frozen=True, slots=True)
class DatasetPlan:
    """A dataset read and checked, nothing written yet: its spec, this run's shard and number of songs, where
    they run and Ray's runtime environment."""

    request: DatasetRequest
    spec: DatasetSpec
    shard: Shard
    songs: int
    where: Where
    runtime_env: JSONObject | None


def _where(on: str | None, board: str | None) -> Where:
    where = parse_on(on, board)
    return Where("board", board_url(where.address)) if where.kind == "board" and where.address else where


class BatchDesk:
    """A batch's, a dataset's or a worker's songs in the folder `out` (see the module docstring)."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)

    def plan(self, request: BatchRequest) -> BatchPlan:
        """The prompts file read into songs (`jobs.load_prompts`) and where they run, checked: a mistake is one
        line (`InvalidInput`) before anything runs."""
        where = _where(request.on, request.board)
        runtime_env = parse_runtime_env(request.runtime_env)
        defaults: dict[str, bool | int] = {"render_audio": request.audio}  # SongJob fields
        if request.team:
            defaults["team"] = True
        if request.bars is not None:
            defaults["bars"] = request.bars
        jobs = load_prompts(Path(request.prompts), seed=request.seed, defaults=defaults)
        if request.workers < 1 and where.kind == "ray":
            raise InvalidInput("--on ray --workers 0: give the local cluster's CPUs (at least 1)")
        if request.workers < 1 and where.kind == "local":
            raise InvalidInput("--workers 0 needs --board (workers elsewhere take the songs)")
        return BatchPlan(request, jobs, batch_id(jobs), where, runtime_env)

    def run(self, plan: BatchPlan, *, on_result: Callable[[JobResult], None] | None = None,
            on_step: Callable[[BatchStatus], None] | None = None, stop: threading.Event | None = None) -> BatchRun:
        """Compose the plan's songs where it says: each result to `on_result` as it arrives — on a board, each
        step of the conductor to `on_step` instead (its workers' lines on this stderr), until done or `stop`."""
        request = plan.request
        if plan.where.kind != "board":
            return BatchRun(self._engine(plan.where, request.workers, plan.runtime_env)(plan.jobs, self.out,
                                                                                       on_result or _ignore))
        from bandstand.producer.batch.board_run import conduct

        assert plan.where.address is not None
        results, status = conduct(plan.jobs, plan.where.address, self.out, workers=request.workers,
                                  session=request.session, stale_after=request.stale_after,
                                  heartbeat=request.heartbeat, on_step=on_step, stop=stop, workers_stderr=True)
        return BatchRun(results, status)

    def plan_dataset(self, request: DatasetRequest) -> DatasetPlan:
        """The dataset spec read (`dataset.load_spec`), this run's songs counted and where they run checked: a
        mistake, or more songs than one run takes, is one line before anything is written."""
        from bandstand.producer.batch.dataset import Shard, load_spec, parse_shard

        where = _where(request.on, request.board)
        runtime_env = parse_runtime_env(request.runtime_env)
        shard = parse_shard(request.shard) if request.shard else Shard()
        spec = load_spec(Path(request.spec))
        songs = len(spec.jobs(limit=request.limit, shard=shard))
        if where.kind == "ray":
            from bandstand.producer.batch.on_ray import check_out

            check_out(self.out)
        return DatasetPlan(request, spec, shard, songs, where, runtime_env)

    def build_dataset(self, plan: DatasetPlan, *,
                      on_result: Callable[[JobResult, Progress], None] | None = None) -> DatasetRun:
        """Compose the run's songs where the plan says, then write the table (`dataset.build_dataset`)."""
        from bandstand.producer.batch.dataset import build_dataset

        request = plan.request
        return build_dataset(plan.spec, self.out, self._engine(plan.where, request.workers, plan.runtime_env),
                             limit=request.limit, shard=plan.shard, on_result=on_result)

    def work(self, request: WorkerRequest, *, stop: threading.Event | None = None,
             on_result: Callable[[JobResult], None] | None = None) -> WorkerReport:
        """Be a worker of the board until idle, done or `stop` (`board.work`); its report names its session."""
        from bandstand.board import Board
        from bandstand.producer.batch.board import work

        agents = team = None
        if request.config is not None:
            from bandstand.producer.engines.backends import load_config

            agents = load_config(request.config)
            team = agents.team
        session = request.session or f"worker-{socket.gethostname()}-{os.getpid()}"
        with Board.open(board_url(request.board)) as opened:
            return work(opened, str(self.out), session, heartbeat=request.heartbeat, poll=request.poll,
                        idle_exit=request.idle_exit, max_tasks=request.max_tasks, stop=stop, on_result=on_result,
                        agents=agents, team=team)

    @staticmethod
    def _engine(where: Where, workers: int, runtime_env: JSONObject | None) -> RunSongs:
        """Where the songs run, as one function (a board's, with its defaults, gives each result once)."""
        if where.kind == "ray":
            from bandstand.producer.batch.on_ray import run_ray

            return lambda jobs, out, said: run_ray(jobs, out, address=where.address, workers=workers,
                                                   runtime_env=runtime_env, on_result=said)
        if where.kind == "board":
            from bandstand.producer.batch.board_run import run_board

            url = where.address or ""
            return lambda jobs, out, said: run_board(jobs, url, out, workers=workers, on_result=said)
        from bandstand.producer.batch.local import run_local

        return lambda jobs, out, said: run_local(jobs, out, workers=workers, on_result=said)


def _ignore(result: JobResult) -> None:
    return None
