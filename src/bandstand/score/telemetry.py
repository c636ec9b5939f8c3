"""Telemetry: numbers that describe how a part or a section feels, for the
composer's quality checks and the jam's musical context.

- density: note onsets per beat;
- groove: a 16-bin vector, each bar cut in 16 equal steps, velocity-weighted
  onsets per step, scaled so the strongest step is 1.0;
- kick: the kick-drum fingerprint, 16 characters (``x`` where a kick falls
  in at least half of the bars that have kicks, ``.`` elsewhere; when no step
  is that regular, the most common bar pattern), or None without kicks;
- complexity: 0..1, the mean of the normalized entropy of the onset
  distribution over the 16 steps and the share of onsets on weak steps
  (the odd sixteenths);
- energy: 0..1, half density (saturating at 6 onsets per beat) and half mean
  velocity; 0.0 with no notes;
- velocity mean and (population) variance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bandstand.score.events import Note
from bandstand.score.song import Song, Track

GROOVE_STEPS = 16
KICK_PITCHES = frozenset({35, 36})
DENSITY_SATURATION = 6.0  # onsets per beat at which the density half of energy is full


@dataclass(frozen=True, slots=True)
class Telemetry:
    """Measured figures for one track or one section (see the module docstring)."""

    name: str
    bars: float
    notes: int
    density: float
    energy: float
    groove: tuple[float, ...]
    kick: str | None
    complexity: float
    velocity_mean: float
    velocity_variance: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the groove as a list)."""
        data = asdict(self)
        data["groove"] = list(self.groove)
        return data


def _step(note: Note, beats_per_bar: float) -> tuple[int, int]:
    """(0-based bar, 0..15 step within the bar) of a note's onset, rounding to the nearest step."""
    steps = round(note.start / beats_per_bar * GROOVE_STEPS + 1e-9)
    return divmod(steps, GROOVE_STEPS)


def _groove(notes: Sequence[Note], beats_per_bar: float) -> tuple[list[float], list[int]]:
    weights = [0.0] * GROOVE_STEPS
    counts = [0] * GROOVE_STEPS
    for n in notes:
        _, step = _step(n, beats_per_bar)
        weights[step] += n.velocity / 127.0
        counts[step] += 1
    return weights, counts


def _complexity(counts: Sequence[int]) -> float:
    total = sum(counts)
    if total == 0:
        return 0.0
    entropy = -sum((c / total) * math.log2(c / total) for c in counts if c)
    weak = sum(c for step, c in enumerate(counts) if step % 2 == 1) / total
    return (entropy / math.log2(GROOVE_STEPS) + weak) / 2.0


def kick_fingerprint(notes: Iterable[Note], beats_per_bar: float) -> str | None:
    """The 16-step kick pattern shared by at least half the bars with kicks (when no step
    is, the most common bar pattern), or None without kicks."""
    by_bar: dict[int, set[int]] = {}
    for n in notes:
        if n.pitch in KICK_PITCHES:
            bar, step = _step(n, beats_per_bar)
            by_bar.setdefault(bar, set()).add(step)
    if not by_bar:
        return None
    hits = [0] * GROOVE_STEPS
    for steps in by_bar.values():
        for s in steps:
            hits[s] += 1
    shared = {s for s, h in enumerate(hits) if 2 * h >= len(by_bar)}
    if not shared:  # no step in half the bars: the most common bar pattern (earliest on ties)
        patterns = Counter(frozenset(by_bar[bar]) for bar in sorted(by_bar))
        shared = set(patterns.most_common(1)[0][0])
    return "".join("x" if s in shared else "." for s in range(GROOVE_STEPS))


def measure(
    name: str, notes: Sequence[Note], kicks: Sequence[Note], beats: float, beats_per_bar: float
) -> Telemetry:
    """Telemetry of `notes` spread over `beats`; `kicks` are the drum notes to fingerprint."""
    count = len(notes)
    density = count / beats if beats > 0 else 0.0
    weights, counts = _groove(notes, beats_per_bar)
    peak = max(weights)
    groove = tuple(round(w / peak, 6) if peak else 0.0 for w in weights)
    if count:
        mean = sum(n.velocity for n in notes) / count
        variance = sum((n.velocity - mean) ** 2 for n in notes) / count
        energy = 0.5 * min(1.0, density / DENSITY_SATURATION) + 0.5 * mean / 127.0
    else:
        mean = variance = energy = 0.0
    return Telemetry(
        name=name,
        bars=beats / beats_per_bar,
        notes=count,
        density=density,
        energy=energy,
        groove=groove,
        kick=kick_fingerprint(kicks, beats_per_bar),
        complexity=_complexity(counts),
        velocity_mean=mean,
        velocity_variance=variance,
    )


def _is_drums(track: Track) -> bool:
    return track.is_drum or track.role == "drums"


def track_telemetry(track: Track, song: Song) -> Telemetry:
    """Telemetry of one track over the whole song (named after the track)."""
    beats = song.length_beats
    kicks = track.notes if _is_drums(track) else []
    return measure(track.name, track.notes, kicks, beats, song.beats_per_bar)


def section_telemetry(song: Song) -> list[Telemetry]:
    """Telemetry of every section, over the notes of all tracks that start inside it."""
    result = []
    for section in song.sections:
        lo, hi = song.bar_to_beat(section.start_bar), song.bar_to_beat(section.end_bar)
        notes: list[Note] = []
        kicks: list[Note] = []
        for t in song.tracks:
            inside = [n for n in t.notes if lo <= n.start < hi]
            notes.extend(inside)
            if _is_drums(t):
                kicks.extend(inside)
        result.append(measure(section.name, notes, kicks, hi - lo, song.beats_per_bar))
    return result
