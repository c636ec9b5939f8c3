"""Intervals and transposition."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import (
    Interval,
    interval_between,
    note_to_midi,
    parse_interval,
    transpose,
    transpose_midi,
)


@pytest.mark.parametrize(
    ("name", "semitones"),
    [("P1", 0), ("m2", 1), ("M2", 2), ("A2", 3), ("m3", 3), ("M3", 4), ("d4", 4), ("P4", 5), ("A4", 6),
     ("d5", 6), ("P5", 7), ("A5", 8), ("m6", 8), ("M6", 9), ("d7", 9), ("m7", 10), ("M7", 11), ("P8", 12),
     ("m9", 13), ("M9", 14), ("A9", 15), ("P11", 17), ("A11", 18), ("m13", 20), ("M13", 21), ("3M", 4),
     ("-P5", -7), ("-m3", -3), ("AA4", 7), ("dd5", 5)],
)
def test_interval_sizes(name: str, semitones: int) -> None:
    interval = parse_interval(name)
    assert interval.semitones == semitones
    expected = name if name[0].isalpha() or name[0] == "-" else name[-1] + name[:-1]
    assert interval.name == expected


@pytest.mark.parametrize("bad", ["M5", "P3", "X3", "M0", "", "m", "5"])
def test_bad_interval_names(bad: str) -> None:
    with pytest.raises(TheoryError):
        parse_interval(bad)


@pytest.mark.parametrize(
    ("a", "b", "name"),
    [("C4", "E4", "M3"), ("C4", "Eb4", "m3"), ("C4", "D#4", "A2"), ("E4", "C5", "m6"), ("B3", "F4", "d5"),
     ("F4", "B4", "A4"), ("C4", "C5", "P8"), ("C4", "D5", "M9"), ("G4", "C4", "-P5"), ("G4", "C5", "P4"), ("B", "C", "m2"),
     ("Eb", "C", "M6"), ("C#", "Bb", "d7")],
)
def test_interval_between_spelled_notes(a: str, b: str, name: str) -> None:
    assert interval_between(a, b).name == name


def test_interval_between_midi_numbers_uses_the_usual_spelling() -> None:
    assert interval_between(60, 66).name == "A4"
    assert interval_between(60, 75).name == "m10"
    assert interval_between(67, 60).name == "-P5"


@pytest.mark.parametrize(
    ("note", "interval", "out"),
    [("C#4", "M3", "E#4"), ("C4", "m3", "Eb4"), ("B3", "m2", "C4"), ("E4", "-M3", "C4"), ("Bb", "P4", "Eb"),
     ("F#", "A4", "B#"), ("Gb4", "d5", "Dbb5"), ("A4", "P8", "A5"), ("D4", "M9", "E5"), ("C4", 6, "F#4")],
)
def test_transpose(note: str, interval: str | int, out: str) -> None:
    assert transpose(note, interval) == out


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.integers(0, 127), st.integers(-36, 36))
def test_transpose_midi_adds_semitones(midi: int, semitones: int) -> None:
    assert transpose_midi(midi, semitones) == midi + semitones
    assert transpose_midi(midi, Interval.from_semitones(semitones)) == midi + semitones


names = st.sampled_from(["P1", "m2", "M2", "m3", "M3", "P4", "A4", "d5", "P5", "m6", "M6", "m7", "M7", "P8", "M9"])
notes = st.builds(lambda letter, acc, octave: f"{letter}{acc}{octave}", st.sampled_from("CDEFGAB"), st.sampled_from(["", "#", "b"]), st.integers(1, 7))


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(notes, names)
def test_spelled_transposition_matches_semitones_and_letters(note: str, name: str) -> None:
    out = transpose(note, name)
    interval = parse_interval(name)
    assert note_to_midi(out) - note_to_midi(note) == interval.semitones
    assert ("CDEFGAB".index(out[0]) - "CDEFGAB".index(note[0])) % 7 == interval.steps % 7
    assert interval_between(note, out) == interval


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(notes, names, names)
def test_transposition_composes(note: str, a: str, b: str) -> None:
    both = parse_interval(a) + parse_interval(b)
    assert transpose(transpose(note, a), b) == transpose(note, both)


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(notes, names)
def test_transposing_up_then_down_is_identity(note: str, name: str) -> None:
    assert transpose(transpose(note, name), -parse_interval(name)) == note


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(names)
def test_inversions_add_up_to_an_octave(name: str) -> None:
    interval = parse_interval(name).simple
    if interval.steps == 0 and interval.semitones == 0:
        return
    inverted = interval.inverted()
    assert interval.semitones + inverted.semitones == 12
    assert interval.number + inverted.number == 9
