"""Directing without waiting for a full render (issue #23): `bandstand accept` of a one-part
edit and `bandstand undo`, in new processes as a user types them, on a 64-bar song composed
with `bandstand compose PROMPT --bars 64` (which renders the WAV but leaves the session's render
cache, `state/render-cache/`, empty: the first studio render fills it, so `listen_after_accept`
plays every part and `listen_after_undo` reads the unchanged ones back).

Each round copies the composed session once per way of running (the WAV, stems and cache
hard-linked: they are only ever replaced by a rename), proposes "make the bass busier"
(`bandstand edit`, untimed), then times:

- no_audio: `accept --no-audio`, `undo --no-audio` — the reference;
- listen (the default): `accept`, then `render SESSION` (someone listens: the bass played,
  the rest read from the cache), `undo`, then `render SESSION` again (nothing played);
- audio_now: `accept --audio` and `undo --audio`, the cache warm;
- full_render: `accept --audio` and `undo --audio` with the cache emptied before each — every
  track played, as before the cache.

Reported per command: the median (and all) of the wall time and of the child's CPU time (user
+ system), in ms; the ratio of each accept and undo to its --no-audio median, against the
target of 1.5 (on CPU, which other load on the machine does not inflate, and on wall); the load
average before and after; the cache's size.

    python benchmarks/accept.py [--rounds 3] [--bars 64] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROMPT = "late-night neo-soul with a warm bass"
EDIT = "make the bass busier"
TARGET = 1.5
LINKED = ("audio", "state/render-cache")  # replaced by renames only: hard links are safe


def bandstand_command() -> list[str]:
    """The `bandstand` console script beside this interpreter (as installed), else `python -m bandstand`."""
    script = Path(sys.executable).with_name("bandstand")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "bandstand"]


def run(*args: str) -> tuple[float, float]:
    """One command in a new process: wall and CPU (user + system) ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([*bandstand_command(), *args], capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"bandstand {' '.join(args)} failed:\n{proc.stderr}")
    return wall, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def copy_session(source: Path, target: Path) -> Path:
    def copy(src: str, dst: str) -> None:
        rel = Path(src).relative_to(source).as_posix()
        if rel.startswith(LINKED):
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=copy)
    return target


def cache_bytes(session: Path) -> int:
    return sum(p.stat().st_size for p in (session / "state" / "render-cache").glob("*.track"))


def no_cache(session: Path) -> None:
    shutil.rmtree(session / "state" / "render-cache", ignore_errors=True)


WAYS: dict[str, list[tuple[str, list[str]]]] = {
    "no_audio": [("accept", ["accept", "{s}", "--no-audio"]), ("undo", ["undo", "{s}", "--no-audio"])],
    "listen": [("accept", ["accept", "{s}"]), ("listen_after_accept", ["render", "{s}"]),
               ("undo", ["undo", "{s}"]), ("listen_after_undo", ["render", "{s}"])],
    "audio_now": [("accept", ["accept", "{s}", "--audio"]), ("undo", ["undo", "{s}", "--audio"])],
    "full_render": [("accept", ["accept", "{s}", "--audio"]), ("undo", ["undo", "{s}", "--audio"])],
}


def summary(samples: list[tuple[float, float]]) -> dict[str, Any]:
    return {"wall_ms_median": round(statistics.median(w for w, _ in samples)),
            "cpu_ms_median": round(statistics.median(c for _, c in samples)),
            "wall_ms": [round(w) for w, _ in samples], "cpu_ms": [round(c) for _, c in samples]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bars", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bandstand-accept-") as tmp:
        root = Path(tmp)
        run("compose", PROMPT, "--bars", str(args.bars), "--seed", str(args.seed), "--out", str(root / "composed"),
            "--json")
        composed = next((root / "composed").glob("session-*"))
        cache_after_compose = cache_bytes(composed)
        times: dict[str, dict[str, list[tuple[float, float]]]] = {way: {} for way in WAYS}
        for round_ in range(args.rounds):
            for way, steps in WAYS.items():
                session = copy_session(composed, root / f"{way}-{round_}")
                run("edit", str(session), EDIT)
                for name, argv in steps:
                    if way == "full_render":
                        no_cache(session)
                    times[way].setdefault(name, []).append(run(*(a.format(s=session) for a in argv)))
                if way == "listen" and round_ == 0:
                    cache_after_edits = cache_bytes(session)
                shutil.rmtree(session)
            loads.append(os.getloadavg()[0])
    report: dict[str, Any] = {"benchmark": "accept", "bars": args.bars, "rounds": args.rounds,
                              "command": " ".join(Path(c).name for c in bandstand_command())}
    for way, steps in times.items():
        report[way] = {name: summary(samples) for name, samples in steps.items()}
    ratios: dict[str, Any] = {}
    for way in ("listen", "audio_now", "full_render"):
        for step in ("accept", "undo"):
            ref = report["no_audio"][step]
            got = report[way][step]
            cpu = got["cpu_ms_median"] / ref["cpu_ms_median"]
            wall = got["wall_ms_median"] / ref["wall_ms_median"]
            ratios[f"{way}.{step}"] = {"cpu": round(cpu, 2), "wall": round(wall, 2),
                                       "within_target": cpu <= TARGET}
    report["ratio_to_no_audio"] = ratios
    report["target_ratio"] = TARGET
    report["cache_mb"] = {"after_compose": round(cache_after_compose / 1e6, 1),
                          "after_accept_and_undo": round(cache_after_edits / 1e6, 1)}
    report["load_average_1min"] = [round(x, 2) for x in loads]
    report["cpus"] = os.cpu_count()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
