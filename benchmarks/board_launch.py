"""The launcher end to end: `bandstand board launch` on the built-in backend (a Conductor session
in-process, N musician processes, a short song per task), with 1, 2 and 3 musicians on SQLite (and
PostgreSQL when BANDSTAND_TEST_POSTGRES names a server). Prints one JSON object: per run the wall
seconds, tasks/s, approvals, and the musicians' exit codes.

    python benchmarks/board_launch.py [--tasks 6] [--musicians 1,2,3]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bandstand.producer.board.board_launch import LaunchRequest, launch


def _postgres() -> str | None:
    base = os.environ.get("BANDSTAND_TEST_POSTGRES")
    if not base:
        return None
    import psycopg

    name = "launch_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.rsplit("/", 1)[0] + "/" + name


def _drop(url: str) -> None:
    import psycopg

    with psycopg.connect(os.environ["BANDSTAND_TEST_POSTGRES"], autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def run(url: str, workdir: Path, musicians: int, tasks: int) -> dict[str, Any]:
    started = time.perf_counter()
    outcome = launch(LaunchRequest(musicians=musicians, board=url, tasks=str(tasks), workdir=workdir,
                                   heartbeat=1.0, stale_after=30.0, poll=0.2))
    seconds = time.perf_counter() - started
    complete = sum(1 for state, _ in outcome.tasks.values() if state == "complete")
    return {"musicians": musicians, "tasks": tasks, "complete": complete, "seconds": round(seconds, 2),
            "tasks_per_s": round(complete / seconds, 3), "approvals": outcome.progress.approved,
            "musician_exit_codes": sorted(set(outcome.musicians.values()), key=str)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--musicians", default="1,2,3")
    args = parser.parse_args()
    counts = [int(n) for n in args.musicians.split(",")]
    results: dict[str, Any] = {"cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2), "sqlite": []}
    with tempfile.TemporaryDirectory(prefix="bandstand-launch-") as tmp:
        for n in counts:
            folder = Path(tmp) / f"sqlite-{n}"
            results["sqlite"].append(run(f"sqlite:///{folder / 'board.db'}", folder, n, args.tasks))
        if (pg := _postgres()) is not None:
            folder = Path(tmp) / "postgres"
            try:
                results["postgres"] = [run(pg, folder, counts[-1], args.tasks)]
            finally:
                _drop(pg)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
