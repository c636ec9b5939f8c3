"""Note-level musicianship rows of the songwriting benchmark (issue #30), each
measured per song and summarised over the prompt set:

- strong-beat chord-tone rate: the share of the melodic parts' notes on beats 1
  and 3 that are tones of the bar's planned chord (compose's own
  `chord_tone_rate_strong`, bass, lead and counter-melody) and per role (the
  quality figures `chord_tones.<role>`); target a band around 0.95–0.99
  (Bach's chorales: 0.984);
- notes per bar, every part together, against the reference range of the
  song's idiom (`bandstand.craft.density.notes_per_bar_range`, defined once
  there with its source), and per role;
- chord notes below C3 (MIDI 48) and below the comping floor (the chords and pad
  tracks' notes under `bandstand.craft.density.COMP_FLOOR`);
- the bottom of the ending: the bass plays in the song's last bar and its last
  note is the tonic (target ≥ 0.9).
"""

from __future__ import annotations

import statistics
from typing import Any

from songwriting_idioms import Heard

__all__ = ["note_row", "summarise"]

C3 = 48
COMPING = ("chords", "pad")


def _bass_ending(h: Heard) -> tuple[bool | None, bool | None]:
    bass = h.role("bass", "sub_bass")
    if not bass:
        return None, None
    end = h.total_beats
    last_bar_start = (int((end - 0.1) // h.bpb)) * h.bpb
    last = max(bass, key=lambda n: (n[0], -n[2]))
    in_final = last[0] + last[1] > last_bar_start + 0.1
    return in_final, in_final and last[2] % 12 == h.tonic


def note_row(h: Heard, quality: dict[str, Any], genre: str) -> dict[str, Any]:
    """The note-level figures of one song (see the module docstring)."""
    from bandstand.craft.density import COMP_FLOOR, notes_per_bar_range

    figures = quality.get("figures") or {}
    metrics = quality.get("metrics") or {}
    row: dict[str, Any] = {"chord_tones_strong": metrics.get("chord_tone_rate_strong")}
    for role in ("bass", "chords", "lead", "pad"):
        fig = figures.get(f"chord_tones.{role}")
        row[f"chord_tones.{role}"] = fig.get("value") if fig else None
    bars = max(1.0, h.total_beats / h.bpb)
    npb = sum(len(p.notes) for p in h.parts) / bars
    lo, hi = notes_per_bar_range(genre)
    row["notes_per_bar"] = round(npb, 2)
    row["notes_per_bar_in_range"] = lo <= npb <= hi
    for p in h.parts:
        key = f"npb.{p.role}"
        row[key] = round(row.get(key, 0.0) + len(p.notes) / bars, 2)
    comp = [n for p in h.parts if p.role in COMPING and not p.drum for n in p.notes]
    row["chord_below_c3"] = round(sum(1 for n in comp if n[2] < C3) / len(comp), 3) if comp else None
    row["chord_below_floor"] = round(sum(1 for n in comp if n[2] < COMP_FLOOR) / len(comp), 3) if comp else None
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
