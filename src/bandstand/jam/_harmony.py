"""The little harmony the jam needs: spelled scales, chord tones, note names.

This is the smallest adapter the jam could not wait for (`bandstand.theory`
had not landed when the jam was written): scales are spelled letter by letter
from mode tables, chord symbols are a root plus a quality from a table. Note
names are lower-case mini-notation names (`c`, `f#`, `eb`; with an octave
`f#2`), with c4 = MIDI 60 as in Strudel.
"""

from __future__ import annotations

import re

from bandstand.errors import TheoryError

MODES: dict[str, tuple[int, ...]] = {
    "major": (0, 2, 4, 5, 7, 9, 11),
    "minor": (0, 2, 3, 5, 7, 8, 10),
    "dorian": (0, 2, 3, 5, 7, 9, 10),
    "phrygian": (0, 1, 3, 5, 7, 8, 10),
    "lydian": (0, 2, 4, 6, 7, 9, 11),
    "mixolydian": (0, 2, 4, 5, 7, 9, 10),
    "locrian": (0, 1, 3, 5, 6, 8, 10),
}
LETTERS = "cdefgab"
LETTER_PC = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
ACCIDENTALS = {"": 0, "#": 1, "##": 2, "b": -1, "bb": -2}
# chord quality suffix → intervals above the root
QUALITIES: dict[str, tuple[int, ...]] = {
    "": (0, 4, 7), "maj": (0, 4, 7), "M": (0, 4, 7),
    "m": (0, 3, 7), "min": (0, 3, 7), "-": (0, 3, 7),
    "dim": (0, 3, 6), "°": (0, 3, 6), "aug": (0, 4, 8), "+": (0, 4, 8),
    "sus2": (0, 2, 7), "sus4": (0, 5, 7), "sus": (0, 5, 7), "5": (0, 7),
    "7": (0, 4, 7, 10), "maj7": (0, 4, 7, 11), "M7": (0, 4, 7, 11), "m7": (0, 3, 7, 10),
    "min7": (0, 3, 7, 10), "m7b5": (0, 3, 6, 10), "ø": (0, 3, 6, 10), "dim7": (0, 3, 6, 9),
    "6": (0, 4, 7, 9), "m6": (0, 3, 7, 9), "9": (0, 4, 7, 10, 14), "m9": (0, 3, 7, 10, 14),
    "maj9": (0, 4, 7, 11, 14), "add9": (0, 4, 7, 14),
}
_NOTE = re.compile(r"^([a-gA-G])(##|#|bb|b)?(-?\d+)?$")
_CHORD = re.compile(r"^([A-G])(##|#|bb|b)?(.*?)(?:/([A-G](?:#|b)?))?$")


def pitch_class(name: str) -> int:
    """Pitch class 0–11 of a note name such as `f#` or `Eb`."""
    match = _NOTE.match(name.strip())
    if not match:
        raise TheoryError(f"not a note name: {name!r} (expected e.g. c, f#, eb)", text=name, position=0)
    return (LETTER_PC[match.group(1).lower()] + ACCIDENTALS[match.group(2) or ""]) % 12


def note_to_midi(name: str) -> int:
    """MIDI number of a note name with octave (`c4` = 60, `ab1` = 32)."""
    match = _NOTE.match(name.strip())
    if not match or match.group(3) is None:
        raise TheoryError(f"not a note with octave: {name!r} (expected e.g. c4, f#2)", text=name, position=0)
    return (int(match.group(3)) + 1) * 12 + pitch_class(name)


def spell_scale(tonic: str, mode: str) -> list[str]:
    """The scale of `tonic` `mode`, spelled with one letter per degree (`d major` → d e f# …)."""
    if mode not in MODES:
        raise TheoryError(f"unknown mode {mode!r}; known: {', '.join(MODES)}", text=mode, position=0)
    root_pc = pitch_class(tonic)
    start = LETTERS.index(tonic[0].lower())
    notes = []
    for degree, step in enumerate(MODES[mode]):
        letter = LETTERS[(start + degree) % 7]
        diff = (root_pc + step - LETTER_PC[letter]) % 12
        diff = diff - 12 if diff > 6 else diff
        accidental = {v: k for k, v in ACCIDENTALS.items()}.get(diff)
        if accidental is None:
            raise TheoryError(f"{tonic} {mode} needs a triple accidental; choose an enharmonic key")
        notes.append(letter + accidental)
    return notes


def chord_tones(symbol: str) -> tuple[int, list[int]]:
    """(root pitch class, pitch classes of the chord) of a chord symbol like `Cm`, `Ab7`, `F#m7b5`."""
    match = _CHORD.match(symbol.strip())
    if not match or match.group(3) not in QUALITIES:
        raise TheoryError(f"not a chord symbol: {symbol!r} (expected e.g. Cm, Ab, G7, F#m7b5)", text=symbol, position=0)
    root = (LETTER_PC[match.group(1).lower()] + ACCIDENTALS[match.group(2) or ""]) % 12
    return root, sorted({(root + i) % 12 for i in QUALITIES[match.group(3)]})


def name_in_scale(pc: int, scale: list[str]) -> str | None:
    """The scale's spelling of pitch class `pc`, or None when it is not in the scale."""
    return next((n for n in scale if pitch_class(n) == pc), None)


def diatonic_triad(degree: int, scale: list[str]) -> str:
    """The triad on a scale degree (0-based) as a chord symbol; diminished triads become the
    nearest stable chord (the dominant in major, the subdominant in minor) so a re-harmonized
    progression stays singable."""
    pcs = [pitch_class(n) for n in scale]
    root, third, fifth = pcs[degree % 7], pcs[(degree + 2) % 7], pcs[(degree + 4) % 7]
    quality = {(4, 7): "", (3, 7): "m"}.get(((third - root) % 12, (fifth - root) % 12))
    if quality is None:
        return diatonic_triad(4 if degree % 7 == 6 else (degree + 2) % 7, scale)
    name = scale[degree % 7]
    return name[0].upper() + name[1:] + quality
