"""Key detection from notes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import PROFILES, detect_key, get_scale, parse_key, voice_progression
from bandstand.theory._detect import TONIC_AT_THE_ENDS


def _progression(symbols: str, beats: float = 2.0) -> list[tuple[int, float]]:
    voicings = voice_progression(symbols.split(), 48, 72)
    return [(n, beats) for v in voicings for n in v]


@pytest.mark.parametrize(
    ("progression", "key"),
    [
        ("C F G7 C Am Dm G7 C", "C major"),
        ("Am Dm E7 Am F Dm E7 Am", "A minor"),
        ("Eb Ab Bb7 Eb Cm Fm Bb7 Eb", "Eb major"),
        ("F#m Bm C#7 F#m D Bm C#7 F#m", "F# minor"),
        ("D G A7 D Bm Em A7 D", "D major"),
        ("Cm Fm G7 Cm Ab Fm G7 Cm", "C minor"),
    ],
)
def test_detects_the_key_of_cadential_progressions(progression: str, key: str) -> None:
    for profile in PROFILES:
        estimate = detect_key(_progression(progression), profile=profile)
        assert estimate.key.name == key, profile
        assert 0.5 < estimate.confidence <= 1.0


def test_durations_weigh_in() -> None:
    # the same pitches: long A-minor tones outweigh short C-major passing notes
    notes = [(57, 4.0), (60, 2.0), (64, 4.0), (68, 3.0), (62, 0.25), (65, 0.25), (67, 0.25), (71, 0.25)]
    assert detect_key(notes).key.name == "A minor"
    short = [(57, 0.25), (60, 0.25), (64, 0.25), (68, 0.25), (62, 4.0), (65, 4.0), (67, 4.0), (71, 4.0)]
    assert detect_key(short).key != detect_key(notes).key


def test_a_scale_alone_leans_to_its_tonic_but_is_less_certain_than_a_cadence() -> None:
    scale = get_scale("G major")
    notes = [scale.degree_to_midi(i, 55) for i in range(8)]
    estimate = detect_key(notes)
    assert estimate.key.name == "G major"
    cadence = detect_key(_progression("G C D7 G"))
    assert cadence.confidence >= estimate.confidence


def test_ranking_covers_all_24_keys_best_first() -> None:
    estimate = detect_key(_progression("C F G7 C"))
    assert len(estimate.ranking) == 24
    assert len({k.name for k, _ in estimate.ranking}) == 24
    scores = [s for _, s in estimate.ranking]
    assert scores == sorted(scores, reverse=True)
    assert estimate.ranking[0][0] == estimate.key


def test_a_single_pitch_is_ambiguous() -> None:
    assert detect_key([60]).confidence < 0.6


@pytest.mark.parametrize("bad", [[], [(60, 0.0)]])
def test_no_notes_is_an_error(bad: list[tuple[int, float]]) -> None:
    with pytest.raises(TheoryError):
        detect_key(bad)


def test_unknown_profile() -> None:
    with pytest.raises(TheoryError):
        detect_key([60], profile="nope")


PROGRESSIONS = ["C F G7 C", "Am Dm E7 Am", "C Am F G", "Dm G7 Cmaj7", "Cm Ab Bb Cm", "C Em F G C"]


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(PROGRESSIONS), st.integers(1, 11), st.sampled_from(sorted(PROFILES)))
def test_transposing_the_notes_transposes_the_key(progression: str, semitones: int, profile: str) -> None:
    notes = _progression(progression)
    base = detect_key(notes, profile=profile)
    moved = detect_key([(p + semitones, d) for p, d in notes], profile=profile)
    assert moved.key.tonic_pc == (base.key.tonic_pc + semitones) % 12
    assert moved.key.mode == base.key.mode
    assert moved.confidence == pytest.approx(base.confidence, abs=1e-6)


def test_detected_keys_are_parseable_keys() -> None:
    for name in {k.name for k, _ in detect_key([60, 64, 67]).ranking}:
        assert parse_key(name).name == name


def test_accepts_score_notes_and_lists() -> None:
    from bandstand.score import Note

    pairs = _progression("Am Dm E7 Am")
    notes = [Note(start=float(i), duration=d, pitch=p, velocity=80) for i, (p, d) in enumerate(pairs)]
    triples = [(p, d, float(i)) for i, (p, d) in enumerate(pairs)]
    as_lists = [[p, d] for p, d in pairs]
    assert detect_key(notes).key == detect_key(pairs).key == detect_key(as_lists).key == detect_key(triples).key
    assert detect_key(notes).confidence == detect_key(triples).confidence
    assert detect_key(pairs).confidence == detect_key(as_lists).confidence


def test_the_combined_profile_averages_temperley_and_aarden() -> None:
    notes = _progression("Dm G7 Cmaj7 A7 Dm7 G7 C")
    combined = dict((k.name, s) for k, s in detect_key(notes, profile="combined").ranking)
    temperley = dict((k.name, s) for k, s in detect_key(notes, profile="temperley").ranking)
    aarden = dict((k.name, s) for k, s in detect_key(notes, profile="aarden").ranking)
    for name, score in combined.items():
        assert score == pytest.approx((temperley[name] + aarden[name]) / 2)


def _timed(symbols: str, bass: dict[str, int], beats: float = 4.0) -> list[tuple[int, float, float]]:
    """A progression as (pitch, duration, onset) triples: a close voicing above its root in the bass."""
    notes = []
    for bar, (symbol, voicing) in enumerate(zip(symbols.split(), voice_progression(symbols.split(), 60, 76),
                                                strict=True)):
        notes += [(p, beats, bar * beats) for p in voicing]
        notes.append((bass[symbol.rstrip("m7")], beats, bar * beats))
    return notes


def test_the_bass_at_the_ends_tells_a_minor_key_from_its_relative_major() -> None:
    # the same chords, the same durations: a natural-minor loop starting and ending on Am,
    # and the C major loop starting and ending on C
    bass = {"A": 45, "F": 41, "C": 48, "G": 43}
    minor = _timed("Am F C G Am F C G Am", bass)
    major = _timed("C G Am F C G Am F C", bass)
    assert detect_key(minor).key.name == "A minor"
    assert detect_key(major).key.name == "C major"
    assert detect_key(minor).bonus == pytest.approx(sum(TONIC_AT_THE_ENDS))
    # without onsets the histograms alone (nearly the same) decide, and no bonus is given
    bare = detect_key([(p, d) for p, d, _ in minor])
    assert bare.bonus == 0.0 and bare.correlation == pytest.approx(bare.ranking[0][1])


def test_the_bonus_is_kept_out_of_the_correlation() -> None:
    notes = _timed("Am F C G Am", {"A": 45, "F": 41, "C": 48, "G": 43})
    timed, bare = detect_key(notes), detect_key([(p, d) for p, d, _ in notes])
    assert timed.key.name == "A minor" and timed.bonus > 0
    assert timed.correlation == pytest.approx(dict((k.name, c) for k, c in bare.ranking)["A minor"])


def test_a_clear_key_is_not_outvoted_by_its_bass_at_the_ends() -> None:
    # a C major cadence whose last bass note is A: still C major
    notes = _timed("C F G7 C F G7 C F G7 Am", {"C": 48, "F": 41, "G": 43, "A": 45})
    assert detect_key(notes).key.name == "C major"


def test_a_loop_that_stops_on_a_sus_chord_has_no_ending_to_hear() -> None:
    notes = [(57, 4.0, 0.0), (60, 4.0, 0.0), (64, 4.0, 0.0), (55, 4.0, 4.0), (57, 4.0, 4.0), (62, 4.0, 4.0)]
    assert detect_key(notes).bonus in (0.0, TONIC_AT_THE_ENDS[0])  # Gsus2 last: only the opening A may count
    assert all(k.tonic_pc != 7 or score == pytest.approx(bare) for (k, score), bare in zip(
        detect_key(notes).ranking, [dict((k.name, c) for k, c in detect_key([(p, d) for p, d, _ in notes]).ranking)[k.name]
                                    for k, _ in detect_key(notes).ranking], strict=True))


def test_a_song_that_ends_on_a_short_note_still_has_an_ending() -> None:
    # the last chord struck staccato (shorter than the finder's tolerance): it is still the last sonority
    notes = [(45, 1.0, 0.0), (60, 1.0, 0.0), (64, 1.0, 0.0), (43, 1.0, 1.0), (45, 0.03, 2.0), (60, 0.03, 2.0),
             (64, 0.03, 2.0)]
    timed = dict((k.name, score) for k, score in detect_key(notes).ranking)
    bare = dict((k.name, score) for k, score in detect_key([(p, d) for p, d, _ in notes]).ranking)
    assert timed["A minor"] - bare["A minor"] == pytest.approx(sum(TONIC_AT_THE_ENDS))  # A opened and ended it


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 127), st.floats(0, 8), st.floats(0, 64)), min_size=1, max_size=30))
def test_any_timed_notes_get_a_key_or_a_clear_error(notes: list[tuple[int, float, float]]) -> None:
    try:
        estimate = detect_key(notes)
    except TheoryError:
        assert sum(d for _, d, _ in notes) <= 0
        return
    assert 0.0 <= estimate.confidence <= 1.0 and estimate.bonus in (0.0, *TONIC_AT_THE_ENDS, sum(TONIC_AT_THE_ENDS))
