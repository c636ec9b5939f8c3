"""How close bandstand's numpy SoundFont synthesizer (`bandstand.render.sf2`) plays to
TinySoundFont (the `tinysoundfont` binding, the reference), and how fast. Prints JSON.

Songs are composed by `bandstand.compose.compose` (fixed prompts and seeds, five parts:
drums, bass, chords, lead, pad; no audio). Every track is played as the render plays it
(`bandstand.render.synth._events`: program, controllers, bends, notes; a fresh synthesizer
per stem, audio generated between consecutive events, then until a silent slice after the
last) through each engine on the project's SoundFont (`find_soundfont`). Per stem:
the largest sample difference, the RMS of the difference in dB relative to the reference
stem's RMS, the log-spectral distance (dB, mean over 2048-point frames with energy) and
the peak; per engine the CPU seconds, and their ratio (budget: the numpy engine no slower
than 2× TinySoundFont on the 64-bar song). For the first song, the whole `render_wav`
(two synthesis processes, effects, master, 16-bit WAV) with each engine: wall seconds and
how far apart the two WAVs are.

    .venv/bin/python benchmarks/sf2.py [--bars 64] [--songs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from typing import Any

import numpy as np

from bandstand.compose import compose
from bandstand.render import find_soundfont, render_wav, sf2
from bandstand.render.synth import (
    _BEND,
    _CONTROL,
    _OFF,
    _ON,
    _PROGRAM,
    ENGINE_ENV,
    _events,
    clock,
    frames_for,
)
from bandstand.score import DRUM_CHANNEL, Song, assign_channels

SONGS = [("Frank Ocean meets Burial, late-night vibes, 72 BPM", 1),
         ("upbeat funk with slap bass and brass stabs, 112 BPM", 2),
         ("slow jazz ballad, brushed drums, warm piano", 3)]
PARTS = ["drums", "bass", "chords", "lead", "pad"]
RATE = 44100
SLICE = 1 << 14


def play(engine: Callable[..., Any], data: bytes, events: list[tuple[float, int, int, int, int]], frames: int) -> np.ndarray:
    """One stem: the events through a fresh synthesizer, as the render slices them."""
    synth = engine(samplerate=RATE)
    synth.sfload(data)
    actions = {
        _PROGRAM: lambda ch, a, b: synth.program_change(ch, a, is_drums=ch == DRUM_CHANNEL),
        _CONTROL: synth.control_change,
        _BEND: lambda ch, a, b: synth.pitchbend(ch, a),
        _OFF: lambda ch, a, b: synth.noteoff(ch, a),
        _ON: synth.noteon,
    }
    out = np.zeros((frames, 2), dtype=np.float32)
    pos = 0

    def advance(to: int) -> bool:
        nonlocal pos
        silent = True
        while pos < to:
            n = min(SLICE, to - pos)
            synth.generate_simple(n, buffer=out[pos : pos + n].data.cast("B"))
            silent = not out[pos : pos + n].any()
            pos += n
        return silent

    for t, kind, ch, a, b in events:
        frame = min(int(t * RATE), frames)
        if frame > pos:
            advance(frame)
        actions[kind](ch, a, b)
    while pos < frames and not advance(min(frames, pos + SLICE)):
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


def whole_render(song: Song, tmp: str) -> dict[str, Any]:
    """`render_wav` of the song (two synthesis processes, effects, master, WAV) with each
    engine (`$BANDSTAND_SYNTH`): wall seconds, and how far apart the two WAVs are."""
    seconds: dict[str, float] = {}
    audio: dict[str, np.ndarray] = {}
    for name in ("tinysoundfont", "numpy"):
        os.environ[ENGINE_ENV] = name
        w0 = time.perf_counter()
        path = render_wav(song, f"{tmp}/{name}.wav")
        seconds[name] = round(time.perf_counter() - w0, 2)
        with wave.open(str(path)) as wav:
            audio[name] = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float32) / 32768
    os.environ.pop(ENGINE_ENV, None)
    diff = np.abs(audio["numpy"] - audio["tinysoundfont"])
    return {"wall_seconds": seconds, "ratio": round(seconds["numpy"] / seconds["tinysoundfont"], 2),
            "wav_max_abs_diff": float(diff.max()), "wav_samples_differing": int((diff > 0).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bars", type=int, default=64)
    parser.add_argument("--songs", type=int, default=len(SONGS))
    args = parser.parse_args()
    import tinysoundfont

    data = find_soundfont().read_bytes()
    report: dict[str, Any] = {"soundfont": find_soundfont().name, "bars": args.bars, "songs": []}
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for prompt, seed in SONGS[: args.songs]:
            result = compose(prompt, seed=seed, bars=args.bars, parts=PARTS, out_dir=f"{tmp}/{seed}",
                             render_audio=False, render_pianoroll=False)
            assert result.song is not None
            entry: dict[str, Any] = {"prompt": prompt, "seed": seed, "stems": {}}
            cpu = {"tinysoundfont": 0.0, "numpy": 0.0}
            for name, events, frames in stems(result.song):
                t0 = time.process_time()
                ref = play(tinysoundfont.Synth, data, events, frames)
                t1 = time.process_time()
                got = play(sf2.Synth, data, events, frames)
                t2 = time.process_time()
                cpu["tinysoundfont"] += t1 - t0
                cpu["numpy"] += t2 - t1
                entry["stems"][name] = compare(ref, got)
                worst = max(worst, entry["stems"][name]["max_abs_diff"])
            entry["cpu_seconds"] = {k: round(v, 2) for k, v in cpu.items()}
            entry["speed_ratio"] = round(cpu["numpy"] / max(cpu["tinysoundfont"], 1e-9), 2)
            if seed == SONGS[0][1]:
                entry["render_wav"] = whole_render(result.song, tmp)
            report["songs"].append(entry)
            print(json.dumps(entry), file=sys.stderr)
    report["worst_max_abs_diff"] = worst
    report["worst_speed_ratio"] = max(s["speed_ratio"] for s in report["songs"])
    report["speed_budget_ratio"] = 2.0
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
