"""Naming chords from sounding notes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import chord_from_pitches, note_to_midi, parse_chord, voice_chord


@pytest.mark.parametrize(
    ("notes", "symbol"),
    [
        ("C4 E4 G4", "C"), ("E3 G3 C4", "C/E"), ("G3 C4 E4", "C/G"), ("C4 Eb4 G4", "Cm"), ("C4 E4 G4 Bb4", "C7"),
        ("C4 E4 G4 B4", "Cmaj7"), ("C4 E4 G4 A4", "C6"), ("A3 C4 E4 G4", "Am7"), ("C4 Eb4 Gb4 A4", "Cdim7"),
        ("C4 Eb4 Gb4 Bb4", "Cm7b5"), ("C4 E4 G#4", "Caug"), ("C4 F4 G4", "Csus4"), ("C4 D4 G4", "Csus2"),
        ("C3 G3", "C5"), ("C4 E4 G4 D5", "Cadd9"), ("C3 E3 Bb3 D4 A4", "C13no5"),
        ("E3 G#3 D4 G4", "E7#9no5"), ("G2 F3 A3 C4", "F/G"), ("F3 G3 B3 D4", "G7/F"), ("Bb2 D3 F3 Ab3 C4", "Bb9"),
        ("F#3 A3 C#4 E4", "F#m7"), ("F#3 A3 C#4 E4 B4", "A6/9/F#"), ("Db4 F4 Ab4", "Db"),
    ],
)
def test_named_chords(notes: str, symbol: str) -> None:
    assert chord_from_pitches(note_to_midi(n) for n in notes.split()).symbol == symbol


def test_roots_are_spelled_for_a_key() -> None:
    assert chord_from_pitches([61, 65, 68]).symbol == "Db"
    assert chord_from_pitches([61, 65, 68], key="A major").symbol == "C#"
    assert chord_from_pitches([56, 60, 63, 66], key="C# minor").symbol == "G#7"


@pytest.mark.parametrize("bad", [[], [60], [60, 72]])
def test_too_few_pitch_classes(bad: list[int]) -> None:
    with pytest.raises(TheoryError):
        chord_from_pitches(bad)


SYMBOLS = ["C", "Dm7", "G7", "Cmaj7", "Am9", "F6/9", "Bm7b5", "E7#9", "Ab/C", "Db13", "F#dim7", "Esus4", "Bb/D",
           "Gm11", "C7alt", "Ebmaj7#11", "A7b9", "D/C", "F/G", "Cm6", "B+", "EmMaj7"]


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(SYMBOLS), st.integers(36, 60))
def test_recognised_chords_sound_the_same_notes(symbol: str, low: int) -> None:
    chord = parse_chord(symbol)
    voicing = voice_chord(chord, low, low + 30)
    found = chord_from_pitches(voicing)
    assert found.pitch_classes == chord.pitch_classes
    assert found.bass == voicing[0] % 12


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.lists(st.integers(36, 84), min_size=2, max_size=7))
def test_any_cluster_is_named_or_refused(pitches: list[int]) -> None:
    try:
        found = chord_from_pitches(pitches)
    except TheoryError:
        return
    assert set(found.pitch_classes) == {p % 12 for p in pitches}
    assert found.bass == min(pitches) % 12
