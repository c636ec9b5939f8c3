"""GM loudness: how loud each General MIDI program of the SoundFont sounds playing the same
phrase, measured by pyloudnorm (an independent judge) on the track's stem before mastering.

Every program plays one bar-long figure four times (quarter notes at velocity 100, a
C-major arpeggio from C4 — from C3 for the bass-register programs) at 120 BPM; the figure is
the reference `craft.balance.part_level_db` measures a part's notes against. The figures,
relative to the acoustic grand piano, are the `midi.gm_loudness.PROGRAM_LOUDNESS_DB` table
(regenerate it with ``--table`` when the default SoundFont changes).

    python benchmarks/gm_loudness.py [--table]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import wave
from pathlib import Path

import numpy as np

LOW = frozenset({*range(32, 40), 42, 43, 57, 58, 70, 87})  # basses, cello, contrabass, trombone, tuba, bassoon, bass+lead


def stem_lufs(path: Path) -> float:
    import pyloudnorm as pyln

    with wave.open(str(path)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768
        data, rate = frames.reshape(-1, w.getnchannels()), w.getframerate()
    return float(pyln.Meter(rate).integrated_loudness(data))


def measure() -> dict[int, float]:
    from bandstand.render import render_wav
    from bandstand.score import Note, Song, Track

    out: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for program in range(128):
            base = 48 if program in LOW else 60
            notes = [Note(bar * 4.0 + beat, 0.9, base + (0, 4, 7, 12)[beat], 100) for bar in range(4) for beat in range(4)]
            ref = [Note(bar * 4.0 + beat, 0.9, 60 + (0, 4, 7, 12)[beat], 100) for bar in range(4) for beat in range(4)]
            # the stems share the master's gain: the probe is read against a piano beside it
            song = Song(tempo=120.0, tracks=[Track("probe", "lead", program=program, notes=notes),
                                             Track("reference", "chords", program=0, notes=ref)])
            stems = Path(tmp) / f"stems-{program}"
            render_wav(song, Path(tmp) / f"p{program}.wav", stems_dir=stems)
            out[program] = stem_lufs(stems / "probe.wav") - stem_lufs(stems / "reference.wav")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="print the figures as the Python table")
    args = ap.parse_args()
    lufs = measure()
    rel = {p: round(v - lufs[0], 1) for p, v in lufs.items()}  # the piano's own figure is 0 up to the render's noise
    if args.table:
        rows = [", ".join(f"{p}: {rel[p]}" for p in range(i, min(128, i + 8))) for i in range(0, 128, 8)]
        print("PROGRAM_LOUDNESS_DB: dict[int, float] = {\n    " + ",\n    ".join(rows) + ",\n}")
        return
    print(json.dumps({"relative_db": rel,
                      "spread_db": round(max(rel.values()) - min(rel.values()), 1)}, indent=1))


if __name__ == "__main__":
    main()
