"""JavaScript-compatible value semantics for pattern values.

Strudel runs on JavaScript numbers, so mini-notation atoms, arithmetic and
note names must follow JS rules to give identical events: `Number(text)`
parsing, `%` keeping the dividend's sign, division by zero giving infinities,
and note names as MIDI numbers (c3 = 48 by default).
"""

from __future__ import annotations

import math
import re
from typing import Any

from bandstand.theory import letter_pc

__all__ = ["is_note", "js_number", "js_truthy", "norm_number", "note_to_midi", "parse_numeral"]

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")
_RADIX = {"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}
_NOTE = re.compile(r"^([a-gA-G])([#bsf]*)(-?[0-9]*)$")
_ACCS = {"#": 1, "b": -1, "s": 1, "f": -1}
_MAX_SAFE = 2**53


def norm_number(x: float | int) -> float | int:
    """An integral finite float as int (JS has one number type; JSON prints them alike)."""
    if type(x) is float and x.is_integer() and abs(x) < _MAX_SAFE:
        return int(x)
    return x


def js_number(text: str) -> float | int | None:
    """JavaScript's `Number(text)` for a string, or None where JS gives NaN."""
    s = text.strip(" \t\n\r\u00a0\ufeff\u2028\u2029\v\f")
    if s == "":
        return 0
    if s in ("Infinity", "+Infinity"):
        return math.inf
    if s == "-Infinity":
        return -math.inf
    prefix = s[:2]
    if prefix in _RADIX:
        digits = s[2:]
        try:
            return int(digits, _RADIX[prefix]) if digits and "_" not in digits else None
        except ValueError:
            return None
    if _DECIMAL.fullmatch(s):
        return norm_number(float(s))
    return None


def is_note(value: Any) -> bool:
    return isinstance(value, str) and _NOTE.match(value) is not None


def note_to_midi(note: str, default_octave: int = 3) -> int:
    """A note name (c3, eb4, f#2, Bb) as a MIDI number; the octave defaults to 3."""
    m = _NOTE.match(note)
    if m is None:
        raise ValueError(f'not a note: "{note}"')
    pc, acc, octave = m.groups()
    offset = sum(_ACCS[c] for c in acc)
    return (
        (int(octave) if octave not in ("", "-") else default_octave) * 12
        + 12
        + letter_pc(pc)
        + offset
    )


def parse_numeral(value: Any) -> float | int:
    """Strudel's parseNumeral: numbers, numeric strings and note names as numbers."""
    t = type(value)
    if t is int or t is float:
        return value  # type: ignore[no-any-return]
    if t is bool:
        return int(value)
    if t is str:
        n = js_number(value)
        if n is not None:
            return n
        if is_note(value):
            return note_to_midi(value)
    if value is None:
        return 0
    raise ValueError(f'cannot parse as numeral: "{value}"')


def js_truthy(x: Any) -> bool:
    """JavaScript truthiness (0, NaN, "", null, false are false; [] and {} are true)."""
    if x is None or x is False:
        return False
    if isinstance(x, (int, float)):
        return not (x == 0 or x != x)
    if isinstance(x, str):
        return x != ""
    return True
