"""WAV rendering speed: `render_wav` on a fixed 64-bar, five-part song at
72 BPM (about 213 s of audio), composed by `bandstand.compose.compose` with a
fixed prompt and seed and mixed as compose mixes it (its sound plan: EQ,
compression, overdrive, delay, the reverb bus). Prints JSON.

CPU time (`time.process_time`, all threads, plus the synthesis child's) is
steadier than wall time on a shared machine, though it too grows when the CPUs are oversubscribed; both
are reported with the load average they were measured at.
Each stage is timed on its own (per-track synthesis; synthesis with each
track's chain and fader run by the process that played it, as `render_wav`
does; the sum and the buses; the master; the 16-bit write; the stems), and
synthesis runs twice in the same process: in one process (the peer) and in the
two processes `render_wav` uses, so the ratio shows what the second buys;
a control (two threads hashing, which runs in parallel whenever two CPUs are
free) shows how much parallelism the machine offered at that moment.
The two syntheses must be bit-identical (the same split into groups, summed
onto zero: the order of two additions cannot matter).

The cold command line is measured too: `bandstand compose "Frank Ocean meets
Burial, late-night vibes" --seed 7` in a new process (Python start, compose,
MIDI, the mixed and mastered WAV with its stems, piano roll, revision 1; the
budget is 2 s on an idle machine) with and without `--no-audio`, CPU time from
`getrusage` (both processes).

Peak memory is measured at 64, 256 and 512 bars of the same prompt: each
length composes and renders (`render_wav`, with stems) in a fresh process,
which reports its peak resident set (`getrusage` ru_maxrss) after composing and
after rendering, and the synthesis child's peak. How fast a cancel stops a
render is measured too: `render_wav` of the 256-bar song on a thread,
`cancelled` turned on mid-synthesis, the time until `RenderCancelled` arrives
(the child killed and reaped).

    python benchmarks/render.py [--runs 3] [--no-cli] [--memory-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bandstand.compose import compose
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.sound import apply_sound
from bandstand.render import audio, find_soundfont, render_wav, synth
from bandstand.render.master import Master, master
from bandstand.render.mixer import MixPlan
from bandstand.score import Song, audible

PROMPT = "Frank Ocean meets Burial, late-night vibes, 72 BPM"
SEED = 1
BARS = 64
PARTS = ["drums", "bass", "chords", "lead", "pad"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], Any], runs: int) -> tuple[dict[str, float], Any]:
    cpu: list[float] = []
    wall: list[float] = []
    result: Any = None
    for _ in range(runs):
        c0, k0, w0 = time.process_time(), _children_cpu(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0 + _children_cpu() - k0)  # with the synthesis child's
        wall.append(time.perf_counter() - w0)
    figures = {"cpu_ms_median": round(statistics.median(cpu) * 1000, 1),
               "cpu_ms_best": round(min(cpu) * 1000, 1),
               "wall_ms_median": round(statistics.median(wall) * 1000, 1),
               "wall_ms_best": round(min(wall) * 1000, 1)}
    return figures, result


def parallel_capacity() -> float:
    """How much two threads gained at this moment on work known to run in parallel (hashing
    releases the interpreter lock): about 2.0 with two free CPUs, about 1.0 when the machine is
    busy. The synthesis threads cannot gain more than this."""
    data = b"x" * (64 << 20)

    def digest() -> None:
        hashlib.sha256(data).digest()

    w0 = time.perf_counter()
    digest()
    digest()
    one = time.perf_counter() - w0
    w0 = time.perf_counter()
    threads = [threading.Thread(target=digest) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return round(one / (time.perf_counter() - w0), 2)


def lock_released() -> dict[str, float]:
    """One long render call of the synthesizer the render uses (`engine_name()`, reported) on a
    thread while this thread keeps running Python: the longest the thread's call kept this one
    waiting (the whole call if it held the interpreter lock throughout)."""
    from bandstand.render.synth import engine

    synth = engine()(samplerate=44100)
    synth.sfload(find_soundfont().read_bytes())
    for ch in range(8):
        synth.program_change(ch, 89)
        for key in range(60, 66):
            synth.noteon(ch, key, 100)
    buffer = np.zeros((44100 * 20, 2), dtype=np.float32)
    took: list[float] = []

    def render() -> None:
        w0 = time.perf_counter()
        synth.generate_simple(len(buffer), buffer=buffer.data.cast("B"))
        took.append(time.perf_counter() - w0)

    thread = threading.Thread(target=render)
    thread.start()
    last = time.perf_counter()
    longest = 0.0
    while not took:
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    thread.join()
    from bandstand.render.synth import engine_name

    return {"synthesizer": engine_name(), "render_call_ms": round(took[0] * 1000, 1),
            "longest_pause_of_other_thread_ms": round(longest * 1000, 2)}


def item_costs(song: Song) -> dict[str, Any]:
    """Each synthesis item played on its own: its notes, estimated work and CPU time (the two
    processes take items from one queue, heaviest first, so the wall time is about half the sum
    unless one item outweighs the rest)."""
    data = find_soundfont().read_bytes()
    frames = int((song.duration_seconds + synth.TAIL_SECONDS) * 44100)
    seconds = synth.clock(song)
    report = []
    for row, part, work in synth.synth_items(song):
        out = np.zeros((len(song.tracks) + 1, 2, frames), dtype=np.float32)
        c0 = time.process_time()
        synth._play([(synth._events(song, part, seconds), row, False)], out, 44100, data, "sf2")
        notes = sum(1 for n in part[1].notes if n.pitch in part[3])
        report.append({"track": part[1].role, "notes": notes, "work": round(work, 1),
                       "cpu_ms": round((time.process_time() - c0) * 1000, 1)})
    return {"items": report}


def cold(args: list[str], runs: int) -> dict[str, float]:
    """A new `python -m bandstand …` process: its wall time and CPU time (user + system, all threads)."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bandstand", *args], check=True, capture_output=True)
        wall.append(time.perf_counter() - w0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"cpu_ms_best": round(min(cpu) * 1000, 1), "wall_ms_best": round(min(wall) * 1000, 1)}


CLI_PROMPT, CLI_SEED = "Frank Ocean meets Burial, late-night vibes", 7


def cold_cli(out: Path, runs: int) -> dict[str, Any]:
    """The cold compose command (budget 2 s) with and without the WAV, same prompt and seed."""
    base = ["compose", CLI_PROMPT, "--seed", str(CLI_SEED), "--json"]
    with_wav = cold([*base, "--out", str(out / "with")], runs)
    without = cold([*base, "--out", str(out / "without"), "--no-audio"], runs)
    return {"compose_with_wav": with_wav, "compose_no_audio": without,
            "wav_cpu_ms": round(with_wav["cpu_ms_best"] - without["cpu_ms_best"], 1),
            "wav_wall_ms": round(with_wav["wall_ms_best"] - without["wall_ms_best"], 1), "budget_ms": 2000}


MEMORY_BARS = (64, 256, 512)
_MEMORY_CHILD = """
import json, resource, sys, tempfile
from pathlib import Path
from bandstand.compose import compose
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.sound import apply_sound
from bandstand.render import render_wav
bars = int(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    result = compose(sys.argv[2], seed=int(sys.argv[3]), bars=bars, parts=sys.argv[4].split(","),
                     out_dir=tmp + "/session", render_audio=False, render_pianoroll=False)
    song = apply_sound(result.song, SoundPlan.model_validate(result.state.nodes["sound"].output))
    composed = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    render_wav(song, Path(tmp) / "song.wav", stems_dir=Path(tmp) / "stems")
    print(json.dumps({"seconds": round(song.duration_seconds, 1), "composed_kib": composed,
                      "rendered_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "synth_child_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak_memory() -> dict[str, Any]:
    """Peak resident memory (MB) of a fresh process that composes then renders the song at each
    length, with each synthesizer this machine has: `numpy` (the plain install) and `compiled`
    (the `fast` extra: numba and its LLVM library: a fixed 120–130 MB more resident) — budget ≤ 250 MB."""
    import importlib.util

    # numba is looked for, not imported: a child's peak (ru_maxrss) starts at this process's, on Linux
    out: dict[str, Any] = {"budget_mb": 250}
    for synthesizer in ("numpy", "compiled") if importlib.util.find_spec("numba") else ("numpy",):
        figures_by_length: dict[str, Any] = {}
        for bars in MEMORY_BARS:
            done = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(bars), PROMPT, str(SEED), ",".join(PARTS)],
                                  capture_output=True, text=True, check=True,
                                  env=dict(os.environ, BANDSTAND_SYNTH=synthesizer))
            figures = json.loads(done.stdout)
            figures_by_length[f"{bars}_bars"] = {"audio_seconds": figures["seconds"],
                                                 "peak_mb_after_compose": round(figures["composed_kib"] / 1024, 1),
                                                 "peak_mb_render": round(figures["rendered_kib"] / 1024, 1),
                                                 "peak_mb_synth_child": round(figures["synth_child_kib"] / 1024, 1)}
        out[synthesizer] = figures_by_length
    return out


def cancel_latency(out: Path, runs: int) -> dict[str, Any]:
    """Milliseconds from `cancelled` turning on, mid-synthesis of the 256-bar song, to `render_wav`
    raising `RenderCancelled` (the child killed and reaped)."""
    from bandstand.render.cancel import RenderCancelled

    result = compose(PROMPT, seed=SEED, bars=256, parts=PARTS, out_dir=str(out / "long"), render_audio=False,
                     render_pianoroll=False)
    assert result.song is not None
    song = apply_sound(result.song, SoundPlan.model_validate(result.state.nodes["sound"].output))
    waits: list[float] = []
    for _ in range(runs):
        flag = threading.Event()
        stopped: list[float] = []

        def run(flag: threading.Event = flag, stopped: list[float] = stopped) -> None:
            try:
                render_wav(song, out / "cancelled.wav", cancelled=flag.is_set)
            except RenderCancelled:
                stopped.append(time.perf_counter())

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(1.0)  # well inside the synthesis (several seconds for this song)
        asked = time.perf_counter()
        flag.set()
        thread.join()
        assert stopped, "the render finished before it was cancelled"
        waits.append((stopped[0] - asked) * 1000)
    return {"runs": runs, "ms_median": round(statistics.median(waits), 1), "ms_max": round(max(waits), 1),
            "budget_ms": 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--no-cli", action="store_true", help="skip the cold command-line runs")
    parser.add_argument("--memory-only", action="store_true", help="only peak memory and the cancel")
    args = parser.parse_args()
    if args.memory_only:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps({"benchmark": "render memory", "peak_memory": peak_memory(),
                              "cancel": cancel_latency(Path(tmp), args.runs),
                              "load_average_1min": round(os.getloadavg()[0], 2)}, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        result = compose(PROMPT, seed=SEED, bars=BARS, parts=PARTS, out_dir=str(out / "session"),
                         render_audio=False, render_pianoroll=False)
        assert result.song is not None
        plan = SoundPlan.model_validate(result.state.nodes["sound"].output)
        song = apply_sound(result.song, plan)
        settings = Master(plan.target_lufs)
        render_wav(song, out / "warm.wav")  # load the libraries and the SoundFont file into the page cache
        load_before = os.getloadavg()[0]
        total, path = timed(lambda: render_wav(song, out / "song.wav", settings=settings), args.runs)
        first = Path(path).read_bytes()
        render_wav(song, out / "again.wav", settings=settings)
        one = render_wav(song, out / "one.wav", settings=settings, workers=1).read_bytes()
        heard = audible([t.mix for t in song.tracks])
        tail = audio.tail_seconds(song)
        mix_plan = MixPlan(song, 44100, synth.frames_for(song, 44100, tail))
        serial, dry_serial = timed(lambda: synth.synthesize_dry(song, workers=1, include=heard, tail=tail), args.runs)
        parallel, dry = timed(lambda: synth.synthesize_dry(song, include=heard, tail=tail), args.runs)
        finished, done_dry = timed(lambda: synth.synthesize_dry(song, include=heard, tail=tail,
                                                                finish=mix_plan.finish), args.runs)
        mix, mixed = timed(lambda: mix_plan.mix(done_dry.audio, done_dry.spans), args.runs)
        mastering, done = timed(lambda: master(mixed.audio, 44100, settings), args.runs)
        write, _ = timed(lambda: audio.write_wav(done.audio, out / "write.wav"), args.runs)
        with_stems, _ = timed(lambda: render_wav(song, out / "stems.wav", settings=settings,
                                                 stems_dir=out / "stems"), args.runs)
        report = {
            "benchmark": "render",
            "song": {"prompt": PROMPT, "seed": SEED, "bars": BARS, "parts": len(song.tracks), "tempo": song.tempo,
                     "notes": sum(len(t.notes) for t in song.tracks),
                     "inserts": sum(len(t.mix.inserts) for t in song.tracks), "buses": len(song.buses) or 1,
                     "audio_seconds": round(len(done.audio) / 44100, 1)},
            "runs": args.runs,
            "render_wav": total,
            "render_wav_with_stems": with_stems,
            "byte_identical_runs": first == (out / "again.wav").read_bytes(),
            "one_and_two_processes_byte_identical": first == one,
            "synthesize_one_process": serial,
            "synthesize_two_processes": {**parallel, "workers": synth.default_workers(), "groups": synth.SYNTH_GROUPS},
            "processes_bit_identical": bool(np.array_equal(dry_serial.audio, dry.audio)),
            "synthesize_and_finish_tracks": finished,
            "synthesis_items": item_costs(song),
            "synth_wall_ratio_one_over_two": round(serial["wall_ms_median"] / parallel["wall_ms_median"], 2),
            "control_two_thread_ratio_sha256": parallel_capacity(),
            "interpreter_lock_during_render": lock_released(),
            "sum_and_buses": mix,
            "master": mastering,
            "write_wav": write,
            "cold_cli": None if args.no_cli else cold_cli(out / "cli", args.cli_runs),
            "peak_memory": peak_memory(),
            "cancel": cancel_latency(out, args.runs),
            "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "cpus": os.cpu_count(),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
