"""Spelling pitch classes and MIDI numbers as note names, optionally for a key."""

from __future__ import annotations

from bandstand.theory._keys import Key, parse_key
from bandstand.theory._notes import (
    MAX_OCTAVE,
    MIN_OCTAVE,
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
