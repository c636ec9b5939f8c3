"""Chord symbols: the grammar, canonical names, spelling, errors, and parse → format → parse."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import BASE_SUFFIXES, Chord, chord_from_notes, format_chord, parse_chord

# symbol → (quality, spelled notes from the root, bass)
FACTS: dict[str, tuple[str, str, str]] = {
    "C": ("maj", "C E G", "C"),
    "Cm": ("m", "C Eb G", "C"),
    "Cdim": ("dim", "C Eb Gb", "C"),
    "C°": ("dim", "C Eb Gb", "C"),
    "Caug": ("aug", "C E G#", "C"),
    "C+": ("aug", "C E G#", "C"),
    "Csus2": ("sus2", "C D G", "C"),
    "Csus4": ("sus4", "C F G", "C"),
    "Csus": ("sus4", "C F G", "C"),
    "C5": ("5", "C G", "C"),
    "C6": ("6", "C E G A", "C"),
    "Cm6": ("m6", "C Eb G A", "C"),
    "C6/9": ("6/9", "C E G A D", "C"),
    "C69": ("6/9", "C E G A D", "C"),
    "Cmaj7": ("maj7", "C E G B", "C"),
    "CM7": ("maj7", "C E G B", "C"),
    "CΔ7": ("maj7", "C E G B", "C"),
    "CΔ": ("maj7", "C E G B", "C"),
    "C7": ("7", "C E G Bb", "C"),
    "Cm7": ("m7", "C Eb G Bb", "C"),
    "C-7": ("m7", "C Eb G Bb", "C"),
    "Cmin7": ("m7", "C Eb G Bb", "C"),
    "CmMaj7": ("mMaj7", "C Eb G B", "C"),
    "Cm(maj7)": ("mMaj7", "C Eb G B", "C"),
    "C-Δ7": ("mMaj7", "C Eb G B", "C"),
    "Cm7b5": ("m7b5", "C Eb Gb Bb", "C"),
    "Cø": ("m7b5", "C Eb Gb Bb", "C"),
    "Cø7": ("m7b5", "C Eb Gb Bb", "C"),
    "Cdim7": ("dim7", "C Eb Gb Bbb", "C"),
    "C°7": ("dim7", "C Eb Gb Bbb", "C"),
    "Co7": ("dim7", "C Eb Gb Bbb", "C"),
    "Caug7": ("aug7", "C E G# Bb", "C"),
    "C+7": ("aug7", "C E G# Bb", "C"),
    "C7#5": ("aug7", "C E G# Bb", "C"),
    "C7+5": ("aug7", "C E G# Bb", "C"),
    "Cmaj7#5": ("maj7#5", "C E G# B", "C"),
    "C7sus4": ("7sus4", "C F G Bb", "C"),
    "C9": ("9", "C E G Bb D", "C"),
    "Cmaj9": ("maj9", "C E G B D", "C"),
    "Cm9": ("m9", "C Eb G Bb D", "C"),
    "C9sus4": ("9sus4", "C F G Bb D", "C"),
    "C11": ("11", "C E G Bb D F", "C"),
    "Cm11": ("m11", "C Eb G Bb D F", "C"),
    "Cmaj11": ("maj11", "C E G B D F", "C"),
    "C13": ("13", "C E G Bb D A", "C"),
    "Cm13": ("m13", "C Eb G Bb D F A", "C"),
    "Cmaj13": ("maj13", "C E G B D A", "C"),
    "Cadd9": ("add9", "C E G D", "C"),
    "Cadd2": ("add2", "C D E G", "C"),
    "Cmadd9": ("madd9", "C Eb G D", "C"),
    "Cadd11": ("add11", "C E G F", "C"),
    "C7b5": ("7b5", "C E Gb Bb", "C"),
    "C7b9": ("7b9", "C E G Bb Db", "C"),
    "C7#9": ("7#9", "C E G Bb D#", "C"),
    "C7#11": ("7#11", "C E G Bb F#", "C"),
    "C7b13": ("7b13", "C E G Bb Ab", "C"),
    "C7(b9,#11)": ("7b9#11", "C E G Bb Db F#", "C"),
    "C13#11": ("13#11", "C E G Bb D F# A", "C"),
    "C7alt": ("7alt", "C E Bb Db D# F# Ab", "C"),
    "Calt": ("7alt", "C E Bb Db D# F# Ab", "C"),
    "Cmaj7#11": ("maj7#11", "C E G B F#", "C"),
    "C/E": ("maj", "C E G", "E"),
    "C/G": ("maj", "C E G", "G"),
    "C/Bb": ("maj", "C E G", "Bb"),
    "Cm7b5/Gb": ("m7b5", "C Eb Gb Bb", "Gb"),
    "Am7/G": ("m7", "A C E G", "G"),
    "F#m7b5": ("m7b5", "F# A C E", "F#"),
    "Bb13": ("13", "Bb D F Ab C G", "Bb"),
    "Ebm9": ("m9", "Eb Gb Bb Db F", "Eb"),
    "Dbmaj7": ("maj7", "Db F Ab C", "Db"),
    "G#dim7": ("dim7", "G# B D F", "G#"),
    "E7#9": ("7#9", "E G# B D F##", "E"),
    "Abm6/9": ("m6/9", "Ab Cb Eb F Bb", "Ab"),
    "C#7sus4/B": ("7sus4", "C# F# G# B", "B"),
    "cm7": ("m7", "C Eb G Bb", "C"),
    "C7(9)": ("9", "C E G Bb D", "C"),
    "Cm7(11)": ("m7add11", "C Eb G Bb F", "C"),
    "C7(9,13)": ("13", "C E G Bb D A", "C"),
    "B♭7♭9": ("7b9", "Bb D F Ab Cb", "Bb"),
    "bb7": ("7", "Bb D F Ab", "Bb"),
}


@pytest.mark.parametrize("symbol", sorted(FACTS))
def test_chord_facts(symbol: str) -> None:
    quality, notes, bass = FACTS[symbol]
    chord = parse_chord(symbol)
    assert chord.quality == quality
    assert chord.notes == tuple(notes.split())
    assert chord.bass_name == bass
    assert chord.symbol == symbol
    assert chord.pitch_classes == tuple(sorted(set(chord.pitch_classes)))
    assert chord.root == chord.pitch_classes[chord.pitch_classes.index(chord.root)]


def test_pitch_classes_include_a_foreign_bass() -> None:
    assert parse_chord("C/Bb").pitch_classes == (0, 4, 7, 10)
    assert parse_chord("C/E").pitch_classes == (0, 4, 7)
    assert parse_chord("D/F#").bass == 6


def test_extensions_and_alterations() -> None:
    chord = parse_chord("C13#11")
    assert chord.extensions == ("9", "13")
    assert chord.alterations == ("#11",)
    assert parse_chord("C7alt").alterations == ("alt",)
    assert parse_chord("C7(b9,#11)").alterations == ("b9", "#11")


@pytest.mark.parametrize(
    "group",
    [
        ["Cmaj7", "CM7", "CΔ7", "CΔ", "C^7", "Cmajor7", "CMaj7"],
        ["Cm7", "C-7", "Cmin7", "Cmi7", "Cminor7"],
        ["Cm7b5", "Cø", "Cø7", "Cmin7b5", "C-7b5", "Cm7(b5)", "C-7-5"],
        ["Cdim7", "C°7", "Co7"],
        ["Caug7", "C+7", "C7#5", "C7+5", "C7(#5)"],
        ["CmMaj7", "Cm(maj7)", "CmM7", "C-Δ7", "CminMaj7", "Cm^7"],
        ["C6/9", "C69", "C6(9)", "C6add9"],
        ["Csus4", "Csus"],
        ["C7alt", "Calt"],
    ],
)
def test_spellings_of_the_same_chord_are_equal(group: list[str]) -> None:
    chords = [parse_chord(s) for s in group]
    assert all(c == chords[0] for c in chords)
    assert len({format_chord(c) for c in chords}) == 1


@pytest.mark.parametrize(
    ("symbol", "position"),
    [("", 0), ("H7", 0), ("Cxyz", 1), ("C7x", 2), ("C77", 2), ("Cm7/H", 4), ("Cm7/", 4), ("C#b", 2),
     ("C#13#13", 4), ("  Q7", 2), ("Cadd5", 1), ("Fmaj7b11", 5)],
)
def test_bad_symbols_name_the_text_and_position(symbol: str, position: int) -> None:
    with pytest.raises(TheoryError) as info:
        parse_chord(symbol)
    assert info.value.position == position
    assert info.value.text == symbol
    assert "\n" not in str(info.value)


def test_chord_from_notes_names_stacked_thirds() -> None:
    assert chord_from_notes(["G", "B", "D", "F"]).symbol == "G7"
    assert chord_from_notes(["D", "F", "A", "C", "E"]).symbol == "Dm9"
    assert chord_from_notes(["C", "E", "G"], bass="E").symbol == "C/E"


def test_transposed_chords_keep_their_quality() -> None:
    chord = parse_chord("Cm7b5/Gb").transpose(2)
    assert chord.symbol == "Dm7b5/Ab"
    assert chord.pitch_classes == (0, 2, 5, 8)


ROOTS = ["C", "C#", "Db", "D", "Eb", "E", "F", "F#", "Gb", "G", "Ab", "A", "Bb", "B", "Cb", "E#"]
MODIFIERS = ["", "b5", "#5", "b9", "#9", "#11", "b13", "add9", "add11", "add13", "sus4", "sus2", "no5", "(b9,#11)"]


@st.composite
def symbols(draw: st.DrawFn) -> str:
    root = draw(st.sampled_from(ROOTS))
    base = draw(st.sampled_from(BASE_SUFFIXES))
    base = "" if base == "maj" else base
    mods = draw(st.lists(st.sampled_from(MODIFIERS), max_size=2, unique=True))
    suffix = base + "".join(mods)
    if base in ("", "5") and suffix and suffix[0] in "b#":
        suffix = f"({suffix})"
    bass = draw(st.sampled_from(["", "/E", "/Bb", "/G", "/F#"]))
    return root + suffix + bass


def _parses(symbol: str) -> Chord | None:
    try:
        return parse_chord(symbol)
    except TheoryError:
        return None


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(symbols())
def test_parse_format_parse_is_the_same_chord(symbol: str) -> None:
    chord = _parses(symbol)
    if chord is None:
        return
    again = parse_chord(format_chord(chord))
    assert again == chord
    assert again.pitch_classes == chord.pitch_classes
    assert again.bass == chord.bass
    assert format_chord(again) == format_chord(chord)


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(symbols(), st.integers(-11, 11))
def test_transposition_moves_every_pitch_class(symbol: str, semitones: int) -> None:
    chord = _parses(symbol)
    if chord is None:
        return
    moved = chord.transpose(semitones)
    assert moved.pitch_classes == tuple(sorted((pc + semitones) % 12 for pc in chord.pitch_classes))
    assert moved.quality == chord.quality
    assert moved.intervals == chord.intervals


def test_most_generated_symbols_parse() -> None:
    # guards the property tests above against vacuously skipping everything
    ok = sum(_parses(f"{r}{'' if b == 'maj' else b}") is not None for r in ROOTS for b in BASE_SUFFIXES)
    assert ok == len(ROOTS) * len(BASE_SUFFIXES)


TONES = ["3m", "3M", "2M", "4P", "5d", "5P", "5A", "6M", "7d", "7m", "7M", "9m", "9M", "9A", "11P", "11A", "13m", "13M"]


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(ROOTS), st.sets(st.sampled_from(TONES), min_size=1, max_size=6))
def test_any_named_tone_set_formats_to_a_symbol_with_exactly_those_tones(root: str, tones: set[str]) -> None:
    from bandstand.theory import make_chord, parse_note_name

    try:
        chord = make_chord(parse_note_name(root), frozenset({"1P", *tones}))
    except TheoryError:
        return
    assert set(parse_chord(format_chord(chord)).tones) == {"1P", *tones}
