"""Note names ↔ MIDI numbers, pitch classes and spelling."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import (
    KEY_MODES,
    get_scale,
    midi_to_note,
    note_to_midi,
    parse_key,
    parse_note_name,
    pitch_class,
    spell_pitch_class,
)


@pytest.mark.parametrize(
    ("name", "midi"),
    [
        ("C4", 60), ("A4", 69), ("C-1", 0), ("G9", 127), ("C#4", 61), ("Db4", 61), ("c#4", 61),
        ("B#3", 60), ("Cb4", 59), ("E#4", 65), ("Fb4", 64), ("Cx4", 62), ("C##4", 62), ("Dbb4", 60),
        ("bb3", 58), ("Bb3", 58), ("eb2", 39), ("A0", 21), ("C8", 108), ("F♯3", 54), ("B♭2", 46),
        ("Ebb5", 74), ("G𝄪4", 69), ("cs4", 61), ("ef4", 63),
    ],
)
def test_note_to_midi_facts(name: str, midi: int) -> None:
    assert note_to_midi(name) == midi


def test_default_octave_only_when_asked() -> None:
    assert note_to_midi("C", default_octave=3) == 48
    with pytest.raises(TheoryError) as info:
        note_to_midi("C")
    assert info.value.position == 1


@pytest.mark.parametrize(
    ("text", "position"),
    [("H4", 0), ("", 0), ("C#b4", 2), ("C4x", 2), ("C#4.5", 3), ("  Q", 2), ("C#####4", 4)],
)
def test_bad_note_names_point_at_the_offending_character(text: str, position: int) -> None:
    with pytest.raises(TheoryError) as info:
        note_to_midi(text, default_octave=4)
    assert info.value.position == position
    assert info.value.text == text
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "pc"), [("C", 0), ("Eb", 3), ("D#", 3), ("B#", 0), ("Cb", 11), ("Fx", 7), ("Abb", 7), ("G4", 7)]
)
def test_pitch_class(name: str, pc: int) -> None:
    assert pitch_class(name) == pc


@pytest.mark.parametrize(
    ("midi", "key", "name"),
    [
        (61, None, "C#4"), (61, "Ab major", "Db4"), (61, "A major", "C#4"), (60, "C# major", "B#3"),
        (59, "Gb major", "Cb4"), (66, "C major", "F#4"), (70, "C major", "Bb4"), (63, "C minor", "Eb4"),
        (68, "A minor", "G#4"), (66, "A minor", "F#4"), (68, "Db major", "Ab4"), (65, "F# major", "E#4"),
        (62, "Eb minor", "D4"), (64, "F minor", "E4"), (56, "E major", "G#3"), (71, "F major", "B4"),
    ],
)
def test_midi_to_note_spells_for_the_key(midi: int, key: str | None, name: str) -> None:
    assert midi_to_note(midi, key) == name


@pytest.mark.parametrize(
    ("pc", "key", "name"),
    [(3, "Bb major", "Eb"), (10, "F major", "Bb"), (6, "G major", "F#"), (1, "D major", "C#"),
     (8, "Eb major", "Ab"), (11, "Gb major", "Cb"), (5, "C# minor", "E#"), (1, "Bb minor", "Db")],
)
def test_spell_pitch_class(pc: int, key: str, name: str) -> None:
    assert spell_pitch_class(pc, key) == name
    assert spell_pitch_class(pc, parse_key(key)) == name


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.integers(min_value=0, max_value=127))
def test_midi_round_trips_through_its_name(midi: int) -> None:
    assert note_to_midi(midi_to_note(midi)) == midi


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(
    st.integers(min_value=0, max_value=127),
    st.sampled_from(["C", "G", "D", "A", "E", "B", "F#", "C#", "F", "Bb", "Eb", "Ab", "Db", "Gb", "Cb"]),
    st.sampled_from(KEY_MODES),
)
def test_midi_round_trips_through_a_key_spelling(midi: int, tonic: str, mode: str) -> None:
    name = midi_to_note(midi, f"{tonic} {mode}")
    assert note_to_midi(name) == midi
    assert pitch_class(name) == midi % 12


def test_the_lowest_note_keeps_a_name_the_parser_reads() -> None:
    # B#-2 is MIDI 0 in C# major, but octaves run from -1: the plain spelling names it
    assert midi_to_note(0, "C# major") == "C-1" and midi_to_note(12, "C# major") == "B#-1"
    assert note_to_midi(midi_to_note(127, "Cb major")) == 127


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.integers(min_value=-1, max_value=9), st.sampled_from("CDEFGAB"), st.sampled_from(["", "#", "b", "x", "bb"]))
def test_spelled_names_round_trip(octave: int, letter: str, accidental: str) -> None:
    name = f"{letter}{accidental}{octave}"
    parsed = parse_note_name(name)
    assert note_to_midi(parsed.name) == note_to_midi(name)
    assert parsed.name == name.replace("x", "##")


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(["C", "G", "D", "A", "E", "B", "F#", "F", "Bb", "Eb", "Ab", "Db", "Gb"]), st.sampled_from(KEY_MODES))
def test_a_key_spells_each_letter_once_in_its_scale(tonic: str, mode: str) -> None:
    key = parse_key(f"{tonic} {mode}")
    spelled = [key.spell(pc) for pc in key.scale.pitch_classes]
    assert len({s[0] for s in spelled}) == 7
    assert tuple(spelled) == key.scale.notes


@pytest.mark.parametrize("name", ["C10", "C99", "G-2", "C99999999999999999999"])
def test_octaves_outside_the_midi_range_are_refused(name: str) -> None:
    with pytest.raises(TheoryError, match="outside -1 to 9") as info:
        note_to_midi(name)
    assert info.value.position == 1


def test_a_scale_with_an_impossible_octave_is_refused() -> None:
    with pytest.raises(TheoryError, match=r"octave 99 in 'C99'"):
        get_scale("C99:major")
    assert get_scale("C9:major").octave == 9 and get_scale("C-1:major").octave == -1
