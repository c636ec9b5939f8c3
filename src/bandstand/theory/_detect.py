"""Key detection from notes (Krumhansl–Schmuckler with a choice of key profiles).

The notes' pitch classes, weighted by duration, form a 12-bin histogram that is
correlated with a major and a minor profile rotated to each of the 12 tonics.
When the notes carry their onsets, the bass of the first and of the last
sonority adds a small bonus to the keys whose tonic it is (a piece starts and,
above all, ends on its tonic in the bass, on a chord with a third): that is what
tells a minor key from its relative major, which share a scale and nearly a
histogram. The best of the
24 keys wins; the confidence is its share of a sharp softmax over all 24 scores,
so a clear key scores near 1 and a tie between relative keys near 0.5.
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
#: the profile `detect_key` uses unless told: Temperley's minor profile expects the raised leading tone
#: of classical minor and hears an aeolian pop song in its relative major; the mean with Aarden–Essen's
#: does not (see docs/theory.md, "Key detection")
DEFAULT_PROFILE = "combined"
#: the bonus to a key whose tonic is the bass of the (first, last) sonority, when onsets are known:
#: large enough to choose between relative keys, too small to outvote a clear histogram
TONIC_AT_THE_ENDS = (0.03, 0.05)
_SOFTMAX_TEMPERATURE = 0.05
_TOL = 0.05  # beats: notes struck this close together are one sonority
#: the intervals above the bass a last sonority may hold to be heard as an ending: a triad with its
#: sixth, seventh or ninth (a loop that stops on a sus chord or a suspension has not ended)
_ENDING = frozenset({0, 2, 3, 4, 7, 9, 10, 11})


@dataclass(frozen=True, slots=True)
class KeyEstimate:
    """The detected key, a confidence in 0..1, and every key with its score, best first (its
    profile correlation plus, when the notes carry onsets, the tonic-at-the-ends bonus)."""

    key: Key
    confidence: float
    ranking: tuple[tuple[Key, float], ...]
    bonus: float = 0.0  # the part of the best key's score the bass at the ends gave it

    @property
    def correlation(self) -> float:
        """The best key's profile correlation alone: how clearly the notes' histogram names it."""
        return round(self.ranking[0][1] - self.bonus, 12)


class PitchedNote(Protocol):
    """Anything with a MIDI `pitch` and a `duration` (a `bandstand.score.Note`, say); one that also
    has a `start` (in beats) lets the finder hear the bass at the ends."""

    @property
    def pitch(self) -> int: ...

    @property
    def duration(self) -> float: ...


Notes = (Iterable[int] | Iterable[tuple[int, float]] | Iterable[tuple[int, float, float]]
         | Iterable[PitchedNote])


def _read(notes: Notes) -> list[tuple[int, float, float | None]]:
    """(pitch, duration, onset or None) of every note; bare MIDI numbers last 1 each."""
    read: list[tuple[int, float, float | None]] = []
    for item in notes:
        start: float | None = None
        if isinstance(item, int):
            pitch, weight = item, 1.0
        elif isinstance(item, tuple | list):
            pitch, weight = item[0], item[1]
            start = float(item[2]) if len(item) > 2 else None
        else:
            pitch, weight = item.pitch, item.duration
            at = getattr(item, "start", None)
            start = None if at is None else float(at)
        if weight < 0:
            raise TheoryError(f"negative duration {weight} for pitch {pitch}", text=str(item), position=0)
        read.append((int(pitch), float(weight), start))
    return read


def pitch_class_histogram(notes: Notes) -> list[float]:
    """Duration-weighted pitch-class histogram; bare MIDI numbers count 1 each."""
    return _histogram(_read(notes))


def _histogram(read: list[tuple[int, float, float | None]]) -> list[float]:
    hist = [0.0] * 12
    for pitch, weight, _ in read:
        hist[pitch % 12] += weight
    return hist


def _bass_at_the_ends(read: list[tuple[int, float, float | None]]) -> tuple[int | None, int | None] | None:
    """The pitch classes of the lowest note struck first and of the lowest note still sounding
    at the last onset — None for the latter unless the last sonority is a chord that ends (a third
    above its bass, nothing but `_ENDING` tones), None for both unless every note has an onset."""
    timed = [(p, d, s) for p, d, s in read if d > 0 and s is not None]
    if not timed or len(timed) < len(read):
        return None
    first = min(s for _, _, s in timed)
    last = max(s for _, _, s in timed)
    opening = min(p for p, _, s in timed if s <= first + _TOL)
    final = [p for p, d, s in timed if s >= last - _TOL or s + d > last + _TOL]  # struck at the end, or held into it
    bass = min(final)
    above = {(p - bass) % 12 for p in final}
    return opening % 12, bass % 12 if above & {3, 4} and above <= _ENDING else None


def _correlation(xs: list[float], ys: tuple[float, ...]) -> float:
    mx, my = sum(xs) / 12, sum(ys) / 12
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    num = sum(a * b for a, b in zip(dx, dy, strict=True))
    den = math.sqrt(sum(a * a for a in dx) * sum(b * b for b in dy))
    return 0.0 if den == 0 else num / den


def _keys() -> list[Key]:
    return [parse_key(f"{t} major") for t in ROOT_NAMES] + [parse_key(f"{t} minor") for t in MINOR_TONIC_NAMES]


def detect_key(notes: Notes, profile: str = DEFAULT_PROFILE) -> KeyEstimate:
    """Estimate the key of some notes: MIDI numbers, (MIDI number, duration) pairs, (MIDI
    number, duration, onset) triples, or notes with `pitch`, `duration` and perhaps `start`.
    With onsets for every note, the bass at the ends weighs in (`TONIC_AT_THE_ENDS`)."""
    members = ENSEMBLES.get(profile, (profile,))
    if any(m not in PROFILES for m in members):
        known = ", ".join([*PROFILES, *ENSEMBLES])
        raise TheoryError(f"unknown key profile {profile!r} (known: {known})", text=profile, position=0)
    read = _read(notes)
    hist = _histogram(read)
    if sum(hist) <= 0:
        raise TheoryError("no notes to detect a key from", text="", position=0)
    ends = _bass_at_the_ends(read)
    scores: list[tuple[Key, float, float]] = []
    for index, key in enumerate(_keys()):
        tonic = index % 12
        total = 0.0
        for member in members:
            base = PROFILES[member][0 if index < 12 else 1]
            total += _correlation(hist, tuple(base[(pc - tonic) % 12] for pc in range(12)))
        bonus = 0.0 if ends is None else sum(w for w, pc in zip(TONIC_AT_THE_ENDS, ends, strict=True) if pc == tonic)
        scores.append((key, total / len(members) + bonus, bonus))
    scores.sort(key=lambda ksb: -ksb[1])
    ranking = tuple((k, score) for k, score, _ in scores)
    top = ranking[0][1]
    weights = [math.exp((score - top) / _SOFTMAX_TEMPERATURE) for _, score in ranking]
    confidence = weights[0] / sum(weights)
    return KeyEstimate(ranking[0][0], round(confidence, 6), ranking, scores[0][2])
