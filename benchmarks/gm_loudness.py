"""GM loudness: how loud each General MIDI program of the SoundFont sounds playing the same
phrase, measured by pyloudnorm (an independent judge) on the track's stem before mastering.

Every program plays one bar-long figure four times (quarter notes at velocity 100, a
C-major arpeggio from C4 — from C3 for the bass-register programs) at 120 BPM; the figure is
the reference `craft.balance.part_level_db` measures a part's notes against. The figures,
relative to the acoustic grand piano, are the `midi.gm_loudness.PROGRAM_LOUDNESS_DB` table
(regenerate it with ``--table`` when the default SoundFont changes).

With ``--drums`` it measures the kits instead: the plain groove (kick and snare on the beats,
eighth-note hats) on each GS kit against the same piano (`KIT_LOUDNESS_DB`), and each GM drum
note struck alone on the standard kit, its figure at three hits a beat against that groove
(`DRUM_NOTE_DB`).

    python benchmarks/gm_loudness.py [--table] [--drums]
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


def _probe(tmp: Path, name: str, program: int, notes: list) -> float:
    """A drum part's stem against the reference piano beside it (LU)."""
    from bandstand.render import render_wav
    from bandstand.score import Note, Song, Track

    ref = [Note(bar * 4.0 + beat, 0.9, 60 + (0, 4, 7, 12)[beat], 100) for bar in range(4) for beat in range(4)]
    song = Song(tempo=120.0, tracks=[Track("probe", "drums", program=program, notes=notes, channel=9),
                                     Track("reference", "chords", program=0, notes=ref)])
    stems = Path(tmp) / f"stems-{name}"
    render_wav(song, Path(tmp) / f"{name}.wav", stems_dir=stems)
    return stem_lufs(stems / "probe.wav") - stem_lufs(stems / "reference.wav")


def measure_drums() -> dict[str, dict[int, float]]:
    import math

    from bandstand.midi import DRUM_KITS
    from bandstand.score import Note

    groove = [Note(t + half, 0.25, drum, 100) for t in range(16)
              for half, drum in ((0.0, 36 if t % 2 == 0 else 38), (0.0, 42), (0.5, 42))]
    with tempfile.TemporaryDirectory() as tmp:
        kits = {kit: round(_probe(Path(tmp), f"kit{kit}", kit, groove), 1) for kit in sorted(DRUM_KITS)}
        # eighths are two hits a beat: +1.8 dB puts them at the groove's three
        notes = {n: round(_probe(Path(tmp), f"note{n}", 0, [Note(b * 0.5, 0.25, n, 100) for b in range(32)])
                          + 10 * math.log10(1.5) - kits[0], 1) for n in range(35, 82)}
    return {"KIT_LOUDNESS_DB": kits, "DRUM_NOTE_DB": notes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="print the figures as the Python table")
    ap.add_argument("--drums", action="store_true", help="measure the GS kits and the GM drum notes instead")
    args = ap.parse_args()
    if args.drums:
        print(json.dumps(measure_drums(), indent=1))
        return
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
