"""Cross-checks against music21, an independent implementation, on broad tables of inputs.

Known, deliberate differences are pinned in their own tests below:
- dominant and major 13th chords leave out the natural 11th (it clashes with the
  major third); music21 stacks it in;
- accidentals on Roman numerals count from the major scale of the tonic in every
  key (bVII in C minor is Bb); music21 applies them to the minor scale (Bbb).
"""

from __future__ import annotations

import random
import warnings

import pytest

from bandstand.theory import (
    KEY_MODES,
    detect_key,
    get_scale,
    parse_chord,
    parse_key,
    roman_to_chord,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from music21 import analysis, harmony, key, note, roman, stream  # noqa: F401

ROOTS = ["C", "C#", "Db", "D", "Eb", "E", "F", "F#", "Gb", "G", "Ab", "A", "Bb", "B"]
# our suffix → music21's abbreviation for the same chord
SUFFIXES: dict[str, str] = {
    "": "", "m": "m", "dim": "dim", "aug": "+", "+": "+", "sus2": "sus2", "sus4": "sus4", "5": "power",
    "6": "6", "m6": "m6", "7": "7", "maj7": "maj7", "M7": "maj7", "m7": "m7", "-7": "m7", "mMaj7": "mM7",
    "m7b5": "m7b5", "ø7": "m7b5", "dim7": "dim7", "°7": "dim7", "aug7": "+7", "7#5": "7#5", "7sus4": "7sus4",
    "9": "9", "maj9": "M9", "m9": "m9", "mMaj9": "mM9", "11": "11", "m11": "m11", "maj11": "M11", "m13": "m13",
    "add9": "add9", "add11": "add11", "7b9": "7b9", "7#9": "7#9", "7#11": "7#11", "7b13": "7b13",
    "maj7#11": "maj7#11", "7b5": "7b5", "9#11": "9#11", "7b9b13": "7b9b13", "m9b5": "m9b5", "maj7#5": "+M7",
}


def _m21_name(note_name: str) -> str:
    """music21 writes flats as '-': Bb → B-, /Eb → /E-."""
    head = 2 if note_name.startswith("/") else 1
    return note_name[:head] + note_name[head:].replace("b", "-")


def _m21_chord(symbol: str) -> tuple[list[int], int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cs = harmony.ChordSymbol(symbol)
    return sorted({p.pitchClass for p in cs.pitches}), cs.bass().pitchClass


@pytest.mark.parametrize("suffix", sorted(SUFFIXES))
def test_chord_symbols_match_music21(suffix: str) -> None:
    for index, root in enumerate(ROOTS):
        for bass in ("", ("/E", "/Bb", "/G#")[index % 3]):
            ours = parse_chord(root + suffix + bass)
            theirs = _m21_chord(_m21_name(root) + SUFFIXES[suffix] + _m21_name(bass))
            assert (list(ours.pitch_classes), ours.bass) == theirs, root + suffix + bass


@pytest.mark.parametrize("root", ROOTS)
def test_thirteenths_differ_from_music21_only_by_the_natural_eleventh(root: str) -> None:
    for ours_suffix, theirs_suffix in (("13", "13"), ("maj13", "M13")):
        ours = set(parse_chord(root + ours_suffix).pitch_classes)
        theirs = set(_m21_chord(_m21_name(root) + theirs_suffix)[0])
        eleventh = (parse_chord(root).root + 5) % 12
        assert theirs - ours == {eleventh}
        assert ours <= theirs


FIGURES = [
    "I", "ii", "iii", "IV", "V", "vi", "vii°", "I6", "I64", "ii6", "IV64", "V7", "V65", "V43", "V42", "ii7",
    "ii65", "IV7", "I7", "vi7", "iii7", "viiø7", "vii°7", "vii°65", "viiø43", "V9", "bVII", "bVI", "bIII", "iv",
    "iv6", "N6", "V/V", "V7/V", "V7/ii", "V7/IV", "V7/vi", "vii°7/V", "V65/V", "V/V/V", "V43/iv", "#iv°7", "bII",
    "V+", "It6", "Ger65", "Fr43",
]
MINOR_FIGURES = [
    "i", "ii°", "III", "iv", "v", "V", "VI", "vii°", "VII", "i6", "V7", "vii°7", "viiø7", "iv7", "VI7", "III7",
    "ii7", "iiø7", "N6", "V/V", "V7/iv", "V7/VI", "vi", "#vi", "vii", "V7/III", "i64", "It6", "Ger65", "Fr43",
    "V65", "vii°42", "iv64",
]
KEYS = ["C", "G", "D", "A", "E", "B", "F#", "F", "Bb", "Eb", "Ab", "Db"]


def _m21_roman(figure: str, tonic: str, mode: str) -> tuple[list[int], int]:
    k = key.Key(_m21_name(tonic) if mode == "major" else _m21_name(tonic).lower())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rn = roman.RomanNumeral(figure.replace("°", "o"), k)
    return sorted({p.pitchClass for p in rn.pitches}), rn.bass().pitchClass


@pytest.mark.parametrize("tonic", KEYS)
def test_roman_numerals_in_major_match_music21(tonic: str) -> None:
    for figure in FIGURES:
        ours = roman_to_chord(figure, f"{tonic} major")
        assert (list(ours.pitch_classes), ours.bass) == _m21_roman(figure, tonic, "major"), figure


@pytest.mark.parametrize("tonic", KEYS)
def test_roman_numerals_in_minor_match_music21(tonic: str) -> None:
    for figure in MINOR_FIGURES:
        ours = roman_to_chord(figure, f"{tonic} minor")
        assert (list(ours.pitch_classes), ours.bass) == _m21_roman(figure, tonic, "minor"), figure


def test_minor_key_accidentals_are_the_one_deliberate_difference() -> None:
    for figure in ("bVII", "bVI", "bIII"):
        ours = roman_to_chord(figure, "C minor")
        assert ours.root == roman_to_chord(figure, "C major").root
        assert _m21_roman(figure, "C", "minor")[1] == (ours.root - 1) % 12


@pytest.mark.parametrize("mode", KEY_MODES)
def test_key_signatures_and_scales_match_music21(mode: str) -> None:
    for tonic in [*KEYS, "C#", "Gb", "Cb", "G#", "D#", "A#"]:
        ours = parse_key(f"{tonic} {mode}")
        theirs = key.Key(_m21_name(tonic), mode)
        assert ours.signature == theirs.sharps, ours.name
        assert list(ours.scale.notes) == [p.name.replace("-", "b") for p in theirs.getPitches()[:7]], ours.name


@pytest.mark.parametrize("mode", ["harmonic minor", "melodic minor", "major pentatonic", "minor pentatonic", "whole tone"])
def test_scales_pitch_classes_match_music21(mode: str) -> None:
    from music21 import scale as m21scale

    classes = {
        "harmonic minor": m21scale.HarmonicMinorScale,
        "melodic minor": m21scale.MelodicMinorScale,
        "whole tone": m21scale.WholeToneScale,
    }
    for tonic in KEYS:
        ours = get_scale(f"{tonic} {mode}")
        if mode in classes:
            pitches = classes[mode](_m21_name(tonic)).getPitches()
            theirs = {p.pitchClass for p in pitches}
        else:
            major = key.Key(_m21_name(tonic) if mode.startswith("major") else _m21_name(tonic).lower())
            degrees = (1, 2, 3, 5, 6) if mode.startswith("major") else (1, 3, 4, 5, 7)
            theirs = {major.pitchFromDegree(d).pitchClass for d in degrees}
        assert set(ours.pitch_classes) == theirs, ours.name


@pytest.mark.parametrize(("profile", "method"), [("krumhansl", "KrumhanslSchmuckler"),
                                                  ("temperley", "TemperleyKostkaPayne"),
                                                  ("aarden", "AardenEssen")])
def test_key_detection_agrees_with_music21_on_random_melodies(profile: str, method: str) -> None:
    rng = random.Random(2026)
    for _ in range(12):
        notes = [(rng.randrange(48, 84), rng.choice([0.25, 0.5, 1.0, 2.0])) for _ in range(rng.randrange(6, 40))]
        s = stream.Stream()
        for pitch, duration in notes:
            s.append(note.Note(pitch, quarterLength=duration))
        theirs = s.analyze(method)
        ours = detect_key(notes, profile=profile)
        assert (ours.key.tonic_pc, ours.key.mode) == (theirs.tonic.pitchClass, theirs.mode)
        assert ours.correlation == pytest.approx(theirs.correlationCoefficient, abs=1e-6)


# Bach chorales from music21's corpus; the truth is the key each file names (its <key> with a mode).
# The first six were heard in their relative major (or the key a fifth away) by Temperley's profile
# over a duration histogram alone: the bass at the ends and the combined profile hear them (#30).
CHORALES = ["bwv10.7", "bwv103.6", "bwv111.6", "bwv148.6", "bwv244.25", "bwv244.62",
            "bwv1.6", "bwv101.7", "bwv104.6", "bwv108.6", "bwv11.6", "bwv13.6"]


def _chorale(name: str) -> tuple[str, list[tuple[int, float, float]]]:
    from music21 import corpus

    score = corpus.parse(f"bach/{name}")
    named = next(iter(score.recurse().getElementsByClass(key.Key)))
    notes = [(n.pitch.midi, float(n.quarterLength), float(n.getOffsetInHierarchy(score)))
             for part in score.parts for n in part.recurse().getElementsByClass(note.Note) if n.quarterLength > 0]
    return f"{named.tonic.name.replace('-', 'b')} {named.mode}", notes


def test_the_key_finder_hears_the_keys_bachs_chorales_are_written_in() -> None:
    heard, before = {}, {}
    for name in CHORALES:
        named, notes = _chorale(name)
        heard[name] = (named, detect_key(notes).key.name)
        before[name] = (named, detect_key([(p, d) for p, d, _ in notes], profile="temperley").key.name)
    assert all(a == b for a, b in heard.values()), heard
    assert sum(a == b for a, b in before.values()) == len(CHORALES) - 6, before
