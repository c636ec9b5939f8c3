"""Note-level musicianship rows of the songwriting benchmark (issue #30), each
measured per song and summarised over the prompt set:

- strong-beat chord-tone rate: the share of the notes on beats 1 and 3 of every
  pitched part (bass, chords, lead, pad, counter-melody, arpeggio) that are
  tones of the bar's planned chord, raw (a suspension counts against it), all
  parts together (as Bach's four voices were counted: 0.984) and per role;
  target a band around 0.95–0.99; beside it compose's own
  `chord_tone_rate_strong` (bass and melody only);
- notes per bar, every part together, against the reference range of the
  song's idiom (`bandstand.craft.density.notes_per_bar_range`, defined once
  there with its source), and per role;
- chord notes below C3 (MIDI 48) and below the idiom's comping floor (the chords
  and pad tracks' notes under `bandstand.craft.density.comp_floor`: D3, or E2 for
  power chords and chugs);
- the bottom of the ending: the bass plays in the song's last bar and its last
  note is the tonic (target ≥ 0.9).
"""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path
from typing import Any

from songwriting_idioms import Heard

__all__ = ["note_row", "summarise"]

C3 = 48
COMPING = ("chords", "pad")
STRONG_ROLES = ("bass", "sub_bass", "chords", "lead", "pad", "counter_melody", "arp")
TOL = 0.125  # beats: a 32nd either side of the beat counts as on it (as the quality figures read it)


def _strong(bpb: float) -> tuple[float, ...]:
    return (0.0, bpb / 2) if bpb >= 4 else (0.0,)


def _density() -> tuple[Any, Any]:
    """The comping floor and the notes-per-bar ranges: the measured source's own table, or, when
    it predates the table (a ``--baseline`` checkout), this checkout's, so both are held to one
    reference."""
    try:
        from bandstand.craft import density
    except ImportError:
        path = Path(__file__).resolve().parent.parent / "src" / "bandstand" / "craft" / "density.py"
        spec = importlib.util.spec_from_file_location("_bench_density", path)
        assert spec is not None and spec.loader is not None
        density = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(density)
    return density.comp_floor, density.notes_per_bar_range


def _bass_ending(h: Heard) -> tuple[bool | None, bool | None]:
    bass = h.role("bass", "sub_bass")
    if not bass:
        return None, None
    end = h.total_beats
    last_bar_start = (int((end - 0.1) // h.bpb)) * h.bpb
    last = max(bass, key=lambda n: (n[0], -n[2]))
    in_final = last[0] + last[1] > last_bar_start + 0.1
    return in_final, in_final and last[2] % 12 == h.tonic


def note_row(h: Heard, quality: dict[str, Any], drum_family: str, comp_style: str) -> dict[str, Any]:
    """The note-level figures of one song of an idiom (its drum family and comping style; see
    the module docstring)."""
    comp_floor, npb_range = _density()
    floor = comp_floor(comp_style)
    metrics = quality.get("metrics") or {}
    row: dict[str, Any] = {"chord_tones_strong_melodic": metrics.get("chord_tone_rate_strong")}
    chords = [frozenset(c) for c in quality.get("chords_per_bar") or []]
    counts: dict[str, list[int]] = {}
    for p in h.parts:
        if p.drum or p.role not in STRONG_ROLES or not chords:
            continue
        tally = counts.setdefault(p.role, [0, 0])
        for start, _, pitch, _ in p.notes:
            pos = start % h.bpb
            if not any(abs(pos - b) <= TOL or abs(pos - b - h.bpb) <= TOL for b in _strong(h.bpb)):
                continue
            bar = min(len(chords) - 1, int((start + TOL) // h.bpb))
            tally[0] += pitch % 12 in chords[bar]
            tally[1] += 1
    hit, total = sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())
    row["chord_tones_strong"] = round(hit / total, 4) if total else None
    for role in ("bass", "chords", "lead", "pad"):
        c = counts.get(role)
        row[f"chord_tones.{role}"] = round(c[0] / c[1], 4) if c and c[1] else None
    bars = max(1.0, h.total_beats / h.bpb)
    npb = sum(len(p.notes) for p in h.parts) / bars
    try:  # the genre picks the range where its band is not its drum family's (salsa's percussion section)
        lo, hi = npb_range(drum_family, str(quality.get("genre", "")).lower())
    except TypeError:  # a --baseline checkout whose range is the drum family's alone
        lo, hi = npb_range(drum_family)
    row["notes_per_bar"] = round(npb, 2)
    row["notes_per_bar_in_range"] = lo <= npb <= hi
    for p in h.parts:
        key = f"npb.{p.role}"
        row[key] = round(row.get(key, 0.0) + len(p.notes) / bars, 2)
    comp = [n for p in h.parts if p.role in COMPING and not p.drum for n in p.notes]
    row["chord_below_c3"] = round(sum(1 for n in comp if n[2] < C3) / len(comp), 3) if comp else None
    row["chord_below_floor"] = round(sum(1 for n in comp if n[2] < floor) / len(comp), 3) if comp else None
    row["bass_in_final_bar"], row["bass_ends_on_tonic"] = _bass_ending(h)
    return row


def _share(values: list[Any]) -> float | None:
    kept = [bool(v) for v in values if v is not None]
    return round(sum(kept) / len(kept), 3) if kept else None


def _spread(values: list[Any]) -> dict[str, float] | None:
    kept = sorted(float(v) for v in values if v is not None)
    if not kept:
        return None
    return {"min": round(kept[0], 3), "median": round(statistics.median(kept), 3), "max": round(kept[-1], 3)}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The rows of every song as shares and spreads."""
    col = lambda k: [r.get(k) for r in rows]  # noqa: E731
    roles = sorted({k for r in rows for k in r if k.startswith("npb.")})
    rate = col("chord_tones_strong")
    return {
        "chord_tones_strong": _spread(rate),
        "chord_tones_strong_in_0.95_0.99": _share([None if v is None else 0.95 <= v <= 0.99 for v in rate]),
        "chord_tones_strong_melodic": _spread(col("chord_tones_strong_melodic")),
        "chord_tones_by_role_median": {role: (_spread(col(f"chord_tones.{role}")) or {}).get("median")
                                       for role in ("bass", "chords", "lead", "pad")},
        "notes_per_bar": _spread(col("notes_per_bar")),
        "notes_per_bar_in_range": _share(col("notes_per_bar_in_range")),
        "notes_per_bar_by_role_median": {k[4:]: (_spread(col(k)) or {}).get("median") for k in roles},
        "chord_below_c3": _spread(col("chord_below_c3")),
        "chord_below_floor_max": (_spread(col("chord_below_floor")) or {}).get("max"),
        "bass_in_final_bar": _share(col("bass_in_final_bar")),
        "bass_ends_on_tonic": _share(col("bass_ends_on_tonic")),
    }
