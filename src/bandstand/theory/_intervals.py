"""Intervals: a number of letter steps plus a number of semitones.

``Interval(steps=2, semitones=4)`` is a major third; a negative interval goes
down. Names follow the usual shorthand (``P5``, ``m3``, ``A4``, ``d7``, ``M9``;
``3M`` is accepted too, as tonal writes it). Spelled transposition moves the
letter by `steps` and fixes the accidental to land on `semitones`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bandstand.errors import TheoryError
from bandstand.theory._notes import LETTER_PCS, NoteName, note_to_midi, parse_note_name

#: Semitones of the perfect/major interval for each simple step count (unison … seventh).
_BASE_SEMITONES: tuple[int, ...] = (0, 2, 4, 5, 7, 9, 11)
_PERFECT_STEPS = frozenset({0, 3, 4})
#: quality letter(s) → offset from the perfect (first table) or major (second table) size.
_PERFECT_QUALITIES: dict[str, int] = {"P": 0, "A": 1, "AA": 2, "d": -1, "dd": -2}
_MAJOR_QUALITIES: dict[str, int] = {"M": 0, "m": -1, "A": 1, "AA": 2, "d": -2, "dd": -3}
_PERFECT_NAMES = {v: k for k, v in _PERFECT_QUALITIES.items()}
_MAJOR_NAMES = {v: k for k, v in _MAJOR_QUALITIES.items()}
#: How a bare number of semitones is spelled (within an octave).
_DEFAULT_SPELLING: tuple[tuple[int, int], ...] = (
    (0, 0), (1, 1), (1, 2), (2, 3), (2, 4), (3, 5), (3, 6), (4, 7), (5, 8), (5, 9), (6, 10), (6, 11),
)
_NAME_RE = re.compile(r"^(-?)(?:(P|M|m|AA|A|dd|d)(\d+)|(\d+)(P|M|m|AA|A|dd|d))$")


@dataclass(frozen=True, slots=True)
class Interval:
    """A spelled interval: signed letter `steps` (0 = unison, 2 = third) and signed `semitones`."""

    steps: int
    semitones: int

    @classmethod
    def from_semitones(cls, semitones: int) -> Interval:
        """The usual spelling of a number of semitones (6 is an augmented fourth)."""
        sign = -1 if semitones < 0 else 1
        octaves, rest = divmod(abs(semitones), 12)
        steps, _ = _DEFAULT_SPELLING[rest]
        return cls(sign * (steps + 7 * octaves), semitones)

    @property
    def number(self) -> int:
        """The interval number, 1 for a unison, 3 for a third, 9 for a ninth (always positive)."""
        return abs(self.steps) + 1

    @property
    def quality(self) -> str:
        """``P``, ``M``, ``m``, ``A``, ``d`` (doubled for doubly augmented/diminished)."""
        steps, semis = abs(self.steps), abs(self.semitones)
        if self.steps == 0:
            semis = self.semitones  # a unison's direction is its semitone sign
        simple = steps % 7
        delta = semis - (_BASE_SEMITONES[simple] + 12 * (steps // 7))
        names = _PERFECT_NAMES if simple in _PERFECT_STEPS else _MAJOR_NAMES
        if delta in names:
            return names[delta]
        return ("A" if delta > 0 else "d") * abs(delta)

    @property
    def name(self) -> str:
        """``M3``, ``P5``, ``-m2`` (descending), ``M9``."""
        sign = "-" if self.steps < 0 or (self.steps == 0 and self.semitones < 0) else ""
        return f"{sign}{self.quality}{self.number}"

    @property
    def simple(self) -> Interval:
        """The same interval folded inside an octave."""
        sign = -1 if self.steps < 0 else 1
        octaves = abs(self.steps) // 7
        return Interval(self.steps - sign * 7 * octaves, self.semitones - sign * 12 * octaves)

    def inverted(self) -> Interval:
        """The inversion inside an octave (M3 → m6, P4 → P5)."""
        s = self.simple
        return Interval((7 - s.steps) % 7, (12 - s.semitones) % 12 if s.steps or s.semitones else 0)

    def __neg__(self) -> Interval:
        return Interval(-self.steps, -self.semitones)

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.steps + other.steps, self.semitones + other.semitones)

    def __str__(self) -> str:
        return self.name


def parse_interval(text: str | Interval | int) -> Interval:
    """An `Interval` from a name (``"M3"``, ``"3M"``, ``"-P5"``), an Interval, or semitones."""
    if isinstance(text, Interval):
        return text
    if isinstance(text, int):
        return Interval.from_semitones(text)
    m = _NAME_RE.match(text.strip())
    if m is None:
        raise TheoryError(
            f"not an interval: {text!r} (expected a quality P M m A d and a number, like M3 or P5)",
            text=text, position=0,
        )
    sign, q1, n1, n2, q2 = m.groups()
    quality, number = (q1, n1) if q1 else (q2, n2)
    n = int(number)
    if n < 1:
        raise TheoryError(f"interval number must be 1 or more in {text!r}", text=text, position=len(sign) + 1)
    steps = n - 1
    simple = steps % 7
    table = _PERFECT_QUALITIES if simple in _PERFECT_STEPS else _MAJOR_QUALITIES
    if quality not in table:
        kind = "perfect (P, A, d)" if table is _PERFECT_QUALITIES else "major/minor (M, m, A, d)"
        raise TheoryError(
            f"a {n} takes a {kind} quality, not {quality!r}, in {text!r}", text=text, position=len(sign)
        )
    semis = _BASE_SEMITONES[simple] + 12 * (steps // 7) + table[quality]
    factor = -1 if sign else 1
    return Interval(factor * steps, factor * semis)


def transpose_name(note: NoteName, interval: Interval) -> NoteName:
    """Move a spelled note by a spelled interval (keeps octave presence)."""
    target_step = note.letter + interval.steps
    letter = target_step % 7
    octave_shift = target_step // 7
    natural = LETTER_PCS[letter] + 12 * octave_shift
    start = LETTER_PCS[note.letter] + note.alter
    alter = start + interval.semitones - natural
    octave = None if note.octave is None else note.octave + octave_shift
    return NoteName(letter, alter, octave)


def transpose(note: str, interval: str | Interval | int) -> str:
    """``transpose("C#4", "M3") == "E#4"``; works on names with or without an octave."""
    return transpose_name(parse_note_name(note), parse_interval(interval)).name


def transpose_midi(midi: int, interval: str | Interval | int) -> int:
    """``transpose_midi(60, "P5") == 67``; an int interval is semitones."""
    return midi + parse_interval(interval).semitones


def interval_of(a: NoteName, b: NoteName) -> Interval:
    """Spelled interval from `a` up to `b` (with octaves when both have them, else the upward simple one)."""
    semis = (LETTER_PCS[b.letter] + b.alter) - (LETTER_PCS[a.letter] + a.alter)
    if a.octave is not None and b.octave is not None:
        return Interval(b.step - a.step, b.midi - a.midi)
    steps = (b.letter - a.letter) % 7
    if b.letter < a.letter:
        semis += 12
    return Interval(steps, semis)


def interval_between(a: str | int, b: str | int) -> Interval:
    """The interval from `a` to `b`: spelled for two note names, by semitones for MIDI numbers."""
    if isinstance(a, str) and isinstance(b, str):
        return interval_of(parse_note_name(a), parse_note_name(b))
    ma = a if isinstance(a, int) else note_to_midi(a)
    mb = b if isinstance(b, int) else note_to_midi(b)
    return Interval.from_semitones(mb - ma)
