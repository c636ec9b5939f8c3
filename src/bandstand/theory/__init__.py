"""Music theory for bandstand: pitches, intervals, scales, keys, chords, numerals, voicing, key detection.

Pure functions and frozen values, no I/O. Invalid input raises
`bandstand.errors.TheoryError` naming the offending text and its 0-based position.
"""

from __future__ import annotations

from bandstand.theory._chord_grammar import BASE_SUFFIXES
from bandstand.theory._chords import Chord, chord_from_notes, format_chord, make_chord, parse_chord
from bandstand.theory._detect import (
    ENSEMBLES,
    PROFILES,
    KeyEstimate,
    detect_key,
    pitch_class_histogram,
)
from bandstand.theory._intervals import (
    Interval,
    interval_between,
    parse_interval,
    transpose,
    transpose_midi,
)
from bandstand.theory._keys import KEY_MODES, Key, key_with_signature, parse_key
from bandstand.theory._notes import (
    FLAT_NAMES,
    MINOR_TONIC_NAMES,
    ROOT_NAMES,
    SHARP_NAMES,
    NoteName,
    letter_pc,
    note_to_midi,
    parse_note_name,
    pitch_class,
)
from bandstand.theory._recognise import chord_from_pitches
from bandstand.theory._roman import (
    RomanFigure,
    RomanNumeral,
    analyse_chord,
    parse_roman,
    roman_to_chord,
)
from bandstand.theory._scales import SCALE_ALIASES, SCALES, Scale, get_scale, scale_type
from bandstand.theory._spelling import midi_to_note, spell_pitch_class, spell_root
from bandstand.theory._voicing import motion, voice_chord, voice_progression

__all__ = [
    "BASE_SUFFIXES",
    "ENSEMBLES",
    "FLAT_NAMES",
    "KEY_MODES",
    "MINOR_TONIC_NAMES",
    "PROFILES",
    "ROOT_NAMES",
    "SCALES",
    "SCALE_ALIASES",
    "SHARP_NAMES",
    "Chord",
    "Interval",
    "Key",
    "KeyEstimate",
    "NoteName",
    "RomanFigure",
    "RomanNumeral",
    "Scale",
    "analyse_chord",
    "chord_from_notes",
    "chord_from_pitches",
    "detect_key",
    "format_chord",
    "get_scale",
    "interval_between",
    "key_with_signature",
    "letter_pc",
    "make_chord",
    "midi_to_note",
    "motion",
    "note_to_midi",
    "parse_chord",
    "parse_interval",
    "parse_key",
    "parse_note_name",
    "parse_roman",
    "pitch_class",
    "pitch_class_histogram",
    "roman_to_chord",
    "scale_type",
    "spell_pitch_class",
    "spell_root",
    "transpose",
    "transpose_midi",
    "voice_chord",
    "voice_progression",
]
