"""Roman numerals in major and minor keys, and analysing chords back into numerals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import analyse_chord, parse_key, parse_roman, roman_to_chord

# (figure, key) → (chord symbol, spelled notes)
FACTS: list[tuple[str, str, str, str]] = [
    ("I", "C major", "C", "C E G"),
    ("ii", "C major", "Dm", "D F A"),
    ("vii°", "C major", "Bdim", "B D F"),
    ("I6", "C major", "C/E", "C E G"),
    ("I64", "C major", "C/G", "C E G"),
    ("V7", "C major", "G7", "G B D F"),
    ("V65", "C major", "G7/B", "G B D F"),
    ("V43", "C major", "G7/D", "G B D F"),
    ("V42", "C major", "G7/F", "G B D F"),
    ("ii7", "C major", "Dm7", "D F A C"),
    ("IV7", "C major", "Fmaj7", "F A C E"),
    ("I7", "C major", "Cmaj7", "C E G B"),
    ("IVmaj7", "C minor", "Fmaj7", "F A C E"),
    ("viiø7", "C major", "Bm7b5", "B D F A"),
    ("vii°7", "C major", "Bdim7", "B D F Ab"),
    ("V9", "C major", "G9", "G B D F A"),
    ("bVII", "C major", "Bb", "Bb D F"),
    ("bVI", "C major", "Ab", "Ab C Eb"),
    ("bIII", "C major", "Eb", "Eb G Bb"),
    ("iv", "C major", "Fm", "F Ab C"),
    ("N6", "C major", "Db/F", "Db F Ab"),
    ("V/V", "C major", "D", "D F# A"),
    ("V7/ii", "C major", "A7", "A C# E G"),
    ("V7/IV", "C major", "C7", "C E G Bb"),
    ("vii°7/V", "C major", "F#dim7", "F# A C Eb"),
    ("V65/V", "C major", "D7/F#", "D F# A C"),
    ("V/V/V", "C major", "A", "A C# E"),
    ("i", "C minor", "Cm", "C Eb G"),
    ("ii°", "C minor", "Ddim", "D F Ab"),
    ("III", "C minor", "Eb", "Eb G Bb"),
    ("V", "C minor", "G", "G B D"),
    ("v", "C minor", "Gm", "G Bb D"),
    ("VI", "C minor", "Ab", "Ab C Eb"),
    ("VII", "C minor", "Bb", "Bb D F"),
    ("vii°7", "C minor", "Bdim7", "B D F Ab"),
    ("V7", "F# minor", "C#7", "C# E# G# B"),
    ("vii°7", "F# minor", "E#dim7", "E# G# B D"),
    ("It6", "C minor", "Ab(#6,no5)", "Ab C F#"),
    ("Ger65", "C minor", "Ab(#6)", "Ab C Eb F#"),
    ("Fr43", "C minor", "Ab(#4,#6,no5)", "Ab C D F#"),
    ("V7/vi", "Eb major", "G7", "G B D F"),
    ("vii°42", "Eb major", "Ddim7/Cb", "D F Ab Cb"),
    ("Vsus4", "C major", "Gsus4", "G C D"),
    ("V7sus4", "C major", "G7sus4", "G C D F"),
    ("IVsus2", "Eb major", "Absus2", "Ab Bb Eb"),
    ("V65sus4", "A minor", "E7sus4/A", "E A B D"),
]


@pytest.mark.parametrize(("figure", "key", "symbol", "notes"), FACTS)
def test_roman_facts(figure: str, key: str, symbol: str, notes: str) -> None:
    chord = roman_to_chord(figure, key)
    assert chord.symbol == symbol
    assert chord.notes == tuple(notes.split())


@pytest.mark.parametrize(("figure", "key", "symbol", "notes"), FACTS)
def test_analysis_inverts_the_facts(figure: str, key: str, symbol: str, notes: str) -> None:
    chord = roman_to_chord(figure, key)
    figure_back = analyse_chord(chord, key)
    again = roman_to_chord(figure_back, key)
    assert (again.pitch_classes, again.bass) == (chord.pitch_classes, chord.bass)


@pytest.mark.parametrize(
    ("symbol", "key", "figure"),
    [("A7", "C major", "V7/ii"), ("G7/B", "C major", "V65"), ("Bb", "C major", "bVII"), ("Fm", "C major", "iv"),
     ("Db/F", "C major", "N6"), ("D7", "C major", "V7/V"), ("E7", "A minor", "V7"), ("F", "A minor", "VI"),
     ("G", "A minor", "VII"), ("G#dim7", "A minor", "vii°7"), ("Em/G", "E minor", "i6"), ("Dm7", "C major", "ii7"),
     ("Cmaj7", "C major", "I7"), ("B7", "E minor", "V7"), ("F#dim7", "G major", "vii°7"), ("E7", "C major", "V7/vi")],
)
def test_analyse_chord(symbol: str, key: str, figure: str) -> None:
    assert analyse_chord(symbol, key) == figure


def test_minor_key_accidentals_count_from_the_major_scale() -> None:
    # bVII is Bb in C minor, as in C major (music21 would read it as Bbb: see docs/theory.md)
    assert roman_to_chord("bVII", "C minor").symbol == "Bb"
    assert roman_to_chord("bIII", "C minor").symbol == "Eb"


def test_parse_roman_structure() -> None:
    figure = parse_roman("V65/V")
    assert (figure.numeral.degree, figure.numeral.size, figure.numeral.inversion) == (5, 4, 1)
    assert [t.degree for t in figure.targets] == [5]
    assert parse_roman("viiø7").numeral.quality == "half"
    assert parse_roman("V6/4").numeral.inversion == 2


@pytest.mark.parametrize(
    ("figure", "position"),
    [("VIII", 0), ("V8", 1), ("Vø7", 1), ("ii+", 2), ("V7/x", 3), ("", 0), ("V/", 2), ("N7", 1), ("It65", 2),
     ("vii°sus4", 4), ("N6sus4", 2)],
)
def test_bad_figures(figure: str, position: int) -> None:
    with pytest.raises(TheoryError) as info:
        roman_to_chord(figure, "C major")
    assert info.value.position == position
    assert "\n" not in str(info.value)


NUMERALS = ["I", "ii", "iii", "IV", "V", "vi", "vii°", "V7", "ii7", "viiø7", "vii°7", "I6", "V65", "IV64", "V43",
            "bVII", "bVI", "iv", "N6", "V/V", "V7/ii", "V7/vi", "vii°7/V", "It6", "Ger65", "Fr43",
            "Vsus4", "V7sus4", "IVsus2", "V43sus4"]
KEYS = ["C major", "G major", "Eb major", "F# major", "A minor", "C minor", "F# minor", "Bb minor"]


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(NUMERALS), st.sampled_from(KEYS))
def test_figures_round_trip_through_analysis(figure: str, key: str) -> None:
    chord = roman_to_chord(figure, key)
    again = roman_to_chord(analyse_chord(chord, key), key)
    assert again.pitch_classes == chord.pitch_classes
    assert again.bass == chord.bass


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(NUMERALS), st.sampled_from(KEYS), st.integers(1, 11))
def test_transposing_the_key_transposes_the_chord(figure: str, key: str, semitones: int) -> None:
    k = parse_key(key)
    moved = parse_key(f"{k.relative().relative().tonic} {k.mode}")
    assert moved == k
    from bandstand.theory import midi_to_note

    tonic = midi_to_note(60 + k.tonic_pc + semitones, None)[:-1]
    other = parse_key(f"{tonic} {k.mode}")
    a, b = roman_to_chord(figure, k), roman_to_chord(figure, other)
    assert b.pitch_classes == tuple(sorted((pc + semitones) % 12 for pc in a.pitch_classes))
    assert b.bass == (a.bass + semitones) % 12


def test_chords_without_an_exact_figure_get_the_nearest_plain_one_unless_strict() -> None:
    assert analyse_chord("C5", "C major") == "I"
    assert analyse_chord("G11", "C major") == "V9"
    with pytest.raises(TheoryError):
        analyse_chord("C5", "C major", strict=True)
    assert analyse_chord("G7", "C major", strict=True) == "V7"
    assert analyse_chord("G7sus4", "C major", strict=True) == "V7sus4"


def test_a_secondary_chain_too_long_to_spell_says_so() -> None:
    figure = "/".join(["V"] * 31)
    with pytest.raises(TheoryError, match=r"chain of 30 secondary chords .* goes too far from C major .*use fewer '/' levels") as info:
        roman_to_chord(figure, "C major")
    assert info.value.text == figure and info.value.position == 1
