"""A batch on a Ray cluster: each song one Ray task (``bandstand batch PROMPTS --on ray``).

The cluster is the one at `address` (``HOST:PORT`` of a cluster's head, or ``ray://HOST:PORT``
for Ray Client), else the one ``RAY_ADDRESS`` names, else a local one started for the batch
(`workers` CPUs, a 100 MB object store, no dashboard) and stopped after it. Each task runs
`songs.compose_job` on a worker: the song is composed in a staging folder and renamed into
``OUT/<folder>`` whole, so a task Ray retries after its worker died (`max_retries`) never leaves
two copies or half a song — a folder already renamed is kept, a staging folder the dead worker
left is cleared by the retry. The output folder is a path every worker sees (this machine's, or
a shared file system); object stores (``s3://`` …) are not supported. Ray is an optional extra
(``pip install '.[ray]'`` in the checkout), imported only here.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bandstand.errors import ConfigError, InvalidInput, RuntimeFailure
from bandstand.producer.batch.jobs import SongJob
from bandstand.producer.batch.songs import JobResult, compose_job

__all__ = ["INSTALL", "LOCAL_OBJECT_STORE", "check_out", "connect", "run_ray"]

INSTALL = "--on ray needs Ray, which is not installed here: pip install '.[ray]' in the checkout (or pip install 'ray>=2.40' pyarrow)"
LOCAL_OBJECT_STORE = 100 * 1024 * 1024
def _ship() -> str:
    """How to bring bandstand to a cluster's workers: this checkout's package as a runtime
    environment's module, or installed on every node."""
    package = Path(__file__).resolve().parents[2]
    return (f'ship it with a runtime environment: --runtime-env \'{{"py_modules": ["{package}"]}}\' (its '
            'dependencies installed on the nodes, or listed under "pip"), or install bandstand on every node')


def _ray() -> Any:
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # Ray's core logs to stderr; we say what went wrong
    try:
        import ray
    except ImportError:
        raise ConfigError(INSTALL) from None
    return ray


def check_out(out_dir: str | Path) -> Path:
    """The output folder as a local path; a URL (an object store) is refused."""
    text = os.fspath(out_dir)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:/", text):  # s3://… (a Path made of it keeps one slash: s3:/…)
        raise InvalidInput(f"--out {text}: object stores are not supported; give a folder every Ray worker "
                           "can write (a local path, or a shared file system mounted on each node)")
    return Path(text).resolve()


def _reachable(address: str) -> None:
    """A quick TCP look at the cluster's address, so a wrong one is one line, not Ray's retries."""
    host_port = address.removeprefix("ray://")
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        raise InvalidInput(f"the Ray address {address!r}: write HOST:PORT or ray://HOST:PORT, e.g. ray://10.0.0.5:10001")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except OSError as exc:
        raise InvalidInput(f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one there "
                           "('ray start --head') or give its address (--on ray://HOST:PORT, or RAY_ADDRESS)") from None


def _compose(job: SongJob, out_dir: str) -> JobResult:
    worker = f"ray-{socket.gethostname()}-{os.getpid()}"
    try:
        return compose_job(job, out_dir, worker=worker)
    except Exception as exc:  # one song's failure is that song's, reported, never the batch's
        return JobResult(job.index, job.folder, "failed", worker=worker, error=f"{type(exc).__name__}: {exc}")


def connect(address: str | None, *, workers: int = 2, runtime_env: dict[str, Any] | None = None) -> Any:
    """Connect to the cluster (see the module docstring); returns the ray module, connected."""
    ray = _ray()
    address = address or os.environ.get("RAY_ADDRESS") or None
    options: dict[str, Any] = {"log_to_driver": False, "include_dashboard": False, "logging_level": "ERROR",
                               "configure_logging": True}
    if runtime_env:
        options["runtime_env"] = runtime_env
    if address is None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=max(1, workers), object_store_memory=LOCAL_OBJECT_STORE, **options)
        return ray
    if address != "auto":
        _reachable(address)
    options.pop("include_dashboard")
    try:
        ray.init(address=address, **options)
    except ImportError as exc:  # Ray Client (ray://) without its extra
        raise ConfigError(f"{address} is a Ray Client address, which needs pip install 'ray[client]' "
                          f"({exc}); or give the head's HOST:PORT in RAY_ADDRESS") from None
    except ConnectionError as exc:
        raise InvalidInput(f"cannot join the Ray cluster at {address}: {str(exc).splitlines()[0]}") from None
    return ray


def _check_workers(ray: Any) -> None:
    """Ask a worker where its bandstand is, with a function sent by value (defined in here, it
    needs no bandstand to run), so a cluster without it is one line before any song is sent."""

    def where_is_bandstand() -> str:
        import importlib.util

        found = importlib.util.find_spec("bandstand")
        return "" if found is None else str(found.origin or "")

    probe = ray.remote(num_cpus=0)(where_is_bandstand)
    try:
        where = ray.get(probe.remote(), timeout=120)
    except Exception as exc:
        raise RuntimeFailure(f"the Ray cluster's workers do not answer ({type(exc).__name__}); {_ship()}") from None
    if not where:
        raise ConfigError(f"the Ray cluster's workers have no bandstand; {_ship()}")


def run_ray(jobs: Sequence[SongJob], out_dir: str | Path, *, address: str | None = None, workers: int = 2,
            max_retries: int = 3, runtime_env: dict[str, Any] | None = None,
            on_result: Callable[[JobResult], None] | None = None) -> list[JobResult]:
    """Compose every job as a Ray task (retried `max_retries` times when its worker dies); the
    results in job order, each given to `on_result` as it arrives."""
    out = check_out(out_dir)
    with contextlib.redirect_stdout(sys.stderr):  # Ray's own notes ("(raylet) A worker died…") are not output
        return _run(out, jobs, address, workers, max_retries, runtime_env, on_result)


def _run(out: Path, jobs: Sequence[SongJob], address: str | None, workers: int, max_retries: int,
         runtime_env: dict[str, Any] | None, on_result: Callable[[JobResult], None] | None) -> list[JobResult]:
    ray = connect(address, workers=workers, runtime_env=runtime_env)
    try:
        _check_workers(ray)
        out.mkdir(parents=True, exist_ok=True)
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_compose)
        pending = {task.remote(job, str(out)): job for job in jobs}
        results: dict[int, JobResult] = {}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                job = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # the task's worker died more often than max_retries
                    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    result = JobResult(job.index, job.folder, "failed", error=f"{type(exc).__name__}: {reason}")
                results[result.index] = result
                if on_result is not None:
                    on_result(result)
        return [results[j.index] for j in jobs]
    finally:
        ray.shutdown()  # a local cluster started for the batch stops with it
