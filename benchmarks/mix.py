"""The mix and the master over a varied prompt set (the songwriting benchmark's
prompts, over 20 genres), judged by independent measures. Prints JSON.

For each prompt the song is composed (fixed seed), its sound plan written into
its mix, and rendered twice: the full render (per-track synthesis, inserts,
sends, buses, master, stems written) and the same without the master and the
stems (the mix peak-normalized and written), to show what stems and mastering
cost. The mastered audio is measured by pyloudnorm at the full rate
(integrated loudness against the genre's target; the spread across genres),
by 4× oversampling (true peak) and by librosa (the spectrum's share of energy
below 120 Hz and above 4 kHz, and its centroid: sub-heavy and dull mixes show
there). Needs the bench extra (librosa): scripts/setup dev,bench.

    python benchmarks/mix.py [--bars 32] [--seed 1] [--limit N] [--only ID,ID]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bandstand.compose import compose
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.sound import apply_sound
from bandstand.render import Master, render_song, write_stems
from bandstand.render.audio import tail_seconds, write_wav
from bandstand.render.mixer import mix_song
from bandstand.render.synth import synthesize_tracks

PROMPTS = Path(__file__).with_name("songwriting_prompts.json")
LOUDNESS_TOLERANCE_LU = 1.5
SPREAD_BUDGET_LU = 6.0
CEILING_DBTP = -1.0
SUB_HEAVY = 0.6  # more than this share of the energy below 120 Hz
DULL = 0.002  # less than this share above 4 kHz


def spectral(audio: np.ndarray, rate: int) -> dict[str, float]:
    import librosa

    mono = audio.mean(axis=1).astype(np.float32)
    power = np.abs(librosa.stft(mono, n_fft=4096, hop_length=2048)) ** 2
    freqs = librosa.fft_frequencies(sr=rate, n_fft=4096)
    total = float(power.sum()) or 1.0
    centroid = librosa.feature.spectral_centroid(S=np.sqrt(power), freq=freqs)
    return {"low_share_below_120hz": round(float(power[freqs < 120].sum()) / total, 4),
            "high_share_above_4khz": round(float(power[freqs > 4000].sum()) / total, 5),
            "centroid_hz": round(float(np.median(centroid)), 1)}


def true_peak_dbtp(audio: np.ndarray) -> float:
    from scipy.signal import resample_poly

    return round(float(20 * np.log10(np.abs(resample_poly(audio.astype(np.float64), 4, 1, axis=0)).max())), 2)


def plain_render(song: Any, path: Path) -> None:
    """The render without the master and the stems: synthesis, the mix, peak-normalized, written."""
    mixed = mix_song(song, synthesize_tracks(song, tail=tail_seconds(song)))
    peak = float(np.abs(mixed.audio).max(initial=0.0))
    write_wav(mixed.audio, path, gain=0.89 / peak if peak > 0 else 1.0)


def full_render(song: Any, target: float, out: Path) -> Any:
    rendered = render_song(song, settings=Master(target), stems=True)
    write_wav(rendered.audio, out / "song.wav")
    write_stems(rendered, out / "stems")
    return rendered


def measure(entry: dict[str, Any], bars: int, seed: int, tmp: Path) -> dict[str, Any]:
    import pyloudnorm

    r = compose(entry["prompt"], seed=seed, bars=bars, out_dir=str(tmp / "sessions"), render_audio=False,
                render_pianoroll=False)
    plan = SoundPlan.model_validate(r.state.nodes["sound"].output)
    song = apply_sound(r.song, plan)
    w0 = time.perf_counter()
    plain_render(song, tmp / "plain.wav")
    plain = time.perf_counter() - w0
    w0 = time.perf_counter()
    rendered = full_render(song, plan.target_lufs, tmp / "full")
    full = time.perf_counter() - w0
    audio = rendered.audio.astype(np.float64)
    loudness = round(float(pyloudnorm.Meter(44100).integrated_loudness(audio)), 2)
    return {"id": entry["id"], "prompt": entry["prompt"], "genre": r.state.intent.genre[0] if r.state.intent else "",
            "family_target_lufs": plan.target_lufs, "lufs": loudness,
            "off_target_lu": round(loudness - plan.target_lufs, 2), "true_peak_dbtp": true_peak_dbtp(audio),
            "limiter_max_db": round(rendered.mastered.limiter_max_db, 2), **spectral(rendered.audio, 44100),
            "seconds": round(len(audio) / 44100, 1), "render_plain_s": round(plain, 3),
            "render_full_s": round(full, 3), "stems": len(rendered.stems)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bars", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0, help="only the first N prompts")
    parser.add_argument("--only", default="", help="only these prompt ids (comma-separated)")
    args = parser.parse_args()
    entries = json.loads(PROMPTS.read_text(encoding="utf-8"))["prompts"]
    entries = entries[: args.limit] if args.limit else entries
    if args.only:
        entries = [e for e in entries if e["id"] in args.only.split(",")]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(e, args.bars, args.seed, Path(folder)) for e in entries]
    by_genre: dict[str, list[float]] = {}
    for row in rows:
        by_genre.setdefault(row["genre"], []).append(row["lufs"])
    genre_lufs = {g: round(statistics.mean(v), 2) for g, v in by_genre.items()}
    plain = sum(r["render_plain_s"] for r in rows)
    full = sum(r["render_full_s"] for r in rows)
    report = {
        "benchmark": "mix",
        "prompts": len(rows), "genres": len(genre_lufs), "bars": args.bars, "seed": args.seed,
        "loudness": {
            "within_target": sum(abs(r["off_target_lu"]) <= LOUDNESS_TOLERANCE_LU for r in rows),
            "tolerance_lu": LOUDNESS_TOLERANCE_LU,
            "largest_miss_lu": max((abs(r["off_target_lu"]) for r in rows), default=0.0),
            "spread_across_genres_lu": round(max(genre_lufs.values()) - min(genre_lufs.values()), 2),
            "spread_budget_lu": SPREAD_BUDGET_LU,
            "by_genre": genre_lufs,
        },
        "true_peak": {"max_dbtp": max(r["true_peak_dbtp"] for r in rows), "ceiling_dbtp": CEILING_DBTP,
                      "over_ceiling": sum(r["true_peak_dbtp"] > CEILING_DBTP for r in rows)},
        "spectrum": {"sub_heavy": [r["id"] for r in rows if r["low_share_below_120hz"] > SUB_HEAVY],
                     "dull": [r["id"] for r in rows if r["high_share_above_4khz"] < DULL],
                     "thresholds": {"sub_heavy_low_share": SUB_HEAVY, "dull_high_share": DULL}},
        "render_time": {"plain_s": round(plain, 2), "with_master_and_stems_s": round(full, 2),
                        "ratio": round(full / plain, 3) if plain else None, "budget_ratio": 1.3},
        "songs": rows,
        "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
