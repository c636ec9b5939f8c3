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

Cold CLI by engine: `bandstand compose "Frank Ocean meets Burial, late-night
vibes" --seed 7` in a new process with the WAV (its default: the mixed and
mastered WAV, the stems, the piano roll) and with `--no-audio`, `--cli-runs`
runs each, interleaved, on the default engine (`$BANDSTAND_SYNTH` unset: the
compiled one where numba compiles) and with `BANDSTAND_SYNTH=numpy`: the
child's CPU (user + system, from `wait4`) and wall time, median and best
(budgets, on this machine idle: ≤ 2.0 s wall with the WAV, ≤ 1.2 s CPU
without).

The child's system CPU and minor page faults are reported too (most of the
WAV's system time is the first touch of its full-length buffers and of the
files' page cache).

Cold phases (part of `--cold-only`): the same cold compose with the WAV, in a
new process that times the render's phases from inside (wrappers around the
render's functions, in that process only): when each starts and ends after
the process started, its wall time and the CPU time of the thread that ran it
(user + system) — bandstand's imports, the pipeline before the output node,
numba's import and the engine's load (on the warm-up thread), the SoundFont
table, synthesis and chain per track (summed over tracks, on two threads), the
mix and the bus, the master's measure, the WAV and stems written (each
measured as it is written: the quality figures' loudness and spectrum), the
piano roll, the quality figures (and the files they read back, where no meter
measured them as they were written), the output node in all. Medians of
`--cli-runs` runs.

    python benchmarks/compose.py [--rounds 3] [--latency-ms 100] [--cli-runs 3] [--cold-only]
                                 [--engines default,numpy] [--no-phases]
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


ENGINE_PROMPT, ENGINE_SEED = "Frank Ocean meets Burial, late-night vibes", 7
COLD_ENGINES = {"default": None, "numpy": "numpy"}  # what $BANDSTAND_SYNTH is set to (None: unset)


def _child_cpu_wall(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Run `cmd` in a new process: its CPU seconds (user + system of the child and whatever it
    waited for, from `wait4`), wall seconds, system seconds alone and minor page faults. Its
    output is discarded; a failure stops here."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_stime, usage.ru_minflt


def _cpu_wall_figures(runs: list[tuple[float, float, float, int]]) -> dict[str, float]:
    return {"cpu_ms_median": round(statistics.median(r[0] for r in runs) * 1000, 1),
            "cpu_ms_best": round(min(r[0] for r in runs) * 1000, 1),
            "wall_ms_median": round(statistics.median(r[1] for r in runs) * 1000, 1),
            "wall_ms_best": round(min(r[1] for r in runs) * 1000, 1),
            "system_cpu_ms_median": round(statistics.median(r[2] for r in runs) * 1000, 1),
            "page_faults_median": round(statistics.median(r[3] for r in runs))}


def cold_cli_engines(out: Path, runs: int, engines: tuple[str, ...] = tuple(COLD_ENGINES)) -> dict[str, Any]:
    """The cold `bandstand compose ENGINE_PROMPT --seed 7`, with the WAV and with --no-audio, on
    the default engine and on numpy: every (engine, mode) once per round, rounds interleaved,
    after one untimed run of each (bytecode and numba caches written, files in the page cache)."""
    from bandstand.render.synth import ENGINE_ENV, engine_name

    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", ENGINE_ENV)}
    modes = {"with_wav": [], "no_audio": ["--no-audio"]}
    runs_of: dict[tuple[str, str], list[tuple[float, float, float, int]]] = {}
    count = 0

    def once(engine: str, mode: str) -> tuple[float, float, float, int]:
        nonlocal count
        count += 1
        setting = COLD_ENGINES[engine]
        env = base if setting is None else {**base, ENGINE_ENV: setting}
        return _child_cpu_wall([sys.executable, "-m", "bandstand", "compose", ENGINE_PROMPT, "--seed", str(ENGINE_SEED),
                                "--out", str(out / str(count)), *modes[mode]], env)

    for engine in engines:
        once(engine, "with_wav")
    load = [round(os.getloadavg()[0], 2)]
    for _ in range(runs):
        for engine in engines:
            for mode in modes:
                runs_of.setdefault((engine, mode), []).append(once(engine, mode))
    load.append(round(os.getloadavg()[0], 2))
    saved = os.environ.pop(ENGINE_ENV, None)
    try:
        default = engine_name()
    finally:
        if saved is not None:
            os.environ[ENGINE_ENV] = saved
    report: dict[str, Any] = {"command": f'bandstand compose "{ENGINE_PROMPT}" --seed {ENGINE_SEED}', "runs": runs}
    for engine in engines:
        with_wav, no_audio = _cpu_wall_figures(runs_of[(engine, "with_wav")]), _cpu_wall_figures(runs_of[(engine, "no_audio")])
        report[engine] = {"engine": default if engine == "default" else engine, "with_wav": with_wav,
                          "no_audio": no_audio,
                          "wav_cpu_ms_median": round(with_wav["cpu_ms_median"] - no_audio["cpu_ms_median"], 1),
                          "wav_wall_ms_median": round(with_wav["wall_ms_median"] - no_audio["wall_ms_median"], 1)}
    report["load_average_1min"] = load
    report["cpus"] = os.cpu_count()
    report["budget"] = {"with_wav_wall_ms": 2000, "no_audio_cpu_ms": 1200, "machine": "idle"}
    if "default" in engines:
        report["within_budget"] = {"with_wav_wall": report["default"]["with_wav"]["wall_ms_median"] <= 2000,
                                   "no_audio_cpu": report["default"]["no_audio"]["cpu_ms_median"] <= 1200}
    return report


_PHASES = (  # (label, module, attribute): what `_phases_child` times
    ("numba import and engine load", "bandstand.render.sf2.engine", "load"),
    ("engine ready with the SoundFont table", "bandstand.render.synth", "_ready_table"),
    ("synthesis (per track)", "bandstand.render.sf2.track", "TrackPlayer.play"),
    ("chain and fader (per track)", "bandstand.render.mixer", "MixPlan.finish"),
    ("mix: tracks summed", "bandstand.render.mixer", "MixPlan.mix"),
    ("mix: buses", "bandstand.render.mixer", "MixPlan._buses"),
    ("master measured", "bandstand.render.audio", "plan_master"),
    ("WAV and stems written and measured (per file)", "bandstand.render.audio", "write_wav"),
    ("render to the mix", "bandstand.render.audio", "_mixed"),
    ("piano roll", "bandstand.compose.songfiles", "_pianoroll"),
    ("quality audio figures", "bandstand.compose.output", "_audio_quality"),
    ("quality: a stem read back and measured (per file)", "bandstand.compose.quality.audio", "_stem"),
    ("quality: the WAV read back and measured", "bandstand.render.loudness", "wav_loudness"),
    ("output node (session written)", "bandstand.compose.output", "write_session"),
)


def _phases_child(report: Path) -> None:
    """In a new process: wrap `_PHASES`, run the cold compose with its WAV, write what was timed."""
    import atexit
    import functools
    import importlib
    import threading

    t0 = time.perf_counter()
    import bandstand.cli

    imported = time.perf_counter() - t0
    timed: list[tuple[str, float, float, float]] = []
    lock = threading.Lock()
    for label, module, attr in _PHASES:
        owner: Any = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        real = getattr(owner, name)

        def wrapper(*args: Any, _real: Any = real, _label: str = label, **kwargs: Any) -> Any:
            w, c = time.perf_counter(), time.thread_time()
            try:
                return _real(*args, **kwargs)
            finally:
                with lock:
                    timed.append((_label, w - t0, time.perf_counter() - w, time.thread_time() - c))

        setattr(owner, name, functools.wraps(real)(wrapper))

    def write() -> None:
        report.write_text(json.dumps({"imports_s": imported, "total_s": time.perf_counter() - t0,
                                      "process_cpu_s": time.process_time(), "timed": timed}))

    atexit.register(write)
    sys.argv = ["bandstand", "compose", ENGINE_PROMPT, "--seed", str(ENGINE_SEED), "--yes"]
    bandstand.cli.main()


def cold_phases(out: Path, runs: int) -> dict[str, Any]:
    """`_phases_child` run `runs` times (after one untimed run): per phase, medians of its first
    start and last end (s after the process started), its wall and its threads' CPU (ms, summed
    over its calls), and its calls."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results = []
    for n in range(runs + 1):
        folder = out / f"phases-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        report = folder / "phases.json"
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--phases-child", str(report)], cwd=folder,
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if n:
            results.append(json.loads(report.read_text()))
    phases: dict[str, Any] = {}
    for label, _, _ in _PHASES:
        rows = [[t for t in r["timed"] if t[0] == label] for r in results]
        if not all(rows):
            continue
        phases[label] = {"calls": len(rows[0]),
                         "start_s": round(statistics.median(min(t[1] for t in row) for row in rows), 3),
                         "end_s": round(statistics.median(max(t[1] + t[2] for t in row) for row in rows), 3),
                         "wall_ms": round(statistics.median(sum(t[2] for t in row) for row in rows) * 1000, 1),
                         "thread_cpu_ms": round(statistics.median(sum(t[3] for t in row) for row in rows) * 1000, 1)}
    return {"command": f'bandstand compose "{ENGINE_PROMPT}" --seed {ENGINE_SEED} (in a new process, timed inside)',
            "runs": runs, "load_average_1min": round(os.getloadavg()[0], 2),
            "bandstand_cli_import_ms": round(statistics.median(r["imports_s"] for r in results) * 1000, 1),
            "process_wall_ms": round(statistics.median(r["total_s"] for r in results) * 1000, 1),
            "process_cpu_ms": round(statistics.median(r["process_cpu_s"] for r in results) * 1000, 1),
            "phases": phases}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--cli-runs", type=int, default=3, help="runs of each cold compose by engine")
    parser.add_argument("--cold-only", action="store_true", help="only the cold compose by engine")
    parser.add_argument("--engines", default=",".join(COLD_ENGINES),
                        help="engines of the cold compose, comma-separated (default and numpy)")
    parser.add_argument("--no-phases", action="store_true", help="leave out the cold compose's phases")
    parser.add_argument("--phases-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phases_child is not None:
        _phases_child(args.phases_child)
        return
    engines = tuple(e for e in args.engines.split(",") if e)
    if unknown := set(engines) - set(COLD_ENGINES):
        parser.error(f"unknown engines {sorted(unknown)}; use {', '.join(COLD_ENGINES)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if args.cold_only:
            cold: dict[str, Any] = {"benchmark": "compose cold CLI by engine",
                                    "cold_cli_engines": cold_cli_engines(out / "e", args.cli_runs, engines)}
            if not args.no_phases:
                cold["cold_phases"] = cold_phases(out / "f", args.cli_runs)
            print(json.dumps(cold, indent=2))
            return
        report = {
            "benchmark": "compose",
            "in_process": in_process(args.rounds, out / "a"),
            "render": renders(out / "b"),
            "parallel_parts": parallel(out / "c", args.latency_ms),
            "cold_cli": cold_cli(out / "d"),
            "cold_cli_engines": cold_cli_engines(out / "e", args.cli_runs, engines),
        }
        if not args.no_phases:
            report["cold_phases"] = cold_phases(out / "f", args.cli_runs)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
