"""Board throughput: guarded claims/s and messages/s with 1, 4 and 8
processes, on SQLite and on PostgreSQL (BANDSTAND_TEST_POSTGRES, or a
server started by scripts/test). Prints one JSON object.

Budget: ≥ 1,000 claims/s on SQLite with 8 processes, zero double claims.

    python benchmarks/board.py [--tasks 2000] [--messages 500]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bandstand.board import Board


def _claimer(url: str, session: str, ready: Any, start: Any, out: Any) -> None:
    board = Board.open(url, migrate=False)
    ready.put(session)
    start.wait()
    claimed = []
    while (result := board.claim_next(session)) is not None:
        claimed.append(result.task_id)
    out.put(claimed)
    board.close()


def _poster(url: str, session: str, count: int, ready: Any, start: Any, out: Any) -> None:
    board = Board.open(url, migrate=False)
    ready.put(session)
    start.wait()
    for i in range(count):
        board.post("task-001", "status", f"{session} {i}", from_session=session)
    out.put(count)
    board.close()


def _run(target: Any, args_for: Any, procs: int) -> tuple[float, list[Any]]:
    ctx = mp.get_context("spawn")
    ready, start, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    workers = [ctx.Process(target=target, args=(*args_for(n), ready, start, out)) for n in range(procs)]
    for w in workers:
        w.start()
    for _ in workers:  # every worker has imported, connected and is waiting for the gun
        ready.get(timeout=600)
    t0 = time.perf_counter()
    start.set()
    results = [out.get(timeout=600) for _ in workers]
    elapsed = time.perf_counter() - t0
    for w in workers:
        w.join()
    return elapsed, results


def _fresh(store: str, tmp: Path) -> tuple[str, Any]:
    if store == "sqlite":
        return f"sqlite:///{tmp / (uuid.uuid4().hex + '.db')}", lambda: None
    if store == "sqlite-busy-handler":  # the same, without the OS writer lock: SQLite's own busy handler
        return f"sqlite:///{tmp / (uuid.uuid4().hex + '.db')}?writer_lock=0", lambda: None
    import psycopg

    base = os.environ["BANDSTAND_TEST_POSTGRES"]
    name = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return base.rsplit("/", 1)[0] + "/" + name, drop


def bench(store: str, procs: int, tasks: int, messages: int, tmp: Path) -> dict[str, Any]:
    url, drop = _fresh(store, tmp)
    try:
        board = Board.open(url)
        board.init("bench-conductor")
        for i in range(1, tasks + 1):
            board.create_task(f"task-{i:03d}")
        elapsed, results = _run(_claimer, lambda n: (url, f"m-{n}"), procs)
        claimed = [t for r in results for t in r]
        double = len(claimed) - len(set(claimed))
        per = messages // procs
        m_elapsed, _ = _run(_poster, lambda n: (url, f"w-{n}", per), procs)
        ids = [m.id for m in board.messages_since(0, limit=10 * messages)]
        board.close()
        return {
            "store": store, "processes": procs, "tasks": tasks,
            "claims_per_s": round(len(claimed) / elapsed), "double_claims": double,
            "all_claimed": sorted(claimed) == sorted(f"task-{i:03d}" for i in range(1, tasks + 1)),
            "messages_per_s": round(per * procs / m_elapsed),
            "message_ids_strictly_increasing": ids == sorted(set(ids)),
        }
    finally:
        drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=2000)
    args = parser.parse_args()
    stores = ["sqlite", "sqlite-busy-handler"] + (["postgres"] if os.environ.get("BANDSTAND_TEST_POSTGRES") else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for store in stores:
            for procs in (1, 4, 8):
                rows.append(bench(store, procs, args.tasks, args.messages, Path(tmp)))
    sqlite8 = next(r for r in rows if r["store"] == "sqlite" and r["processes"] == 8)
    print(json.dumps({
        "benchmark": "board",
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "results": rows,
        "budget": {"sqlite_8_process_claims_per_s": 1000, "measured": sqlite8["claims_per_s"],
                   "met": sqlite8["claims_per_s"] >= 1000 and sqlite8["double_claims"] == 0},
        "postgres": "measured" if "postgres" in stores else "skipped: set BANDSTAND_TEST_POSTGRES",
    }, indent=2))


if __name__ == "__main__":
    main()
