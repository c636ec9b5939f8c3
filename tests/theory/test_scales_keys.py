"""Scales, modes and keys: spelling, signatures, relative and parallel keys."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import (
    KEY_MODES,
    SCALE_ALIASES,
    SCALES,
    get_scale,
    key_with_signature,
    parse_key,
    scale_type,
)


@pytest.mark.parametrize(
    ("name", "notes"),
    [
        ("C major", "C D E F G A B"),
        ("Eb dorian", "Eb F Gb Ab Bb C Db"),
        ("F# minor", "F# G# A B C# D E"),
        ("A harmonic minor", "A B C D E F G#"),
        ("A melodic minor", "A B C D E F# G#"),
        ("D phrygian", "D Eb F G A Bb C"),
        ("F lydian", "F G A B C D E"),
        ("G mixolydian", "G A B C D E F"),
        ("B locrian", "B C D E F G A"),
        ("C major pentatonic", "C D E G A"),
        ("A minor pentatonic", "A C D E G"),
        ("C blues", "C Eb F Gb G Bb"),
        ("C major blues", "C D Eb E G A"),
        ("C whole tone", "C D E F# G# Bb"),
        ("E phrygian dominant", "E F G# A B C D"),
        ("G lydian dominant", "G A B C# D E F"),
        ("C bebop", "C D E F G A Bb B"),
        ("A hungarian minor", "A B C D# E F G#"),
        ("C diminished", "C D Eb F Gb Ab A B"),
        ("Db major", "Db Eb F Gb Ab Bb C"),
        ("C# major", "C# D# E# F# G# A# B#"),
        ("Cb major", "Cb Db Eb Fb Gb Ab Bb"),
        ("G# minor", "G# A# B C# D# E F#"),
        ("Bb aeolian", "Bb C Db Eb F Gb Ab"),
        ("E ionian", "E F# G# A B C# D#"),
    ],
)
def test_spelled_scales(name: str, notes: str) -> None:
    assert get_scale(name).notes == tuple(notes.split())


def test_chromatic_scale_has_every_pitch_class() -> None:
    assert sorted(get_scale("D chromatic").pitch_classes) == list(range(12))


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [("minor", "minor"), ("aeolian", "minor"), ("natural minor", "minor"), ("ionian", "major"),
     ("harmonicMinor", "harmonic minor"), ("minor_pentatonic", "minor pentatonic"), ("Whole-Tone", "whole tone"),
     ("minor blues", "blues"), ("super locrian", "altered"), ("spanish", "phrygian dominant")],
)
def test_scale_aliases(alias: str, canonical: str) -> None:
    assert scale_type(alias) == canonical


def test_every_alias_names_a_scale_and_every_scale_spans_under_an_octave() -> None:
    assert set(SCALE_ALIASES.values()) <= set(SCALES)
    for name in SCALES:
        scale = get_scale(f"C {name}")
        assert scale.intervals[0] == 0
        assert list(scale.intervals) == sorted(set(scale.intervals))
        assert scale.intervals[-1] < 12


def test_strudel_style_names() -> None:
    scale = get_scale("C4:minor")
    assert (scale.tonic, scale.mode_name, scale.octave) == ("C", "minor", 4)
    assert [scale.degree_to_midi(i) for i in (0, 2, 4, 7, -1)] == [60, 63, 67, 72, 58]
    assert get_scale("c:minor pentatonic").notes == ("C", "Eb", "F", "G", "Bb")
    assert get_scale("Eb").mode_name == "major"


def test_nearest_scale_note() -> None:
    scale = get_scale("C major")
    assert [scale.nearest(n) for n in (60, 61, 63, 66, 70)] == [60, 60, 62, 65, 69]
    assert 4 in scale and 6 not in scale


@pytest.mark.parametrize(("text", "position"), [("Eb dorain", 3), ("H minor", 0), ("", 0), ("C#b major", 2)])
def test_bad_scales(text: str, position: int) -> None:
    with pytest.raises(TheoryError) as info:
        get_scale(text)
    assert info.value.position == position


@pytest.mark.parametrize(
    ("name", "signature"),
    [("C major", 0), ("G major", 1), ("D major", 2), ("A major", 3), ("E major", 4), ("B major", 5),
     ("F# major", 6), ("C# major", 7), ("F major", -1), ("Bb major", -2), ("Eb major", -3), ("Ab major", -4),
     ("Db major", -5), ("Gb major", -6), ("Cb major", -7), ("A minor", 0), ("E minor", 1), ("F# minor", 3),
     ("D minor", -1), ("C minor", -3), ("Bb minor", -5), ("D dorian", 0), ("E phrygian", 0), ("F lydian", 0),
     ("G mixolydian", 0), ("B locrian", 0), ("A dorian", 1), ("Eb lydian", -2), ("G# major", 8)],
)
def test_key_signatures(name: str, signature: int) -> None:
    assert parse_key(name).signature == signature


@pytest.mark.parametrize(
    ("text", "name"),
    [("F# minor", "F# minor"), ("F#m", "F# minor"), ("f# min", "F# minor"), ("Eb", "Eb major"),
     ("ebm", "Eb minor"), ("C:minor", "C minor"), ("D dorian", "D dorian"), ("A aeolian", "A minor"),
     ("Bb maj", "Bb major"), ("G ionian", "G major")],
)
def test_parse_key_forms(text: str, name: str) -> None:
    assert parse_key(text).name == name


@pytest.mark.parametrize(("text", "position"), [("H major", 0), ("C blues", 2), ("C# minr", 3), ("", 0)])
def test_bad_keys(text: str, position: int) -> None:
    with pytest.raises(TheoryError) as info:
        parse_key(text)
    assert info.value.position == position


@pytest.mark.parametrize(
    ("key", "relative", "parallel"),
    [("C major", "A minor", "C minor"), ("A minor", "C major", "A major"), ("Eb major", "C minor", "Eb minor"),
     ("F# minor", "A major", "F# major"), ("D dorian", "C major", "D major"), ("E phrygian", "C major", "E major")],
)
def test_relative_and_parallel(key: str, relative: str, parallel: str) -> None:
    k = parse_key(key)
    assert k.relative().name == relative
    assert k.parallel().name == parallel


def test_degree_chords() -> None:
    assert [c.symbol for c in parse_key("C major").degree_chords()] == ["C", "Dm", "Em", "F", "G", "Am", "Bdim"]
    assert [c.symbol for c in parse_key("Bb major").degree_chords(sevenths=True)] == [
        "Bbmaj7", "Cm7", "Dm7", "Ebmaj7", "F7", "Gm7", "Am7b5",
    ]


tonics = st.sampled_from(["C", "G", "D", "A", "E", "B", "F#", "C#", "F", "Bb", "Eb", "Ab", "Db", "Gb"])


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(tonics)
def test_relative_keys_share_their_notes_and_signature(tonic: str) -> None:
    major = parse_key(f"{tonic} major")
    minor = major.relative()
    assert set(major.scale.notes) == set(minor.scale.notes)
    assert major.signature == minor.signature
    assert minor.relative() == major


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(tonics, st.sampled_from(KEY_MODES))
def test_signature_counts_the_accidentals_of_the_key(tonic: str, mode: str) -> None:
    key = parse_key(f"{tonic} {mode}")
    sharps = sum(n.count("#") for n in key.scale.notes)
    flats = sum(n.count("b") for n in key.scale.notes)
    assert key.signature == sharps - flats
    assert not (sharps and flats)


def test_a_key_with_an_unknown_mode_lists_the_key_modes_not_every_scale() -> None:
    # it used to say "unknown scale 'nosuch' (known: …41 scales…)", most of which a key cannot have
    with pytest.raises(TheoryError, match=r"^a key's mode must be one of major, dorian, .*not 'nosuch' in 'C nosuch'$") as info:
        parse_key("C nosuch")
    assert info.value.position == 2


@pytest.mark.parametrize("minor", [False, True])
@pytest.mark.parametrize("sharps", range(-7, 8))
def test_key_with_signature_is_the_key_that_has_it(sharps: int, minor: bool) -> None:
    key = key_with_signature(sharps, minor)
    assert key.signature == sharps and key.is_minor == minor
    assert parse_key(key.name) == key
    assert key.relative() == key_with_signature(sharps, not minor)  # the relative shares the signature


def test_key_with_signature_names_keys_as_written() -> None:
    assert [key_with_signature(s).name for s in (-7, -3, 0, 6, 7)] == [
        "Cb major", "Eb major", "C major", "F# major", "C# major"]
    assert [key_with_signature(s, True).name for s in (-7, -3, 0, 6, 7)] == [
        "Ab minor", "C minor", "A minor", "D# minor", "A# minor"]
    with pytest.raises(TheoryError, match="-7 to 7"):
        key_with_signature(8)
