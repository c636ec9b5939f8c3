"""Key names ↔ MIDI key signatures (sharps or flats count, major or minor).

Key names are parsed by `bandstand.theory`; keys a signature cannot express
(modes other than major and minor, more than seven accidentals, unparsable
text) give None and the writer keeps their name in the bandstand metadata."""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.errors import TheoryError
from bandstand.theory import key_with_signature, parse_key


@dataclass(frozen=True, slots=True)
class KeySignature:
    """A MIDI key signature: `sharps` is -7..7 (negative = flats)."""

    sharps: int
    minor: bool

    @property
    def name(self) -> str:
        """The conventional key name, e.g. "Eb major" or "C# minor"."""
        return key_with_signature(self.sharps, self.minor).name


def key_signature(key: str) -> KeySignature | None:
    """The signature of a key name such as "C minor", or None if it has none."""
    try:
        parsed = parse_key(key)
    except TheoryError:
        return None
    if parsed.mode not in ("major", "minor") or not -7 <= parsed.signature <= 7:
        return None
    return KeySignature(parsed.signature, parsed.mode == "minor")


def key_name(sharps: int, minor: bool) -> str | None:
    """The key name of a MIDI key signature, or None if `sharps` is out of range."""
    return KeySignature(sharps, minor).name if -7 <= sharps <= 7 else None
