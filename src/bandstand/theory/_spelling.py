"""Spelling pitch classes and MIDI numbers as note names, optionally for a key."""

from __future__ import annotations

from bandstand.theory._keys import Key, parse_key
from bandstand.theory._notes import (
    FLAT_NAMES,
    MAX_OCTAVE,
    MIN_OCTAVE,
    ROOT_NAMES,
    SHARP_NAMES,
    NoteName,
    note_from_midi,
    parse_note_name,
)


def spell_pitch_class(pc: int, key: Key | str | None = None) -> str:
    """Name of pitch class `pc`: sharps without a key, the key's spelling with one."""
    if key is None:
        return SHARP_NAMES[pc % 12]
    return parse_key(key).spell(pc)


_AWKWARD = frozenset({"Cb", "Fb", "E#", "B#"})


def spell_root(pc: int, key: Key | str | None = None) -> str:
    """A chord root `pc` spelled for `key`; a chromatic root that would need a double accidental
    or an unusual name (Bbb, Fb, E#) takes the plain name a player would write (A, E, F); without
    a key, the usual root spelling (`ROOT_NAMES`)."""
    if key is None:
        return ROOT_NAMES[pc % 12]
    key = parse_key(key)
    name = key.spell(pc)
    if pc in key.scale.pitch_classes or not (name in _AWKWARD or "bb" in name or "##" in name or "x" in name):
        return name
    return (FLAT_NAMES if key.signature < 0 or name.endswith("b") else SHARP_NAMES)[pc % 12]


def spelled_midi(midi: int, key: Key | str | None = None) -> NoteName:
    """MIDI number as a spelled note with octave: the key's spelling, unless that names an octave
    outside -1..9 (MIDI 0 in C# major is C-1, not B#-2, which no parser accepts)."""
    if key is not None:
        spelled = note_from_midi(midi, parse_key(key).spell_name(midi))
        if spelled.octave is not None and MIN_OCTAVE <= spelled.octave <= MAX_OCTAVE:
            return spelled
    return note_from_midi(midi, parse_note_name(SHARP_NAMES[midi % 12]))


def midi_to_note(midi: int, key: Key | str | None = None) -> str:
    """``midi_to_note(61) == "C#4"``, ``midi_to_note(61, "Ab major") == "Db4"``, ``midi_to_note(60, "C# major") == "B#3"``."""
    return spelled_midi(midi, key).name
