"""`PatternTools`: pattern code as `bandstand pattern` works with it (`App.patterns()`) — evaluated,
its haps in time order, a cycle drawn as a grid of steps, rendered to a song at the program's own
tempo, checked as the band checks a member's pattern. The engine stays in `bandstand.patterns`
(reached through `producer.engines.pattern_code`, which no client imports); what a client would
otherwise decide for itself lives here: the order of haps, which rows of a grid are drums and how
pitched rows are sorted, the tempo a program that sets none plays at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numbers import Rational
    from pathlib import Path

    from bandstand.patterns import Hap, Pattern
    from bandstand.patterns.validate import ValidationReport
    from bandstand.score import Song

__all__ = ["DEFAULT_BPM", "MAX_GRID_STEPS", "PatternSong", "PatternTools"]

MAX_GRID_STEPS = 48
"""A cycle wider than this many steps is drawn quantized to it."""
DEFAULT_BPM = 120.0
"""The tempo of code that sets none (no `setcpm`/`setcps`) and is given none."""


@dataclass(frozen=True, slots=True)
class PatternSong:
    """Code rendered as a song: the song, the tempo it plays at and what the program asked for that is
    not honoured here (a `samples()` URL …)."""

    song: Song
    bpm: float
    notes: tuple[str, ...]


class PatternTools:
    """See the module docstring."""

    __slots__ = ()

    @staticmethod
    def evaluate(code: str) -> Pattern:
        """The pattern `code` makes (a `PatternError` with the column for a mistake)."""
        from bandstand.producer.engines.pattern_code import evaluate

        return evaluate(code)

    @staticmethod
    def time(t: Rational) -> Fraction:
        """A pattern time (a hap's begin or end: a gmpy2 `mpq`, which is a `numbers.Rational`) as an exact
        fraction of cycles."""
        from bandstand.producer.engines.pattern_code import as_fraction

        return as_fraction(t)

    def haps(self, pattern: Pattern, begin: Fraction, end: Fraction) -> list[Hap]:
        """The haps of `pattern` between `begin` and `end` (cycles), in time order (by their parts)."""
        return sorted(pattern.query_arc(begin, end), key=lambda h: (self.time(h.part.begin), self.time(h.part.end)))

    def grid(self, pattern: Pattern, cycle: int) -> list[str]:
        """One cycle as rows of steps: 'x' an onset, '-' a held note, '.' nothing (a drum is not held).
        Unpitched rows first by name, then pitched rows high to low, like a piano roll."""
        from bandstand.producer.engines.pattern_code import value_pitch

        every = pattern.query_arc(cycle, cycle + 1)
        haps = [h for h in every if h.whole is not None]
        if not haps:
            if every:
                return [f"cycle {cycle}: (a continuous signal; add .segment(8) to see it in steps)"]
            return [f"cycle {cycle}: (silence)"]
        points = {self.time(t) - cycle for h in haps for t in (h.part.begin, h.part.end)}
        steps = 1
        for p in points:
            steps = steps * p.denominator // math.gcd(steps, p.denominator)
        quantized = steps > MAX_GRID_STEPS
        steps = min(steps, MAX_GRID_STEPS)
        rows: dict[str, list[str]] = {}
        order: dict[str, tuple[float, str]] = {}
        for h in haps:
            label = _label(h.value)
            row = rows.setdefault(label, ["."] * steps)
            if label not in order:
                pitch = value_pitch(h.value)
                order[label] = (-math.inf if pitch is None else -pitch, label)
            first = math.floor((self.time(h.part.begin) - cycle) * steps)
            if not _is_drum(h.value):
                last = max(first + 1, math.ceil((self.time(h.part.end) - cycle) * steps))
                for i in range(first, min(last, steps)):
                    if row[i] == ".":
                        row[i] = "-"
            if h.has_onset():
                row[first] = "x"
        width = max(len(label) for label in rows)
        note = ", quantized" if quantized else ""
        lines = [f"cycle {cycle} ({steps} steps{note})"]
        lines += [f"  {label.ljust(width)} |{''.join(rows[label])}|" for label in sorted(rows, key=order.__getitem__)]
        return lines

    @staticmethod
    def song(code: str, cycles: int, *, bpm: float | None = None, beats_per_cycle: int = 4,
             title: str = "pattern") -> PatternSong:
        """`cycles` of the program `code` as a song: at `bpm`, else the program's own tempo (its cycles per
        second × beats in a cycle × 60), else `DEFAULT_BPM`."""
        from bandstand.producer.engines.pattern_code import pattern_to_song, run_program

        program = run_program(code)
        if bpm is None:
            bpm = float(program.cps * 60 * beats_per_cycle) if program.cps is not None else DEFAULT_BPM
        song = pattern_to_song(program.pattern, cycles, bpm=bpm, beats_per_cycle=beats_per_cycle, title=title)
        return PatternSong(song, bpm, tuple(program.notes))

    @staticmethod
    def write_midi(made: PatternSong, path: Path) -> None:
        """The song `song()` made as a Standard MIDI File at `path` (written atomically)."""
        from bandstand.producer.engines.rendering import write_midi

        write_midi(made.song, path)

    @staticmethod
    def write_wav(made: PatternSong, path: Path) -> None:
        """The song `song()` made, played by the built-in synthesizer into a WAV file at `path`."""
        from bandstand.producer.engines.rendering import render_wav

        render_wav(made.song, path)

    @staticmethod
    def validate(code: str, *, scale: str | None = None, cycles: int = 4) -> ValidationReport:
        """`code` checked as the jam band checks a pattern: it parses, its functions and sounds are known,
        its density, its notes in `scale` (`patterns.validate.validate_pattern`)."""
        from bandstand.producer.engines.pattern_code import validate_pattern

        return validate_pattern(code, scale=scale, cycles=cycles)


def _label(value: object) -> str:
    """A grid row's name: the sound and note of a hap's value, else its fields."""
    if isinstance(value, dict):
        parts = [str(value[k]) for k in ("s", "note") if k in value]
        if "n" in value and "note" not in value:
            parts.append(f"n{value['n']}")
        if parts:
            return " ".join(parts)
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _is_drum(value: object) -> bool:
    from bandstand.producer.engines.pattern_code import lookup_sound, value_sound

    name = value_sound(value)
    sound = lookup_sound(name) if name else None
    return sound is not None and sound.kind == "drum"
