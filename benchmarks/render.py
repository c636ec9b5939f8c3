"""WAV rendering speed: `render_wav` on a fixed 64-bar, five-part song at
72 BPM (about 213 s of audio), composed by `bandstand.compose.compose` with a
fixed prompt and seed and mixed as compose mixes it (its sound plan: EQ,
compression, overdrive, delay, the reverb bus), and bandstand against
FluidSynth on the same MIDI files and SoundFont. Prints JSON.

CPU time (`time.process_time`: every thread of this process; for a new
process, the user + system time `wait4` reports for it) is steadier than wall
time on a shared machine, though it too grows when the CPUs are
oversubscribed; both are reported with the load average they were measured at.
Each stage is timed on its own (per-track synthesis; synthesis with each
track's chain and fader run by the thread that played it, as `render_wav`
does; the sum and the buses; the master; the 16-bit write; the stems), and
synthesis runs on one thread and on the two `render_wav` uses, so the ratio
shows what the second buys; a control (two threads hashing, which runs in
parallel whenever two CPUs are free) shows how much parallelism the machine
offered at that moment. The two syntheses must be bit-identical (the same
split into items, each played from the synthesizer's power-on state).

The cold command line is measured too: `bandstand compose "Frank Ocean meets
Burial, late-night vibes" --seed 7` in a new process (Python start, compose,
MIDI, the mixed and mastered WAV with its stems, piano roll, revision 1; the
budget is 2 s on an idle machine) with and without `--no-audio`.

Peak memory is measured at 64, 256 and 512 bars of the same prompt: each
length composes and renders (`render_wav`, with stems) in a fresh process,
which reports its peak resident set (`getrusage` ru_maxrss) after composing and
after rendering. How fast a cancel stops a render is measured too:
`render_wav` of the 256-bar song on a thread, `cancelled` turned on
mid-synthesis, the time until `RenderCancelled` arrives.

Versus FluidSynth (`--versus`, part of the default run): three 64-bar songs and
one 256-bar song (five parts, composed without audio), each written as compose
writes `midi/full-arrangement.mid` (the sound plan applied, the mix as
CC7/CC10), rendered side by side, runs interleaved: Debian's `fluidsynth -ni -F
out.wav -r 44100 SOUNDFONT song.mid` (its reverb and chorus on, and off with
`-R 0 -C 0`) and `bandstand render song.mid --wav … --no-png` with each engine
(`$BANDSTAND_SYNTH`) — the WAV alone, as FluidSynth makes it; the default command,
which draws the piano roll too, is measured beside it (`_with_png`) — each a new process: CPU, wall, peak resident set (GNU
`time`'s, when /usr/bin/time is there: a child's own ru_maxrss starts at its
parent's size on Linux), real-time factors, ratios to FluidSynth; the warm
in-process `render_wav` of the same MIDI with each engine; the voice-samples
each song plays (the compiled engine counts them) and the synthesis CPU per
voice-sample (`synthesize_dry`, one thread). The SoundFont is
`find_soundfont()`'s for both. FluidSynth is installed here only, from Debian
(`--no-install-recommends`: its recommended fluid-soundfont-gm would become
bandstand's default SoundFont); without it (and without root), ours are still
measured.

    python benchmarks/render.py [--runs 3] [--no-cli] [--memory-only]
                                [--versus] [--no-versus] [--versus-runs 3]
                                [--versus-engines compiled,numpy,tinysoundfont]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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


def timed(fn: Callable[[], Any], runs: int) -> tuple[dict[str, float], Any]:
    """`fn()` run `runs` times: CPU (every thread of this process) and wall time, median and best."""
    cpu: list[float] = []
    wall: list[float] = []
    result: Any = None
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    figures = {"cpu_ms_median": round(statistics.median(cpu) * 1000, 1),
               "cpu_ms_best": round(min(cpu) * 1000, 1),
               "wall_ms_median": round(statistics.median(wall) * 1000, 1),
               "wall_ms_best": round(min(wall) * 1000, 1)}
    return figures, result


GNU_TIME = shutil.which("time")  # /usr/bin/time: a small process between this one and a measured child


@dataclass(frozen=True, slots=True)
class Spawned:
    """A finished child process: its CPU (user + system, its threads and children) and wall
    seconds, its peak resident set (KiB; `exact_peak` false when it is `wait4`'s figure, which
    starts at this process's size) and its standard output."""

    cpu: float
    wall: float
    peak_kib: int
    exact_peak: bool
    stdout: str


def spawn(cmd: list[str], env: dict[str, str] | None = None) -> Spawned:
    """Run `cmd` in a new process and measure it. CPU and wall come from `wait4` on the process
    started; the peak resident set from GNU `time` when there is one (on Linux a child's
    ru_maxrss counts the memory of the process it was forked from — this one, hundreds of MB —
    so it is measured from a 2 MB `time` process instead)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        full = [GNU_TIME, "-f", "%M", "-o", str(peak_file), *cmd] if GNU_TIME else cmd
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            w0 = time.perf_counter()
            proc = subprocess.Popen(full, stdout=out, stderr=err, env=env)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - w0
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{stderr[-2000:]}")
        peak, exact = usage.ru_maxrss, False
        if GNU_TIME:
            peak, exact = int(peak_file.read_text().split()[-1]), True
    return Spawned(usage.ru_utime + usage.ru_stime, wall, peak, exact, stdout)


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


def lock_released() -> dict[str, Any]:
    """One long render call of the synthesizer the render uses (`engine_name()`, reported) on a
    thread while this thread keeps running Python: the longest the thread's call kept this one
    waiting (the whole call if it held the interpreter lock throughout). The compiled engine
    plays a track per call (`TrackPlayer.play`, asking its check between slices); the others
    are asked for the whole buffer at once (`generate_simple`)."""
    from bandstand.render.synth import _BEND, _ON, _PROGRAM, engine, engine_name

    seconds = 20
    name = engine_name()
    if name == "compiled":
        from bandstand.render.sf2.table import font_table
        from bandstand.render.sf2.track import TrackPlayer

        player = TrackPlayer(font_table(find_soundfont().read_bytes()))
        events = [(0.0, _PROGRAM, ch, 89, 0) for ch in range(8)]
        events += [(0.0, _ON, ch, key, 100) for ch in range(8) for key in range(60, 66)]
        events.append((seconds - 1.0, _BEND, 0, 8192, 0))  # an event near the end: the call plays on to it
        row = np.zeros((2, 44100 * seconds), dtype=np.float32)

        def call() -> None:
            player.play(events, row)
    else:
        synth = engine()(samplerate=44100)
        synth.sfload(find_soundfont().read_bytes())
        for ch in range(8):
            synth.program_change(ch, 89)
            for key in range(60, 66):
                synth.noteon(ch, key, 100)
        buffer = np.zeros((44100 * seconds, 2), dtype=np.float32)

        def call() -> None:
            synth.generate_simple(len(buffer), buffer=buffer.data.cast("B"))

    took: list[float] = []

    def render() -> None:
        w0 = time.perf_counter()
        call()
        took.append(time.perf_counter() - w0)

    thread = threading.Thread(target=render)
    thread.start()
    last = time.perf_counter()
    longest = 0.0
    while not took:
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    thread.join()
    return {"synthesizer": name, "render_call_ms": round(took[0] * 1000, 1),
            "longest_pause_of_other_thread_ms": round(longest * 1000, 2)}


def played_items(song: Song, include: Sequence[bool] | None = None,
                 tail: float = synth.TAIL_SECONDS) -> list[dict[str, Any]]:
    """Each synthesis item (`synth._jobs`: a track, or half of a split one) played on its own by
    the compiled engine, as `synthesize_dry` plays it: its track, notes, estimated work, the
    voice-samples it played (frames summed over the sounding voices: `G_VOICE_FRAMES`) and its
    CPU time. The threads take items from one queue, heaviest first, so the wall time is about
    half the sum unless one item outweighs the rest."""
    from bandstand.render.sf2 import engine as compiled
    from bandstand.render.sf2 import layout
    from bandstand.render.sf2.table import font_table
    from bandstand.render.sf2.track import TrackPlayer

    compiled.load()
    table = font_table(find_soundfont().read_bytes())
    player = TrackPlayer(table, 44100, pedal=True)
    items = synth.synth_items(song, include, table)
    jobs, _ = synth._jobs(song, include, table)
    row = np.zeros((2, synth.frames_for(song, 44100, tail)), dtype=np.float32)
    report = []
    for (events, _, _), (_, part, work) in zip(jobs, items, strict=True):
        row[:] = 0.0
        c0 = time.process_time()
        player.play(events, row)
        report.append({"track": part[1].role, "notes": sum(1 for n in part[1].notes if n.pitch in part[3]),
                       "work": round(work, 1), "voice_samples": int(player.g[layout.G_VOICE_FRAMES]),
                       "cpu_ms": round((time.process_time() - c0) * 1000, 1)})
    return report


def item_costs(song: Song) -> dict[str, Any]:
    """`played_items` of the song with everything heard, and its tail as `render_wav`'s."""
    return {"engine": "compiled",
            "items": played_items(song, audible([t.mix for t in song.tracks]), audio.tail_seconds(song))}


def cold(args: list[str], runs: int) -> dict[str, float]:
    """A new `python -m bandstand …` process: its wall time and CPU time (user + system, all threads)."""
    done = [spawn([sys.executable, "-m", "bandstand", *args]) for _ in range(runs)]
    return {"cpu_ms_best": round(min(d.cpu for d in done) * 1000, 1),
            "wall_ms_best": round(min(d.wall for d in done) * 1000, 1)}


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
                      "rendered_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def peak_memory() -> dict[str, Any]:
    """Peak resident memory (MB) of a fresh process that composes then renders the song at each
    length, with the compiled engine (the default: numba and its LLVM library are a fixed
    120–130 MB of it) and with the numpy one (`BANDSTAND_SYNTH=numpy`, which never imports
    numba) — budget ≤ 400 MB at 512 bars. The process is started through `spawn` (GNU `time`
    between): a child's ru_maxrss on Linux starts at the size of the process it was forked from.

    The compiled engine is measured twice: as it chooses (buffers that fit
    `bandstand.render.scratch.memory_allowance` in memory, longer songs in the scratch file)
    and with every render in the file (`BANDSTAND_RENDER_MEMORY_MB=0`); each with the RAM its
    memory cgroup was charged at its peak (`ram_mb`: the resident set plus the page cache it
    dirtied — the scratch file's pages it let go of, the WAV and stems it wrote), where this
    process may make a cgroup (root, cgroup v1 or v2), else null: a file's pages let go of are
    out of the resident set, not out of the RAM, until the kernel writes them back."""
    out: dict[str, Any] = {"budget_mb": 400, "budget_at_bars": 512, "exact": bool(GNU_TIME)}
    runs = (("numpy", {"BANDSTAND_SYNTH": "numpy"}), ("compiled", {"BANDSTAND_SYNTH": "compiled"}),
            ("compiled_file_only", {"BANDSTAND_SYNTH": "compiled", "BANDSTAND_RENDER_MEMORY_MB": "0"}))
    for label, extra in runs:
        figures_by_length: dict[str, Any] = {}
        for bars in MEMORY_BARS:
            cmd = [sys.executable, "-c", _MEMORY_CHILD, str(bars), PROMPT, str(SEED), ",".join(PARTS)]
            with charged() as (wrap, peak):
                done = spawn(wrap(cmd), env={**os.environ, **extra})
                ram = peak()
            figures = json.loads(done.stdout)
            figures_by_length[f"{bars}_bars"] = {"audio_seconds": figures["seconds"],
                                                 "peak_mb_after_compose": round(figures["composed_kib"] / 1024, 1),
                                                 "peak_mb_render": round(figures["rendered_kib"] / 1024, 1),
                                                 "ram_mb": None if ram is None else round(ram / 2**20, 1)}
        out[label] = figures_by_length
    out["within_budget"] = out["compiled"]["512_bars"]["peak_mb_render"] <= out["budget_mb"]
    return out


_CGROUPS = (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup"))  # v1's memory controller, v2's unified tree


@contextlib.contextmanager
def charged() -> Iterator[tuple[Callable[[list[str]], list[str]], Callable[[], int | None]]]:
    """A fresh memory cgroup for one command: (wrap, peak) — `wrap(cmd)` is the command joining
    it first, `peak()` the most bytes the cgroup was charged (v1 `memory.max_usage_in_bytes`,
    v2 `memory.peak`). Where no cgroup can be made, `wrap` leaves the command as it is and
    `peak()` is None."""
    folder: Path | None = None
    for root in _CGROUPS:
        if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK) and (
                (root / "memory.max_usage_in_bytes").exists() or (root / "cgroup.controllers").exists()):
            try:
                folder = root / f"bandstand-bench-{os.getpid()}-{time.monotonic_ns()}"
                folder.mkdir()
                break
            except OSError:
                folder = None
    if folder is None:
        yield (lambda cmd: cmd), (lambda: None)
        return

    def wrap(cmd: list[str]) -> list[str]:
        return ["sh", "-c", f'echo $$ > "{folder}/cgroup.procs" && exec "$@"', "sh", *cmd]

    def peak() -> int | None:
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            with contextlib.suppress(OSError, ValueError):
                return int((folder / name).read_text().split()[0])
        return None

    try:
        yield wrap, peak
    finally:
        with contextlib.suppress(OSError):
            (folder / "memory.force_empty").write_text("0")  # v1: its page cache uncharged, so it can go
        with contextlib.suppress(OSError):
            folder.rmdir()


def cancel_latency(out: Path, runs: int) -> dict[str, Any]:
    """Milliseconds from `cancelled` turning on, mid-synthesis of the 256-bar song, to `render_wav`
    raising `RenderCancelled` (both synthesis threads stopped at their next slice)."""
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


# -- versus FluidSynth ---------------------------------------------------------------------------

VERSUS_SONGS = [("Frank Ocean meets Burial, late-night vibes, 72 BPM", 1, 64),
                ("upbeat funk with slap bass and brass stabs, 112 BPM", 2, 64),
                ("slow jazz ballad, brushed drums, warm piano", 3, 64),
                (PROMPT, SEED, 256)]
OUR_ENGINES = ("compiled", "compiled_numba", "numpy", "tinysoundfont")
"""`compiled_numba`: the compiled engine loaded through numba in every process (`BANDSTAND_NATIVE=0`),
as before `bandstand.render.native` kept its machine code; in process the two are the same code."""


def _engine_env(engine: str) -> dict[str, str]:
    from bandstand.render import native

    if engine == "compiled_numba":
        return {synth.ENGINE_ENV: "compiled", native.ENV: "0"}
    return {synth.ENGINE_ENV: engine}
FLUIDR3 = Path("/usr/share/sounds/sf2/FluidR3_GM.sf2")  # what bandstand would pick as its default SoundFont
FLUIDSYNTH_MODES = {"fluidsynth": [], "fluidsynth_no_reverb_chorus": ["-R", "0", "-C", "0"]}
WHAT_EACH_SIDE_DOES = {
    "bandstand_render_cli": (
        "a new Python process (`--no-png`): imports, the MIDI read, synthesis of every track "
        "(two threads, CC7/CC10 applied by the synthesizer), each track's fader and pan (a MIDI file "
        "carries no inserts, sends or buses, so no EQ, compression or bus reverb), the master (loudness "
        "analysis, gain, true-peak limiter), the tail trimmed, 16-bit WAV"),
    "bandstand_render_cli_with_png": "the same and the piano-roll PNG (drawn on a thread): the default command",
    "bandstand_in_process_render_wav": "the same render of the same MIDI file, libraries loaded, no PNG",
    "bandstand_in_process_render_wav_with_mix": (
        "the composed song before its MIDI export, with its mix: synthesis + per-track chains (EQ, "
        "compressor, overdrive, delay) + the reverb bus + mastering + 16-bit WAV (compiled engine)"),
    "fluidsynth": ("synthesis (one thread, its default polyphony 256, 4th-order interpolation), its "
                   "default reverb and chorus, 16-bit WAV at its fixed gain 0.2: no loudness analysis "
                   "or limiter, no PNG"),
    "fluidsynth_no_reverb_chorus": "the same with -R 0 -C 0 (no reverb, no chorus)",
    "synthesis_one_thread": (
        "in-process synthesize_dry, one thread, CPU (the font's table, the rows allocated and faulted "
        "in, the events built, every item played; user and system apart), divided by the voice-samples "
        "the compiled engine counted for the same song (G_VOICE_FRAMES summed over the items)"),
    "engine_only_ns_per_voice_sample": (
        "the compiled engine's CPU playing the items into one reused row (TrackPlayer.play only), "
        "summed, per voice-sample: the figure to hold against a voice loop's few ns"),
}


def fluidsynth_setup() -> tuple[str | None, str]:
    """FluidSynth's command line, installed from Debian here if it is missing and this runs as
    root: (its path or None, how it was found). Its recommended fluid-soundfont-gm would put
    FluidR3_GM.sf2 where bandstand looks for its default SoundFont, changing every render and
    test on this machine: installed without recommends, and if that file appears anyway this
    stops, loudly."""
    found = shutil.which("fluidsynth")
    if found:
        return found, "on PATH"
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "not installed"
    had_fluidr3 = FLUIDR3.exists()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "--no-install-recommends", "fluidsynth"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, capture_output=True)
        subprocess.run(install, env=env, capture_output=True)
    if FLUIDR3.exists() and not had_fluidr3:
        raise SystemExit(f"\n{'!' * 78}\nInstalling fluidsynth put {FLUIDR3} on this machine: bandstand now "
                         f"takes it as its default SoundFont, which changes every render and test.\n"
                         f"Remove it (apt-get purge fluid-soundfont-gm) before going on. Stopping.\n{'!' * 78}")
    found = shutil.which("fluidsynth")
    return (found, "installed from Debian (--no-install-recommends)") if found else (None, "not installed")


def full_arrangement(prompt: str, seed: int, bars: int, folder: Path) -> tuple[Path, Song, dict[str, Any]]:
    """The song composed (five parts, no audio) and written as compose writes
    `midi/full-arrangement.mid` (its sound plan applied, its mix as CC7/CC10): the file, the
    mixed song, and what it is (checked against the file compose wrote)."""
    from dataclasses import replace

    from bandstand.compose.songfiles import FULL, mix_controls
    from bandstand.midi import write_midi

    result = compose(prompt, seed=seed, bars=bars, parts=PARTS, out_dir=str(folder / "session"),
                     render_audio=False, render_pianoroll=False)
    assert result.song is not None
    song = apply_sound(result.song, SoundPlan.model_validate(result.state.nodes["sound"].output))
    path = write_midi(replace(song, tracks=[mix_controls(t) for t in song.tracks]), folder / f"{FULL}.mid")
    written = next((folder / "session").glob(f"*/midi/{FULL}.mid"), None)
    about = {"prompt": prompt, "seed": seed, "bars": bars, "parts": len(song.tracks), "tempo": song.tempo,
             "notes": sum(len(t.notes) for t in song.tracks), "audio_seconds": round(song.duration_seconds, 2),
             "midi_bytes": path.stat().st_size,
             "same_bytes_as_compose_wrote": written is not None and written.read_bytes() == path.read_bytes()}
    return path, song, about


def _wav_seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        seconds: float = round(wav.getnframes() / wav.getframerate(), 2)
    return seconds


def _process_figures(done: list[Spawned], seconds: float, wav: Path) -> dict[str, Any]:
    """A contender's runs: CPU and wall (median, best), peak resident set, real-time factors
    (audio seconds of the song per second of wall and of CPU, medians) and the WAV's length."""
    cpu, wall = statistics.median(d.cpu for d in done), statistics.median(d.wall for d in done)
    return {"cpu_s_median": round(cpu, 3), "cpu_s_best": round(min(d.cpu for d in done), 3),
            "wall_s_median": round(wall, 3), "wall_s_best": round(min(d.wall for d in done), 3),
            "peak_rss_mb": round(max(d.peak_kib for d in done) / 1024, 1),
            **({} if done[0].exact_peak else {"peak_rss_is_upper_bound": True}),
            "realtime_factor_wall": round(seconds / wall, 1), "realtime_factor_cpu": round(seconds / cpu, 1),
            "wav_seconds": _wav_seconds(wav)}


def _contenders(fluidsynth: str | None, soundfont: Path, midi: Path, folder: Path,
                engines: list[str]) -> dict[str, tuple[list[str], dict[str, str], Path]]:
    """Each process to measure: its command, environment and the WAV it writes."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", synth.ENGINE_ENV)}
    out: dict[str, tuple[list[str], dict[str, str], Path]] = {}
    if fluidsynth:
        for name, flags in FLUIDSYNTH_MODES.items():
            wav = folder / f"{name}.wav"
            out[name] = ([fluidsynth, "-ni", *flags, "-F", str(wav), "-r", "44100", str(soundfont), str(midi)],
                         env, wav)
    for engine in engines:  # the WAV alone, as FluidSynth makes it; and the default command (the piano roll too)
        wav = folder / f"bandstand_{engine}.wav"
        out[f"bandstand_{engine}"] = ([sys.executable, "-m", "bandstand", "render", str(midi), "--wav", str(wav),
                                       "--no-png"], {**env, **_engine_env(engine)}, wav)
        drawn = folder / f"bandstand_{engine}_with_png.wav"
        out[f"bandstand_{engine}_with_png"] = ([sys.executable, "-m", "bandstand", "render", str(midi), "--wav",
                                                str(drawn), "--png", str(folder / f"bandstand_{engine}.png")],
                                               {**env, **_engine_env(engine)}, drawn)
    return out


def _with_engine(engine: str, fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        before = os.environ.get(synth.ENGINE_ENV)
        os.environ[synth.ENGINE_ENV] = engine
        try:
            return fn()
        finally:
            if before is None:
                os.environ.pop(synth.ENGINE_ENV, None)
            else:
                os.environ[synth.ENGINE_ENV] = before

    return run


def synthesis_per_voice_sample(fn: Callable[[], Any], runs: int, voice_samples: int) -> dict[str, float]:
    """`fn` (one synthesis on one thread) timed `runs` times: CPU per voice-sample, and its user
    and system parts apart (the system part is mostly the kernel zeroing the full-length rows as
    they are first written — hundreds of MB for a long song — and varies with the machine's
    memory pressure)."""
    user: list[float] = []
    system: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_SELF)
        fn()
        after = resource.getrusage(resource.RUSAGE_SELF)
        user.append(after.ru_utime - before.ru_utime)
        system.append(after.ru_stime - before.ru_stime)
    cpu = [u + k for u, k in zip(user, system, strict=True)]
    per = 1e9 / voice_samples
    return {"cpu_ms_median": round(statistics.median(cpu) * 1000, 1), "cpu_ms_best": round(min(cpu) * 1000, 1),
            "user_ms_median": round(statistics.median(user) * 1000, 1),
            "system_ms_median": round(statistics.median(system) * 1000, 1),
            "ns_per_voice_sample_median": round(statistics.median(cpu) * per, 2),
            "ns_per_voice_sample_best": round(min(cpu) * per, 2),
            "user_ns_per_voice_sample_median": round(statistics.median(user) * per, 2)}


def versus_song(midi: Path, mixed: Song, about: dict[str, Any], fluidsynth: str | None, engines: list[str],
                runs: int, folder: Path) -> dict[str, Any]:
    """One song, every contender a new process per run (interleaved, each run starting one
    contender further on), then in process: `render_wav` of the MIDI file's song per engine, of
    the mixed song (compiled), and the synthesis alone per voice-sample."""
    from bandstand.midi import read_midi

    soundfont = find_soundfont()
    seconds = about["audio_seconds"]
    load = [round(os.getloadavg()[0], 2)]
    contenders = _contenders(fluidsynth, soundfont, midi, folder, engines)
    names = list(contenders)
    done: dict[str, list[Spawned]] = {name: [] for name in names}
    for run in range(runs):
        for name in names[run % len(names):] + names[: run % len(names)]:
            cmd, env, _ = contenders[name]
            done[name].append(spawn(cmd, env))
    processes = {name: _process_figures(done[name], seconds, contenders[name][2]) for name in names}
    load.append(round(os.getloadavg()[0], 2))

    song = read_midi(midi)  # what `bandstand render` plays: the notes and CC7/CC10, no chains
    heard = audible([t.mix for t in song.tracks])
    tail = audio.tail_seconds(song)
    items = played_items(song, heard, tail)
    voice_samples = sum(item["voice_samples"] for item in items)
    in_process: dict[str, Any] = {}
    per_voice_sample: dict[str, Any] = {}
    for engine in (e for e in engines if e != "compiled_numba"):  # in process: the same code as compiled
        figures, _ = timed(_with_engine(engine, lambda: render_wav(song, folder / "in-process.wav")), runs)
        in_process[engine] = {**figures, "realtime_factor_wall": round(seconds / figures["wall_ms_median"] * 1000, 1),
                              "realtime_factor_cpu": round(seconds / figures["cpu_ms_median"] * 1000, 1)}
        per_voice_sample[engine] = synthesis_per_voice_sample(
            _with_engine(engine, lambda: synth.synthesize_dry(song, workers=1, include=heard, tail=tail)),
            runs, voice_samples)
    with_mix, _ = timed(_with_engine("compiled", lambda: render_wav(mixed, folder / "mixed.wav")), runs)
    load.append(round(os.getloadavg()[0], 2))

    ratios: dict[str, Any] = {}
    for engine in engines:
        ours = processes[f"bandstand_{engine}"]
        ratios[engine] = {}
        for theirs in (n for n in FLUIDSYNTH_MODES if n in processes):
            ref = processes[theirs]
            ratios[engine][f"cli_cpu_vs_{theirs}"] = round(ours["cpu_s_median"] / ref["cpu_s_median"], 2)
            ratios[engine][f"cli_wall_vs_{theirs}"] = round(ours["wall_s_median"] / ref["wall_s_median"], 2)
            drawn = processes[f"bandstand_{engine}_with_png"]
            ratios[engine][f"cli_with_png_cpu_vs_{theirs}"] = round(drawn["cpu_s_median"] / ref["cpu_s_median"], 2)
            if engine not in in_process:
                continue
            ratios[engine][f"in_process_cpu_vs_{theirs}"] = round(
                in_process[engine]["cpu_ms_median"] / 1000 / ref["cpu_s_median"], 2)
            ratios[engine][f"in_process_wall_vs_{theirs}"] = round(
                in_process[engine]["wall_ms_median"] / 1000 / ref["wall_s_median"], 2)
    frames = synth.frames_for(song, 44100, tail)
    return {
        "song": about,
        "voice_samples": voice_samples,
        "mean_voices_sounding": round(voice_samples / frames, 1),
        "items": items,
        "engine_only_ns_per_voice_sample": round(sum(i["cpu_ms"] for i in items) * 1e6 / voice_samples, 2),
        "processes": processes,
        "in_process_render_wav": in_process,
        "in_process_render_wav_with_mix": with_mix,
        "synthesis_one_thread": per_voice_sample,
        **({"fluidsynth_cpu_ns_per_our_voice_sample": {
            name: round(processes[name]["cpu_s_median"] * 1e9 / voice_samples, 2)
            for name in FLUIDSYNTH_MODES if name in processes}} if fluidsynth else {}),
        "ratios_to_fluidsynth": ratios if fluidsynth else "fluidsynth not installed",
        "load_average_1min": load,
    }


def versus(runs: int, engines: list[str]) -> dict[str, Any]:
    """bandstand against FluidSynth on `VERSUS_SONGS` (see the module's docstring)."""
    fluidsynth, how = fluidsynth_setup()
    missing = {}
    if "tinysoundfont" in engines and importlib.util.find_spec("tinysoundfont") is None:
        missing["tinysoundfont"] = "not installed"
    if {"compiled", "compiled_numba"} & set(engines):
        from bandstand.render.sf2 import engine as compiled

        if not compiled.available():
            missing.update({e: "numba does not compile here" for e in ("compiled", "compiled_numba") if e in engines})
    engines = [e for e in engines if e not in missing]
    soundfont = find_soundfont()
    report: dict[str, Any] = {
        "soundfont": str(soundfont), "soundfont_mb": round(soundfont.stat().st_size / 2**20, 1),
        "fluidsynth": how if fluidsynth is None else {
            "path": fluidsynth, "how": how,
            "version": subprocess.run([fluidsynth, "--version"], capture_output=True, text=True).stdout.splitlines()[0]},
        "engines": engines, "engines_missing": missing, "runs": runs,
        "peak_rss_from": "GNU time" if GNU_TIME else "wait4 ru_maxrss (an upper bound: starts at this process's size)",
        "what_each_side_does": WHAT_EACH_SIDE_DOES,
        "songs": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm_midi, _, _ = full_arrangement(PROMPT, SEED, 4, root / "warm")
        for cmd, env, _ in _contenders(fluidsynth, soundfont, warm_midi, root / "warm", engines).values():
            spawn(cmd, env)  # the bytecode and numba caches written, the files in the page cache
        for engine in (e for e in engines if e != "compiled_numba"):
            _with_engine(engine, lambda: render_wav(warm_midi, root / "warm" / "in-process.wav"))()
        for index, (prompt, seed, bars) in enumerate(VERSUS_SONGS):
            folder = root / str(index)
            midi, mixed, about = full_arrangement(prompt, seed, bars, folder)
            entry = versus_song(midi, mixed, about, fluidsynth, engines, runs, folder)
            print(json.dumps({"song": about["prompt"], "bars": bars,
                              "processes": {k: (v["cpu_s_median"], v["wall_s_median"])
                                            for k, v in entry["processes"].items()}}), file=sys.stderr)
            report["songs"].append(entry)
    if fluidsynth:
        report["worst_cli_cpu_ratio_to_fluidsynth"] = {
            engine: max(s["ratios_to_fluidsynth"][engine]["cli_cpu_vs_fluidsynth"] for s in report["songs"])
            for engine in engines}
        report["budget"] = {"cli_cpu_ratio_to_fluidsynth": 1.0}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--no-cli", action="store_true", help="skip the cold command-line runs")
    parser.add_argument("--memory-only", action="store_true", help="only peak memory and the cancel")
    parser.add_argument("--versus", action="store_true", help="only bandstand against FluidSynth")
    parser.add_argument("--no-versus", action="store_true", help="skip bandstand against FluidSynth")
    parser.add_argument("--versus-runs", type=int, default=3)
    parser.add_argument("--versus-engines", default=",".join(OUR_ENGINES),
                        help="our engines to measure, comma-separated")
    args = parser.parse_args()
    engines = [e for e in args.versus_engines.split(",") if e]
    if unknown := set(engines) - set(OUR_ENGINES):
        parser.error(f"unknown engines {sorted(unknown)}; use {', '.join(OUR_ENGINES)}")
    if args.versus:
        print(json.dumps({"benchmark": "render versus fluidsynth", **versus(args.versus_runs, engines),
                          "cpus": os.cpu_count()}, indent=2))
        return
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
            "engine": synth.engine_name(),
            "song": {"prompt": PROMPT, "seed": SEED, "bars": BARS, "parts": len(song.tracks), "tempo": song.tempo,
                     "notes": sum(len(t.notes) for t in song.tracks),
                     "inserts": sum(len(t.mix.inserts) for t in song.tracks), "buses": len(song.buses) or 1,
                     "audio_seconds": round(len(done.audio) / 44100, 1)},
            "runs": args.runs,
            "render_wav": total,
            "render_wav_with_stems": with_stems,
            "byte_identical_runs": first == (out / "again.wav").read_bytes(),
            "one_and_two_threads_byte_identical": first == one,
            "synthesize_one_thread": serial,
            "synthesize_two_threads": {**parallel, "workers": synth.default_workers(), "groups": synth.SYNTH_GROUPS},
            "threads_bit_identical": bool(np.array_equal(dry_serial.audio, dry.audio)),
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
        report["versus_fluidsynth"] = None if args.no_versus else versus(args.versus_runs, engines)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
