"""The public API of bandstand.theory is pinned."""

from __future__ import annotations

import pytest

import bandstand.theory as theory


def test_exports_are_pinned() -> None:
    assert theory.__all__ == [
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
    for name in theory.__all__:
        assert getattr(theory, name) is not None


def test_the_briefs_examples() -> None:
    assert theory.note_to_midi("C#4") == 61
    assert theory.midi_to_note(61) == "C#4"
    assert theory.midi_to_note(61, key="Ab major") == "Db4"
    assert theory.pitch_class("Eb") == 3
    assert theory.spell_pitch_class(3, "Bb major") == "Eb"
    assert theory.transpose("C#4", "M3") == "E#4"
    assert theory.get_scale("Eb dorian").notes == ("Eb", "F", "Gb", "Ab", "Bb", "C", "Db")
    key = theory.parse_key("F# minor")
    assert (key.tonic, key.mode, key.signature) == ("F#", "minor", 3)
    chord = theory.parse_chord("Cm7b5/Gb")
    assert (chord.root, chord.root_name, chord.quality, chord.bass) == (0, "C", "m7b5", 6)
    assert chord.pitch_classes == (0, 3, 6, 10)
    assert theory.format_chord(chord) == "Cm7b5/Gb"
    assert theory.voice_chord("C", 48, 72) == (48, 52, 55)
    assert theory.roman_to_chord("V7/ii", "C major").symbol == "A7"
    assert theory.analyse_chord("A7", "C major") == "V7/ii"
    assert theory.detect_key([60, 62, 64, 65, 67, 69, 71, 72]).key.name == "C major"


def test_the_theory_core_imports_no_io_and_no_higher_layer() -> None:
    import subprocess
    import sys

    forbidden = ("asyncio", "sqlite3", "socket", "subprocess", "http", "urllib", "pathlib", "numpy", "pydantic",
                 "typer", "music21", "bandstand.midi", "bandstand.score", "bandstand.patterns", "bandstand.cli")
    code = (
        "import sys, bandstand.theory;"
        f"print(','.join(m for m in {forbidden!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def test_letter_pc_reads_either_case_and_refuses_what_is_not_a_letter() -> None:
    from bandstand.errors import TheoryError

    assert [theory.letter_pc(c) for c in "CDEFGAB"] == [0, 2, 4, 5, 7, 9, 11]
    assert [theory.letter_pc(c) for c in "cdefgab"] == [0, 2, 4, 5, 7, 9, 11]
    for bad in ("H", "", "cc", "#"):
        with pytest.raises(TheoryError, match="not a note letter"):
            theory.letter_pc(bad)
