"""One batch on the three engines, side by side. Prints one JSON object.

The same ``--songs`` songs (``--bars`` bars, no audio unless ``--audio``) composed with
``--workers`` workers by each engine, into a fresh folder each:

- ``pool``: `run_local`, a process pool on this machine;
- ``board``: `run_board`, a SQLite board with that many ``bandstand worker`` processes;
- ``ray``: `run_ray` on a local Ray cluster started for it (that many CPUs, 100 MB object store).

For each: songs per second over the wall time (the engine's start included: the pool's fork
server, the board's worker processes, Ray's cluster), the seconds the songs themselves took (the
sum of each song's compose time, as its worker measured it), and the memory (resident set, MB)
of each worker process sampled when the last song arrives. For Ray also: its local cluster's
start, and its overhead per task — an empty task's round trip one at a time, and the spread of
``--overhead-tasks`` empty tasks over the workers. Every engine's songs are checked to be the
same bytes (the full arrangement's SHA-256). The machine's core count and load are printed too:
workers past the free cores cannot add throughput.

    python benchmarks/batch.py [--songs 8] [--bars 16] [--workers 2] [--audio] [--overhead-tasks 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bandstand.producer.batch import JobResult, SongJob, read_prompts, run_local
from bandstand.producer.batch.board_run import run_board
from bandstand.producer.batch.on_ray import connect, run_ray

PROMPTS = ("funk groove in E minor", "dark trap", "jazz ballad", "rock anthem", "lofi hip hop", "synthwave",
           "reggae", "house track", "bossa nova", "metal riff")


def _children() -> dict[int, tuple[int, str]]:
    """Every process below this one: pid → (parent, command line)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        table[int(entry.name)] = (parent, command)
    mine, grew = {os.getpid()}, True
    while grew:
        more = {pid for pid, (parent, _) in table.items() if parent in mine} - mine
        grew = bool(more)
        mine |= more
    return {pid: table[pid] for pid in mine - {os.getpid()}}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _workers_rss(match: Callable[[int, str], bool]) -> list[float]:
    return sorted(round(_rss_mb(pid), 1) for pid, (parent, command) in _children().items() if match(parent, command))


def _engine(name: str, run: Callable[[Callable[[JobResult], None]], list[JobResult]], songs: int,
            match: Callable[[int, str], bool]) -> dict[str, Any]:
    memory: list[float] = []
    seen = 0

    def said(result: JobResult) -> None:
        nonlocal seen, memory
        seen += 1
        if seen == songs:  # the workers are still up: their memory now, after every song
            memory = _workers_rss(match)

    started = time.perf_counter()
    results = run(said)
    wall = time.perf_counter() - started
    failed = [r for r in results if r.status != "composed"]
    if failed:
        raise SystemExit(f"{name}: {failed[0].folder} {failed[0].status}: {failed[0].error}")
    return {"songs": len(results), "wall_s": round(wall, 2), "songs_per_s": round(len(results) / wall, 3),
            "compose_s": round(sum(r.seconds for r in results), 2), "worker_rss_mb": memory,
            "midi_sha256": [r.midi_sha256 for r in results]}


def _ray_overhead(workers: int, tasks: int) -> dict[str, Any]:
    started = time.perf_counter()
    ray = connect(None, workers=workers)
    start = time.perf_counter() - started
    try:
        def empty() -> int:
            return 0

        task = ray.remote(num_cpus=1)(empty)
        ray.get([task.remote() for _ in range(workers * 2)])  # the workers up and warm
        lone: list[float] = []
        for _ in range(min(tasks, 50)):
            t = time.perf_counter()
            ray.get(task.remote())
            lone.append(time.perf_counter() - t)
        t = time.perf_counter()
        ray.get([task.remote() for _ in range(tasks)])
        spread = time.perf_counter() - t
    finally:
        ray.shutdown()
    return {"cluster_start_s": round(start, 2), "empty_task_round_trip_ms": round(statistics.median(lone) * 1000, 2),
            "empty_tasks_per_s": round(tasks / spread, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--songs", type=int, default=8)
    parser.add_argument("--bars", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--audio", action="store_true")
    parser.add_argument("--overhead-tasks", type=int, default=200)
    args = parser.parse_args()
    text = "\n".join(PROMPTS[k % len(PROMPTS)] + ("" if k < len(PROMPTS) else f" take {k}")
                     for k in range(args.songs))
    jobs: list[SongJob] = read_prompts(text, defaults={"bars": args.bars, "render_audio": args.audio})
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    report: dict[str, Any] = {"cpus": os.cpu_count(), "load_before": [round(x, 2) for x in os.getloadavg()],
                              "songs": args.songs, "bars": args.bars, "audio": args.audio, "workers": args.workers}
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        root = Path(tmp)
        n, w = args.songs, args.workers
        report["pool"] = _engine("pool", lambda said: run_local(jobs, root / "pool", workers=w, on_result=said), n,
                                 lambda parent, c: "forkserver" in c and parent != os.getpid())  # not the server
        report["board"] = _engine(
            "board", lambda said: run_board(jobs, f"sqlite:///{root / 'board.db'}", root / "board", workers=w,
                                            heartbeat=0.5, on_result=said), n, lambda _, c: "bandstand worker " in c)
        report["ray"] = _engine("ray", lambda said: run_ray(jobs, root / "ray", workers=w, on_result=said), n,
                                lambda _, c: c.startswith("ray::") and "Agent" not in c)
        report["ray"].update(_ray_overhead(w, args.overhead_tasks))
    sums = {name: report[name].pop("midi_sha256") for name in ("pool", "board", "ray")}
    report["same_songs"] = sums["pool"] == sums["board"] == sums["ray"]
    report["load_after"] = [round(x, 2) for x in os.getloadavg()]
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
