"""Brightness on pitched parts: what "make the chords brighter" and "… darker"
do to the chords of composed songs, judged outside bandstand: pretty_midi
reads the part's MIDI and synthesizes it alone (sine voices, so the centroid
follows the voicing, not our instruments), numpy's FFT gives its spectral
centroid.

For each prompt: compose (16 bars, no audio), then in two copies of the
session propose and accept "make the chords brighter" and "make the chords
darker"; for the chords part of each take: mean velocity, mean pitch of the
top voice, mean spread of the chords (top − bottom), and the spectral
centroid (Hz) of the part rendered alone. Expected: brighter > base > darker
on velocity and centroid; the spread opens when brighter, closes when darker;
every other part byte-identical.

    python benchmarks/brightness.py
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pretty_midi

PROMPTS = [("pop ballad", 3), ("funk groove", 5), ("deep house, 122 bpm", 7), ("jazz trio, late night", 2)]
REQUESTS = {"brighter": "make the chords brighter", "darker": "make the chords darker"}


def chords_figures(root: Path) -> dict[str, float]:
    midi = pretty_midi.PrettyMIDI(str(root / "midi" / "chords.mid"))
    notes = [n for inst in midi.instruments for n in inst.notes]
    hits: dict[float, list[int]] = {}
    for n in notes:
        hits.setdefault(round(n.start, 3), []).append(n.pitch)
    chords = [sorted(p) for p in hits.values() if len(p) >= 2]
    audio = midi.synthesize(fs=22050)  # the part alone: sine voices, so the centroid follows pitch and level
    spectrum = np.abs(np.fft.rfft(audio))
    freqs = np.fft.rfftfreq(len(audio), 1 / 22050)
    return {"velocity": round(statistics.fmean(n.velocity for n in notes), 2),
            "top": round(statistics.fmean(c[-1] for c in chords), 2),
            "spread": round(statistics.fmean(c[-1] - c[0] for c in chords), 2),
            "centroid_hz": round(float((spectrum * freqs).sum() / spectrum.sum()), 1)}


def others(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (root / "midi").glob("*.mid") if p.name not in ("chords.mid",
                                                                                            "full-arrangement.mid")}


def main() -> None:
    from bandstand.producer.composing.compose import compose_song
    from bandstand.producer.requests.iteration import edit
    from bandstand.producer.sessions.projects import open_project

    report: dict[str, Any] = {"benchmark": "brightness", "songs": []}
    with tempfile.TemporaryDirectory(prefix="bandstand-bright-") as tmp:
        for prompt, seed in PROMPTS:
            base = compose_song(prompt, seed=seed, bars=16, out_dir=str(Path(tmp) / "base"),
                                render_audio=False, render_pianoroll=False).result.session_dir
            row: dict[str, Any] = {"prompt": prompt, "seed": seed, "base": chords_figures(base)}
            for label, request in REQUESTS.items():
                copy = Path(tmp) / label / base.name
                shutil.copytree(base, copy)
                outcome = edit(copy, request)
                assert outcome.variation is not None
                open_project(copy).accept(outcome.variation.id)
                row[label] = chords_figures(copy)
                row[f"{label}_others_identical"] = others(copy) == others(base)
            b, up, down = row["base"], row["brighter"], row["darker"]
            row["ordered"] = {k: up[k] > b[k] > down[k] for k in ("velocity", "centroid_hz")} | {
                "spread": up["spread"] >= b["spread"] >= down["spread"]}
            report["songs"].append(row)
    report["all_ordered"] = all(all(r["ordered"].values()) for r in report["songs"])
    report["others_identical"] = all(r["brighter_others_identical"] and r["darker_others_identical"]
                                     for r in report["songs"])
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
