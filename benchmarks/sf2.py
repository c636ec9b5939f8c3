"""How close bandstand's SoundFont synthesizer (`bandstand.render.sf2`: its compiled engine,
numba, a whole track per call, and its per-event numpy port) plays to TinySoundFont (the
`tinysoundfont` binding, the reference), and how fast. Prints JSON.

Songs are composed by `bandstand.compose.compose` (fixed prompts and seeds, five parts:
drums, bass, chords, lead, pad; no audio). Every track is played as the render plays it
(`bandstand.render.synth._events`: program, controllers, bends, notes; a fresh synthesizer
per stem, audio generated between consecutive events and at every slice boundary, then until
a silent slice after the last; the sustain pedal not honoured, as TinySoundFont ignores it)
through each engine on the project's SoundFont (`find_soundfont`). Per stem and
kernel: the largest sample difference from the reference, the RMS of the difference in dB
relative to the reference stem's RMS, the log-spectral distance (dB, mean over 2048-point
frames with energy) and the peak; the largest difference between the two kernels; per
engine the synthesis CPU seconds and their ratios to TinySoundFont (budget: compiled no
slower than 2×). For each song, the whole `render_wav` (two synthesis processes, effects,
master, 16-bit WAV) with each engine (`$BANDSTAND_SYNTH`): wall seconds, ratios, and how
far apart the WAVs are. Then the engine's cold compile and its load from numba's cache, each
in a fresh process (numba's import included, and apart), and `bandstand compose "upbeat funk
with slap bass and brass stabs" --seed 2` end to end with each engine (wall seconds).

    .venv/bin/python benchmarks/sf2.py [--bars 64] [--songs 3] [--no-compose]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from bandstand.compose import compose
from bandstand.render import find_soundfont, render_wav, sf2
from bandstand.render.synth import ENGINE_ENV, _events, clock, event_calls, frames_for
from bandstand.score import Song, assign_channels

SONGS = [("Frank Ocean meets Burial, late-night vibes, 72 BPM", 1),
         ("upbeat funk with slap bass and brass stabs, 112 BPM", 2),
         ("slow jazz ballad, brushed drums, warm piano", 3)]
PARTS = ["drums", "bass", "chords", "lead", "pad"]
RATE = 44100
SLICE = 1 << 14


def play_compiled(data: bytes, events: list[tuple[float, int, int, int, int]], frames: int) -> np.ndarray:
    """One stem through the compiled engine (pedal not honoured), frames × 2."""
    from bandstand.render.sf2.table import font_table
    from bandstand.render.sf2.track import TrackPlayer

    out = np.zeros((2, frames), dtype=np.float32)
    TrackPlayer(font_table(data), RATE, pedal=False).play(events, out)
    return out.T


def play(engine: Callable[..., Any], data: bytes, events: list[tuple[float, int, int, int, int]], frames: int) -> np.ndarray:
    """One stem: the events through a fresh synthesizer, as the render slices them."""
    if engine is play_compiled:
        return play_compiled(data, events, frames)
    synth = engine(samplerate=RATE)
    synth.sfload(data)
    actions = event_calls(synth)
    out = np.zeros((frames, 2), dtype=np.float32)
    pos = 0

    def advance(to: int) -> bool:
        nonlocal pos
        silent = True
        while pos < to:
            n = min(SLICE - pos % SLICE, to - pos)  # requests end at each slice boundary, as the render's
            synth.generate_simple(n, buffer=out[pos : pos + n].data.cast("B"))
            silent = not out[pos : pos + n].any()
            pos += n
        return silent

    for t, kind, ch, a, b in events:
        frame = min(int(t * RATE), frames)
        if frame > pos:
            advance(frame)
        actions[kind](ch, a, b)
    while pos < frames and not advance(min(frames, pos - pos % SLICE + SLICE)):
        pass
    return out


def compare(ref: np.ndarray, got: np.ndarray) -> dict[str, float]:
    diff = got.astype(np.float64) - ref
    rms_ref = float(np.sqrt(np.mean(ref.astype(np.float64) ** 2))) or 1e-12
    rms_diff = float(np.sqrt(np.mean(diff**2)))
    mono_ref, mono_got = ref.mean(axis=1), got.mean(axis=1)
    n = len(mono_ref) // 2048 * 2048
    window = np.hanning(2048)
    a = np.abs(np.fft.rfft(mono_ref[:n].reshape(-1, 2048) * window, axis=1))
    b = np.abs(np.fft.rfft(mono_got[:n].reshape(-1, 2048) * window, axis=1))
    loud = a.sum(axis=1) > 1e-3 * (a.sum(axis=1).max() if len(a) else 1.0)
    lsd = np.sqrt(np.mean((20 * np.log10((a[loud] + 1e-9) / (b[loud] + 1e-9))) ** 2, axis=1)) if loud.any() else np.zeros(1)
    return {"max_abs_diff": float(np.abs(diff).max()), "peak": float(np.abs(ref).max()),
            "rms_diff_db_rel": round(20 * np.log10(max(rms_diff, 1e-15) / rms_ref), 1),
            "log_spectral_distance_db": round(float(lsd.mean()), 4)}


def stems(song: Song) -> list[tuple[str, list[tuple[float, int, int, int, int]], int]]:
    channels = assign_channels(song)
    seconds = clock(song)
    frames = frames_for(song, RATE)
    result = []
    for index, track in enumerate(song.tracks):
        part = (index, track, channels[index], frozenset(range(128)))
        result.append((track.name, _events(song, part, seconds), frames))
    return result


ENGINES = ("tinysoundfont", "compiled", "numpy")


def whole_render(song: Song, tmp: str) -> dict[str, Any]:
    """`render_wav` of the song (two synthesis threads, effects, master, WAV) with each
    engine (`$BANDSTAND_SYNTH`): wall seconds, and how far apart the WAVs are."""
    seconds: dict[str, float] = {}
    audio: dict[str, np.ndarray] = {}
    for name in ENGINES:
        os.environ[ENGINE_ENV] = name
        w0 = time.perf_counter()
        path = render_wav(song, f"{tmp}/{name}.wav")
        seconds[name] = round(time.perf_counter() - w0, 2)
        with wave.open(str(path)) as wav:
            audio[name] = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.int32)
    os.environ.pop(ENGINE_ENV, None)
    result: dict[str, Any] = {"wall_seconds": seconds}
    for name in ("compiled", "numpy"):
        diff = np.abs(audio[name] - audio["tinysoundfont"])
        result[f"{name}_ratio"] = round(seconds[name] / seconds["tinysoundfont"], 2)
        result[f"{name}_wav_max_lsb"] = int(diff.max())
        result[f"{name}_wav_samples_differing"] = int((diff > 0).sum())
    result["compiled_vs_numpy_wav_max_lsb"] = int(np.abs(audio["compiled"] - audio["numpy"]).max())
    return result


_JIT_PROBE = """
import json, time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
from bandstand.render.sf2 import engine
t2 = time.perf_counter()
engine.load()
t3 = time.perf_counter()
print(json.dumps({"numba_import": t1 - t0, "load": t3 - t2}))
"""


def jit_cost() -> dict[str, float]:
    """The engine's first compile (numba's cache emptied) and its load from the cache, each in a
    fresh process: seconds, numba's own import apart."""
    import bandstand.render.sf2.engine as engine_module

    cache = Path(engine_module.__file__).parent / "__pycache__"

    def probe() -> dict[str, float]:
        done = subprocess.run([sys.executable, "-c", _JIT_PROBE], capture_output=True, text=True, check=True)
        result: dict[str, float] = json.loads(done.stdout)
        return result

    for stale in cache.glob("engine.step-*"):
        stale.unlink()
    cold = probe()
    warm = [probe() for _ in range(3)]
    return {"numba_import_seconds": round(min(w["numba_import"] for w in warm), 3),
            "cold_compile_seconds": round(cold["load"], 3),
            "cached_load_seconds": round(min(w["load"] for w in warm), 3)}


def compose_wall(tmp: str) -> dict[str, float]:
    """`bandstand compose "upbeat funk with slap bass and brass stabs" --seed 2` with each engine,
    in a fresh process (the kernel already in numba's cache): wall seconds, best of two."""
    exe = shutil.which("bandstand", path=str(Path(sys.executable).parent)) or "bandstand"
    result = {}
    for name in ENGINES:
        best = float("inf")
        for attempt in range(2):
            out = f"{tmp}/compose-{name}-{attempt}"
            w0 = time.perf_counter()
            subprocess.run([exe, "compose", "upbeat funk with slap bass and brass stabs", "--seed", "2",
                            "--out", out], env={**os.environ, ENGINE_ENV: name}, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - w0)
        result[name] = round(best, 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bars", type=int, default=64)
    parser.add_argument("--songs", type=int, default=len(SONGS))
    parser.add_argument("--no-compose", action="store_true", help="skip the compose timing")
    args = parser.parse_args()
    import tinysoundfont

    data = find_soundfont().read_bytes()
    report: dict[str, Any] = {"soundfont": find_soundfont().name, "bars": args.bars,
                              "jit": jit_cost(), "songs": []}
    from bandstand.render.sf2 import engine as compiled_engine

    synths: dict[str, Callable[..., Any]] = {"tinysoundfont": tinysoundfont.Synth, "compiled": play_compiled,
                                             "numpy": partial(sf2.Synth, pedal=False)}
    compiled_engine.load()  # the engine loaded before any timing
    worst = {"compiled": 0.0, "numpy": 0.0, "compiled_vs_numpy": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for prompt, seed in SONGS[: args.songs]:
            result = compose(prompt, seed=seed, bars=args.bars, parts=PARTS, out_dir=f"{tmp}/{seed}",
                             render_audio=False, render_pianoroll=False)
            assert result.song is not None
            entry: dict[str, Any] = {"prompt": prompt, "seed": seed, "stems": {}}
            cpu = dict.fromkeys(ENGINES, 0.0)
            for name, events, frames in stems(result.song):
                played = {}
                for engine_name in ENGINES:
                    t0 = time.process_time()
                    played[engine_name] = play(synths[engine_name], data, events, frames)
                    cpu[engine_name] += time.process_time() - t0
                ref = played["tinysoundfont"]
                entry["stems"][name] = {kernel: compare(ref, played[kernel]) for kernel in ("compiled", "numpy")}
                between = float(np.abs(played["compiled"] - played["numpy"]).max())
                entry["stems"][name]["compiled_vs_numpy_max_abs_diff"] = between
                for kernel in ("compiled", "numpy"):
                    worst[kernel] = max(worst[kernel], entry["stems"][name][kernel]["max_abs_diff"])
                worst["compiled_vs_numpy"] = max(worst["compiled_vs_numpy"], between)
            entry["cpu_seconds"] = {k: round(v, 2) for k, v in cpu.items()}
            entry["speed_ratio"] = {k: round(cpu[k] / max(cpu["tinysoundfont"], 1e-9), 2) for k in ("compiled", "numpy")}
            entry["render_wav"] = whole_render(result.song, tmp)
            report["songs"].append(entry)
            print(json.dumps({k: v for k, v in entry.items() if k != "stems"}), file=sys.stderr)
        if not args.no_compose:
            report["compose_wall_seconds"] = compose_wall(tmp)
    report["worst_max_abs_diff"] = worst
    report["worst_speed_ratio"] = {k: max(s["speed_ratio"][k] for s in report["songs"]) for k in ("compiled", "numpy")}
    report["worst_render_wav_ratio"] = {k: max(s["render_wav"][f"{k}_ratio"] for s in report["songs"])
                                        for k in ("compiled", "numpy")}
    report["budget"] = {"synthesis_cpu_ratio": 2.0, "render_wav_wall_ratio": 1.5}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
