"""Key agreement: do bandstand's key finder and music21's hear the key our songs declare, and do
they agree with each other and with the keys Bach's chorales are written in?

Two parts, one JSON object:

- songs: every prompt of `songwriting_prompts.json` × seeds, plus prompts of our own in minor keys
  and modes (dorian, mixolydian, phrygian), composed in process (no audio) and read back from
  `full-arrangement.mid` with mido, as `songwriting.py` reads them. Each song's pitched notes
  (textures aside) go to music21's default key finder (Aarden–Essen, `analyze("key")`) and to
  `bandstand.theory.detect_key`. Listed: (a) songs whose music21 key is neither the declared key
  nor a mode of its scale (its relative); (b) songs where ours and music21's differ; (c) songs
  where a finder names the relative (same scale, another tonic) instead of the declared tonic.
- chorales: the first N four-part Bach chorales of music21's corpus; the truth is the key the
  file names (its `<key>` with a mode). Agreement of ours, music21's and ours-with-music21's.

    python benchmarks/key_agreement.py [--seeds 2] [--chorales 100] [--only id,id] [--no-songs]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from songwriting import MINORISH, MODE_STEPS, PROMPTS, _agrees, compose_one  # noqa: E402
from songwriting_idioms import Heard  # noqa: E402

from bandstand.theory import ROOT_NAMES as NAMES  # noqa: E402  (the theory's spelling of the twelve tonics)

#: prompts of our own: minor keys and the modes, where a relative major lies close
EXTRA = [
    ("funk_em", "funk groove in E minor", {"bars": 64}),
    ("ballad_fsm", "sad piano ballad in F# minor", {}),
    ("synth_ebm", "dark synthwave in Eb minor", {}),
    ("rnb_bbm", "late-night r&b in Bb minor", {}),
    ("lofi_cm", "lo-fi hip hop in C minor", {}),
    ("dorian_d", "modal jazz in D dorian", {}),
    ("dorian_funk", "funk jam in A dorian", {}),
    ("mixo_g", "rock song in G mixolydian", {}),
    ("mixo_folk", "celtic folk tune in D mixolydian", {}),
    ("phryg_e", "flamenco in E phrygian", {}),
    ("phryg_metal", "metal riff in F# phrygian", {}),
    ("trap_gm", "trap beat in G minor", {}),
    ("house_am", "deep house in A minor", {}),
    ("cinema_dm", "cinematic score in D minor", {}),
]


@dataclass(frozen=True, slots=True)
class Struck:
    """One note as the key finders read it: pitch, duration and onset (beats)."""

    pitch: int
    duration: float
    start: float


def _name(tonic: int, minor: bool) -> str:
    return f"{NAMES[tonic % 12]} {'minor' if minor else 'major'}"


def _scale(tonic: int, mode: str) -> frozenset[int]:
    steps = MODE_STEPS.get(mode, MODE_STEPS["minor" if mode in MINORISH else "major"])
    return frozenset((tonic + s) % 12 for s in steps)


def _heard_notes(h: Heard) -> list[Struck]:
    return [Struck(n[2], n[1], n[0]) for p in h.parts if not p.drum and p.role != "texture" for n in p.notes]


def music21_key(notes: list[Struck]) -> tuple[int, bool]:
    """music21's default key finder (Aarden–Essen) on the notes, quantised as songwriting.py does."""
    from music21 import note, stream

    s = stream.Stream()
    for n in notes:
        s.insert(n.start, note.Note(n.pitch, quarterLength=max(0.0625, round(n.duration * 16) / 16)))
    k = s.analyze("key")
    return k.tonic.pitchClass, k.mode == "minor"


def ours_key(notes: list[Struck]) -> tuple[int, bool, float]:
    from bandstand.theory import detect_key

    est = detect_key(notes)
    return est.key.tonic_pc, est.key.is_minor, est.confidence


def song_row(h: Heard) -> dict[str, Any]:
    notes = _heard_notes(h)
    m_tonic, m_minor = music21_key(notes)
    o_tonic, o_minor, conf = ours_key(notes)
    declared = _scale(h.tonic, h.mode)
    minor = h.mode in MINORISH
    row = {
        "declared": f"{NAMES[h.tonic]} {h.mode}",
        "music21": _name(m_tonic, m_minor), "ours": _name(o_tonic, o_minor), "ours_confidence": conf,
        "music21_heard": _agrees(h, m_tonic, m_minor), "ours_heard": _agrees(h, o_tonic, o_minor),
        "music21_tonic": m_tonic == h.tonic and m_minor == minor, "ours_tonic": o_tonic == h.tonic and o_minor == minor,
        "agree": (m_tonic, m_minor) == (o_tonic, o_minor),
    }
    row["music21_relative"] = (not row["music21_tonic"]) and _scale(m_tonic, "minor" if m_minor else "major") == declared
    row["ours_relative"] = (not row["ours_tonic"]) and _scale(o_tonic, "minor" if o_minor else "major") == declared
    return row


def songs(seeds: int, only: set[str] | None) -> dict[str, Any]:
    entries = [(e["id"], e["prompt"], {}) for e in PROMPTS["prompts"]] + EXTRA
    entries = [e for e in entries if not only or e[0] in only]
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for ident, prompt, options in entries:
            for seed in range(1, seeds + 1):
                heard, _, _ = compose_one(prompt, seed, Path(tmp), **options)
                rows[f"{ident}#{seed}"] = {"prompt": prompt, **song_row(heard)}
        if not only or "funk_em" in only:  # the song the issue names: funk in E minor, seed 3, 64 bars
            heard, _, _ = compose_one("funk groove in E minor", 3, Path(tmp), bars=64)
            rows["funk_em#3"] = {"prompt": "funk groove in E minor", **song_row(heard)}

    def share(key: str) -> float:
        return round(sum(bool(r[key]) for r in rows.values()) / len(rows), 3) if rows else 0.0

    return {
        "songs": len(rows),
        "music21_heard_share": share("music21_heard"), "ours_heard_share": share("ours_heard"),
        "music21_tonic_share": share("music21_tonic"), "ours_tonic_share": share("ours_tonic"),
        "finders_agree_share": share("agree"),
        "a_music21_not_declared_or_relative": sorted(k for k, r in rows.items() if not r["music21_heard"]),
        "b_ours_differs_from_music21": sorted(k for k, r in rows.items() if not r["agree"]),
        "c_ours_names_the_relative": sorted(k for k, r in rows.items() if r["ours_relative"]),
        "c_music21_names_the_relative": sorted(k for k, r in rows.items() if r["music21_relative"]),
        "per_song": rows,
    }


def chorale_notes(count: int) -> list[tuple[str, tuple[int, bool], list[Struck], tuple[int, bool]]]:
    """(name, the key the file names, notes, music21's key) for the first `count` four-part chorales."""
    from music21 import corpus, key, note

    found = []
    for path in corpus.getComposer("bach"):
        if len(found) >= count:
            break
        score = corpus.parse(path)
        if len(score.parts) != 4:
            continue
        named = next(iter(score.recurse().getElementsByClass(key.Key)), None)
        if named is None:
            continue
        notes = [Struck(n.pitch.midi, float(n.quarterLength), float(n.getOffsetInHierarchy(score)))
                 for part in score.parts for n in part.recurse().getElementsByClass(note.Note) if n.quarterLength > 0]
        theirs = score.analyze("key")
        found.append((path.stem, (named.tonic.pitchClass, named.mode == "minor"), notes,
                      (theirs.tonic.pitchClass, theirs.mode == "minor")))
    return found


def chorales(count: int) -> dict[str, Any]:
    rows = {}
    for name, truth, notes, theirs in chorale_notes(count):
        o_tonic, o_minor, _ = ours_key(notes)
        rows[name] = {"named": _name(*truth), "music21": _name(*theirs), "ours": _name(o_tonic, o_minor)}
    n = len(rows)

    def share(a: str, b: str) -> float:
        return round(sum(r[a] == r[b] for r in rows.values()) / n, 3) if n else 0.0

    return {"chorales": n, "ours_right": share("ours", "named"), "music21_right": share("music21", "named"),
            "ours_agree_music21": share("ours", "music21"),
            "ours_wrong": sorted(f"{k}: {r['named']} heard {r['ours']}" for k, r in rows.items()
                                 if r["ours"] != r["named"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--chorales", type=int, default=100)
    ap.add_argument("--only", default="", help="comma-separated song ids (songwriting ids or this file's EXTRA)")
    ap.add_argument("--no-songs", action="store_true")
    ap.add_argument("--per-song", action="store_true", help="keep every song's row")
    args = ap.parse_args()
    report: dict[str, Any] = {}
    if not args.no_songs:
        report["songs"] = songs(args.seeds, {x for x in args.only.split(",") if x} or None)
        if not args.per_song:
            rows = report["songs"].pop("per_song")
            flagged = {k for key in ("a_music21_not_declared_or_relative", "b_ours_differs_from_music21",
                                     "c_ours_names_the_relative", "c_music21_names_the_relative")
                       for k in report["songs"][key]}
            report["songs"]["flagged"] = {k: rows[k] for k in sorted(flagged)}
    if args.chorales:
        report["chorales"] = chorales(args.chorales)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
