"""Key detection from notes (Krumhansl–Schmuckler with a choice of key profiles).

The notes' pitch classes, weighted by duration, form a 12-bin histogram that is
correlated with a major and a minor profile rotated to each of the 12 tonics.
The best of the 24 keys wins; the confidence is its share of a sharp softmax
over all 24 correlations, so a clear key scores near 1 and a tie between
relative keys near 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from bandstand.errors import TheoryError
from bandstand.theory._keys import Key, parse_key
from bandstand.theory._notes import MINOR_TONIC_NAMES, ROOT_NAMES

#: name → (major profile, minor profile), tonic first.
PROFILES: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "krumhansl": (
        (6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88),
        (6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17),
    ),
    "temperley": (
        (0.748, 0.060, 0.488, 0.082, 0.670, 0.460, 0.096, 0.715, 0.104, 0.366, 0.057, 0.400),
        (0.712, 0.084, 0.474, 0.618, 0.049, 0.460, 0.105, 0.747, 0.404, 0.067, 0.133, 0.330),
    ),
    "aarden": (
        (17.7661, 0.145624, 14.9265, 0.160186, 19.8049, 11.3587, 0.291248, 22.062, 0.145624, 8.15494,
         0.232998, 4.95122),
        (18.2648, 0.737619, 14.0499, 16.8599, 0.702494, 14.4362, 0.702494, 18.6161, 4.56621, 1.93186,
         7.37619, 1.75623),
    ),
}
#: name → profiles whose correlations are averaged (measured on 134 Bach chorales, see docs/theory.md)
ENSEMBLES: dict[str, tuple[str, ...]] = {"combined": ("temperley", "aarden")}
_SOFTMAX_TEMPERATURE = 0.05


@dataclass(frozen=True, slots=True)
class KeyEstimate:
    """The detected key, a confidence in 0..1, and every key with its correlation, best first."""

    key: Key
    confidence: float
    ranking: tuple[tuple[Key, float], ...]

    @property
    def correlation(self) -> float:
        return self.ranking[0][1]


class PitchedNote(Protocol):
    """Anything with a MIDI `pitch` and a `duration` (a `bandstand.score.Note`, say)."""

    @property
    def pitch(self) -> int: ...

    @property
    def duration(self) -> float: ...


Notes = Iterable[int] | Iterable[tuple[int, float]] | Iterable[PitchedNote]


def pitch_class_histogram(notes: Notes) -> list[float]:
    """Duration-weighted pitch-class histogram; bare MIDI numbers count 1 each."""
    hist = [0.0] * 12
    for item in notes:
        if isinstance(item, int):
            pitch, weight = item, 1.0
        elif isinstance(item, tuple | list):
            pitch, weight = item
        else:
            pitch, weight = item.pitch, item.duration
        if weight < 0:
            raise TheoryError(f"negative duration {weight} for pitch {pitch}", text=str(item), position=0)
        hist[int(pitch) % 12] += float(weight)
    return hist


def _correlation(xs: list[float], ys: tuple[float, ...]) -> float:
    mx, my = sum(xs) / 12, sum(ys) / 12
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    num = sum(a * b for a, b in zip(dx, dy, strict=True))
    den = math.sqrt(sum(a * a for a in dx) * sum(b * b for b in dy))
    return 0.0 if den == 0 else num / den


def _keys() -> list[Key]:
    return [parse_key(f"{t} major") for t in ROOT_NAMES] + [parse_key(f"{t} minor") for t in MINOR_TONIC_NAMES]


def detect_key(notes: Notes, profile: str = "temperley") -> KeyEstimate:
    """Estimate the key of some notes: MIDI numbers, (MIDI number, duration) pairs, or notes
    with `pitch` and `duration`."""
    members = ENSEMBLES.get(profile, (profile,))
    if any(m not in PROFILES for m in members):
        known = ", ".join([*PROFILES, *ENSEMBLES])
        raise TheoryError(f"unknown key profile {profile!r} (known: {known})", text=profile, position=0)
    hist = pitch_class_histogram(notes)
    if sum(hist) <= 0:
        raise TheoryError("no notes to detect a key from", text="", position=0)
    scores: list[tuple[Key, float]] = []
    for index, key in enumerate(_keys()):
        tonic = index % 12
        total = 0.0
        for member in members:
            base = PROFILES[member][0 if index < 12 else 1]
            total += _correlation(hist, tuple(base[(pc - tonic) % 12] for pc in range(12)))
        scores.append((key, total / len(members)))
    ranking = tuple(sorted(scores, key=lambda ks: -ks[1]))
    top = ranking[0][1]
    weights = [math.exp((score - top) / _SOFTMAX_TEMPERATURE) for _, score in ranking]
    confidence = weights[0] / sum(weights)
    return KeyEstimate(ranking[0][0], round(confidence, 6), ranking)
