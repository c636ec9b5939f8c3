"""The producer's ear on a rendered song, for `songwriting.py --mix`: stem balance (each stem
of audio/stems/ read by pyloudnorm, an independent judge), intros that build (notes and
velocity through the intro's bars, read from the MIDI by mido), and named instruments heard
(the part an instrument word asks for: its GM program and its notes against the same prompt
without the word).

Fresh prompts, none of the 15 the balance model (`craft.balance.ROLE_BIAS_DB`) was fitted on.
"""

from __future__ import annotations

import statistics
import tempfile
import wave
from pathlib import Path
from typing import Any

import numpy as np

MIX_PROMPTS = (
    "melancholy indie folk song", "sunny reggae tune", "aggressive drum and bass", "smooth jazz ballad",
    "disco night", "afrobeats party", "bossa nova by the sea", "deep house groove", "grunge anthem",
    "cinematic trailer theme", "funk jam with slap bass", "k-pop banger", "gospel choir song",
    "trance anthem", "country road song", "a polka", "metal riff", "cumbia", "soul ballad", "grime",
)
INSTRUMENT_PROMPTS = (  # (word, the role it plays)
    ("ukulele", "chords"), ("banjo", "chords"), ("mandolin", "chords"), ("accordion", "chords"),
    ("harpsichord", "chords"), ("distorted guitars", "chords"), ("bandoneon", "lead"), ("music box", "lead"),
    ("güiro", "percussion"), ("shakers", "percussion"),
)


def stem_lufs(path: Path) -> float:
    import pyloudnorm as pyln

    with wave.open(str(path)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768
        data, rate = frames.reshape(-1, w.getnchannels()), w.getframerate()
    return float(pyln.Meter(rate).integrated_loudness(data))


def balance(prompt: str, seed: int, tmp: Path) -> dict[str, Any]:
    """One song's stems: the loudest, how far it stands above the next, against the genre's target."""
    from bandstand.compose import compose
    from bandstand.compose.lexicon import primary_genre

    result = compose(prompt, seed=seed, out_dir=str(tmp), render_pianoroll=False, bars=16)
    stems = {p.stem.replace("-", "_"): stem_lufs(p) for p in sorted((result.session_dir / "audio" / "stems").glob("*.wav"))
             if not p.stem.startswith("bus-")}
    stems = {k: v for k, v in stems.items() if v > -70}
    ranked = sorted(stems.items(), key=lambda kv: -kv[1])
    try:
        from bandstand.craft.balance import balance_targets, top_gap

        target = top_gap(balance_targets(list(stems), primary_genre(result.intent).family))
    except ImportError:  # a baseline without balance targets: the review's flat reading (2 dB)
        target = 0.0
    gap = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else 0.0
    return {"loudest": ranked[0][0], "gap_db": round(gap, 1), "target_db": round(target, 1),
            "within": gap <= target + 2.0, "lead_loudest_by": round(gap, 1) if ranked[0][0] == "lead" else 0.0}


def intro_build(h: Any) -> dict[str, Any] | None:
    """Notes per bar and mean velocity in the intro's first and second halves (None: no intro)."""
    sections = h.sections()
    if not sections or not sections[0][0].lower().startswith("intro"):
        return None
    _, a, b = sections[0]
    bars = round((b - a) / h.bpb)
    if bars < 2:
        return None
    half = a + (bars // 2) * h.bpb
    notes = [n for p in h.parts for n in p.notes if a <= n[0] < b]
    first = [n for n in notes if n[0] < half]
    second = [n for n in notes if n[0] >= half]
    if not first and not second:
        return None
    return {"first": len(first), "second": len(second), "builds": len(second) >= 1.2 * max(1, len(first)),
            "velocity_rise": round(statistics.fmean(n[3] for n in second) - statistics.fmean(n[3] for n in first), 1)
            if first and second else None}


def instruments(compose_one: Any) -> dict[str, Any]:
    """Each instrument word on a pop song against the pop song alone, same seed: the part it
    plays is there, on another instrument (GM program or drum keys) and with other notes."""
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = compose_one("pop song with percussion", 1, Path(tmp))[0]
        for word, role in INSTRUMENT_PROMPTS:
            h = compose_one(f"pop song with {word}", 1, Path(tmp))[0]
            part = next((p for p in h.parts if p.role == role), None)
            plain = next((p for p in base.parts if p.role == role), None)
            if part is None:
                rows[word] = {"heard": False}
                continue
            key = (lambda n: (round(n[0] * 4), n[2])) if part.drum else (lambda n, t=h.tonic: (round(n[0] * 4), n[2] - t))
            mine = {key(n) for n in part.notes}
            theirs = {(round(n[0] * 4), n[2] - (0 if plain.drum else base.tonic)) for n in plain.notes} if plain else set()
            other_sound = ({n[2] for n in part.notes} != {n[2] for n in plain.notes}) if part.drum and plain \
                else plain is None or part.program != plain.program
            rows[word] = {"heard": True, "program": part.program, "other_sound": other_sound,
                          "note_overlap": round(len(mine & theirs) / max(1, len(mine | theirs)), 3)}
    return rows


def mix_report(compose_one: Any, seeds: int = 1) -> dict[str, Any]:
    songs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for prompt in MIX_PROMPTS:
            for seed in range(1, seeds + 1):
                songs[f"{prompt}#{seed}"] = balance(prompt, seed, Path(tmp))
    intros = []
    with tempfile.TemporaryDirectory() as tmp:
        for prompt in MIX_PROMPTS:
            built = intro_build(compose_one(prompt, 1, Path(tmp))[0])
            if built is not None:
                intros.append(built)
    words = instruments(compose_one)
    return {
        "songs": len(songs),
        "stems_within_target_plus_2db": round(sum(s["within"] for s in songs.values()) / len(songs), 3),
        "lead_loudest": sum(s["loudest"] == "lead" for s in songs.values()),
        "lead_loudest_by_max_db": max(s["lead_loudest_by"] for s in songs.values()),
        "gap_db_median": statistics.median(s["gap_db"] for s in songs.values()),
        "gap_db_max": max(s["gap_db"] for s in songs.values()),
        "intros": len(intros), "intros_that_build": sum(i["builds"] for i in intros),
        "intro_velocity_rise_median": statistics.median(i["velocity_rise"] for i in intros
                                                        if i["velocity_rise"] is not None) if intros else None,
        "instruments_heard_and_changed": sum(r.get("heard", False) and r["other_sound"] and r["note_overlap"] < 0.5
                                             for r in words.values()),
        "instruments": words, "per_song": songs,
    }
