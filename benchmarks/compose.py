"""Compose speed: the pipeline graph in process and the cold CLI.

In process: 10 varied prompts, 64 bars, the five core parts, the built-in
(algorithmic) musicians, audio and piano roll off; per-node and total wall
time of `compose()` (session folder written, checkpoints on), repeated
`--rounds` times, reported as the median (budget: total ≤ 300 ms). The audio
render of one of those songs is measured on its own (`render_wav`), and so is
the piano roll.

Parallel parts: the part nodes' wall time (first start to last finish) with
one part against four parts, once with the real
generators (CPU-bound pure Python: threads share one interpreter lock, so
this ratio shows the GIL, not the engine) and once with parts that wait
like an LLM musician would (each sleeps `--latency-ms`); the engine's
budget is 4 parts < 2× one part.

Cold CLI: `python -m bandstand compose PROMPT --bars 64` in a new process,
including the WAV render (budget ≤ 2 s), and the same with --no-audio.

    python benchmarks/compose.py [--rounds 3] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bandstand.compose import compose
from bandstand.compose.stages import default_part

PROMPTS = [
    "Frank Ocean meets Burial, late-night vibes",
    "Trap beat, dark, 140 BPM, key of Am",
    "Jazz house, complex chords, 4-on-floor, 122 BPM",
    "Lo-fi piano with 808s, no drums except kick",
    "happy afrobeats for a summer party",
    "melancholic indie rock ballad in D major",
    "liquid drum and bass like LTJ Bukem",
    "bossa nova for a rainy café",
    "Daft Punk style disco house",
    "ambient soundscape, dreamy, Brian Eno",
]
CORE = ["drums", "bass", "chords", "lead", "pad"]


def in_process(rounds: int, out: Path) -> dict[str, Any]:
    compose("warm up the imports", seed=0, bars=8, out_dir=str(out), render_audio=False, render_pianoroll=False)
    totals: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {}
    for r in range(rounds):
        for i, prompt in enumerate(PROMPTS):
            t0, c0 = time.perf_counter(), time.process_time()
            result = compose(prompt, seed=100 * r + i, bars=64, parts=CORE, out_dir=str(out), render_audio=False,
                             render_pianoroll=False)
            totals.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            assert result.status in ("completed", "completed_partial"), result.state.error
            for rec in result.state.nodes.values():
                stages.setdefault(rec.node, []).append(rec.duration_ms)
    return {
        "prompts": len(PROMPTS), "rounds": rounds, "bars": 64, "parts": len(CORE),
        "total_ms_median": round(statistics.median(totals), 1),
        "total_ms_p90": round(sorted(totals)[int(len(totals) * 0.9) - 1], 1),
        "cpu_ms_median": round(statistics.median(cpu), 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "node_ms_median": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "budget_ms": 300, "within_budget": statistics.median(totals) <= 300,
    }


def renders(out: Path) -> dict[str, Any]:
    import bandstand.render as render

    result = compose(PROMPTS[0], seed=1, bars=64, parts=CORE, out_dir=str(out), render_audio=False,
                     render_pianoroll=False)
    song = result.song
    t0 = time.perf_counter()
    render.render_wav(song, out / "bench.wav")
    wav = time.perf_counter() - t0
    t0 = time.perf_counter()
    render.render_pianoroll(song, out / "bench.png")
    png = time.perf_counter() - t0
    return {"song_seconds": round(song.duration_seconds, 1), "wav_ms": round(wav * 1000, 1),
            "pianoroll_ms": round(png * 1000, 1)}


def parts_wall_ms(state: Any) -> float:
    """From the first part node's start to the last one's end."""
    recs = state.group("parts")
    start = min(r.started_at for r in recs)
    end = max(r.completed_at for r in recs)
    return (end - start).total_seconds() * 1000


def parallel(out: Path, latency_ms: float) -> dict[str, Any]:
    def waiting(role: str, *args: Any) -> Any:
        time.sleep(latency_ms / 1000)
        return default_part(role, *args)

    report: dict[str, Any] = {}
    for label, handlers in (("cpu_bound_generators", None), ("waiting_musicians", {"part": waiting})):
        times = {}
        for parts in (["drums"], ["drums", "bass", "chords", "lead"]):
            runs = []
            for seed in range(3):
                r = compose(PROMPTS[1], seed=seed, bars=64, parts=parts, out_dir=str(out), handlers=handlers,
                            render_audio=False, render_pianoroll=False)
                runs.append(parts_wall_ms(r.state))
            times[len(parts)] = statistics.median(runs)
        report[label] = {"one_part_ms": round(times[1], 1), "four_parts_ms": round(times[4], 1),
                         "ratio": round(times[4] / times[1], 2)}
    report["waiting_musicians"]["latency_ms"] = latency_ms
    report["budget_ratio"] = 2.0
    report["within_budget"] = report["waiting_musicians"]["ratio"] < 2.0
    return report


def cold_cli(out: Path) -> dict[str, Any]:
    """A new process per run, as a user starts it: bytecode caches allowed (an
    environment with PYTHONDONTWRITEBYTECODE would recompile every module at
    every start), one untimed warm-up run first. Wall time, and the child's CPU
    time, which the load other processes put on the machine does not inflate."""
    import resource

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    report: dict[str, Any] = {}

    def run(seed: int, extra: list[str]) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "bandstand", "compose", PROMPTS[1], "--bars", "64",
                               "--seed", str(seed), "--out", str(out), "--json", *extra],
                              capture_output=True, text=True, check=False, env=env)
        wall = (time.perf_counter() - t0) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        return wall, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000

    run(0, [])  # warm-up: writes the bytecode caches, fills the disk cache
    for label, extra in (("with_wav", []), ("no_audio", ["--no-audio"])):
        runs = [run(seed, extra) for seed in range(3)]
        report[f"{label}_ms"] = round(min(w for w, _ in runs), 1)
        report[f"{label}_cpu_ms"] = round(min(c for _, c in runs), 1)
    report["load_average_1min"] = round(os.getloadavg()[0], 2)
    report["budget_ms"] = 2000
    report["within_budget"] = report["with_wav_ms"] <= 2000
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        report = {
            "benchmark": "compose",
            "in_process": in_process(args.rounds, out / "a"),
            "render": renders(out / "b"),
            "parallel_parts": parallel(out / "c", args.latency_ms),
            "cold_cli": cold_cli(out / "d"),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
