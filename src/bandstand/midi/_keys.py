"""Key names ↔ MIDI key signatures (sharps or flats count, major or minor).

`bandstand.theory` had no key API when this was written, so this module reads
the plain "C minor" / "Eb major" form itself with two small tables; keys a
signature cannot express (modes, more than seven accidentals) give None and
the writer keeps their name in the bandstand metadata instead."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FIFTHS = {"F": -1, "C": 0, "G": 1, "D": 2, "A": 3, "E": 4, "B": 5}
_ACCIDENTAL = {"": 0, "#": 1, "##": 2, "x": 2, "b": -1, "bb": -2}
_MODE = {"": False, "major": False, "maj": False, "minor": True, "min": True, "m": True}
_MAJOR_BY_SHARPS = ("Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#")
_MINOR_BY_SHARPS = ("Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#", "G#", "D#", "A#")
_KEY_RE = re.compile(r"^\s*([A-Ga-g])(##|#|x|bb|b)?\s*(major|maj|minor|min|m)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class KeySignature:
    """A MIDI key signature: `sharps` is -7..7 (negative = flats)."""

    sharps: int
    minor: bool

    @property
    def name(self) -> str:
        """The conventional key name, e.g. "Eb major" or "C# minor"."""
        table = _MINOR_BY_SHARPS if self.minor else _MAJOR_BY_SHARPS
        return f"{table[self.sharps + 7]} {'minor' if self.minor else 'major'}"


def key_signature(key: str) -> KeySignature | None:
    """The signature of a key name such as "C minor", or None if it has none."""
    match = _KEY_RE.match(key)
    if match is None:
        return None
    letter, accidental, mode = match.group(1).upper(), (match.group(2) or "").lower(), match.group(3) or ""
    minor = False if mode == "M" else _MODE[mode.lower()]  # "CM" is C major, "Cm" C minor
    sharps = _FIFTHS[letter] + 7 * _ACCIDENTAL[accidental] - (3 if minor else 0)
    return KeySignature(sharps, minor) if -7 <= sharps <= 7 else None


def key_name(sharps: int, minor: bool) -> str | None:
    """The key name of a MIDI key signature, or None if `sharps` is out of range."""
    return KeySignature(sharps, minor).name if -7 <= sharps <= 7 else None
