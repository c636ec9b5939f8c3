"""Voicing chords in a register and leading voices from chord to chord."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import motion, parse_chord, voice_chord, voice_progression


@pytest.mark.parametrize(
    ("symbol", "low", "high", "voicing"),
    [
        ("C", 48, 72, (48, 52, 55)),
        ("C/E", 48, 72, (52, 55, 60)),
        ("C/G", 48, 72, (55, 60, 64)),
        ("Cmaj7", 60, 84, (60, 64, 67, 71)),
        ("G7", 48, 72, (55, 59, 62, 65)),
        ("Cm7b5/Gb", 48, 72, (54, 58, 60, 63)),
        ("C/Bb", 48, 72, (58, 60, 64, 67)),
        ("C13", 48, 72, (48, 52, 55, 58, 62, 69)),
    ],
)
def test_close_voicings_without_a_previous_chord(symbol: str, low: int, high: int, voicing: tuple[int, ...]) -> None:
    assert voice_chord(symbol, low, high) == voicing


def test_ii_v_i_moves_by_step() -> None:
    dm7, g7, cmaj7 = voice_progression(["Dm7", "G7", "Cmaj7"], 48, 72)
    assert dm7 == (50, 53, 57, 60)
    # the classic guide-tone motion: C → B, F stays, A → G ...
    assert g7 == (50, 53, 55, 59)
    assert cmaj7 == (52, 55, 59, 60)
    assert motion(dm7, g7) <= 6
    assert motion(g7, cmaj7) <= 6


def test_a_narrow_register_is_refused() -> None:
    with pytest.raises(TheoryError):
        voice_chord("C", 60, 70)


SYMBOLS = ["C", "Dm7", "G7", "Cmaj7", "Am9", "F6/9", "Bm7b5", "E7#9", "Ab/C", "Db13", "F#dim7", "Esus4", "Bb/D", "Gm11"]


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(
    st.sampled_from(SYMBOLS),
    st.integers(24, 72),
    st.integers(12, 30),
    st.lists(st.integers(30, 90), min_size=1, max_size=5, unique=True),
)
def test_voicings_stay_in_register_and_cover_the_chord(symbol: str, low: int, width: int, previous: list[int]) -> None:
    high = low + width
    chord = parse_chord(symbol)
    for prev in (None, tuple(sorted(previous))):
        voicing = voice_chord(chord, low, high, prev)
        assert all(low <= n <= high for n in voicing)
        assert list(voicing) == sorted(set(voicing))
        assert {n % 12 for n in voicing} == set(chord.pitch_classes)
        if chord.is_slash and width >= 23:
            assert voicing[0] % 12 == chord.bass


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS), st.integers(40, 60))
def test_voice_leading_is_minimal_among_the_close_and_open_alternatives(a: str, b: str, low: int) -> None:
    high = low + 24
    first = voice_chord(a, low, high)
    led = voice_chord(b, low, high, first)
    chord = parse_chord(b)
    # every one-note-per-pitch-class voicing in range (bass at the bottom for slash chords) moves at least as much
    pcs = sorted(set(chord.pitch_classes))
    places = [[n for n in range(low, high + 1) if n % 12 == pc] for pc in pcs]
    best = min(
        motion(first, sorted(combo))
        for combo in itertools.product(*places)
        if not chord.is_slash or min(combo) % 12 == chord.bass
    )
    assert motion(first, led) <= best + 2 * len(pcs)
    assert motion(first, led) <= motion(first, voice_chord(b, low, high))


@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(st.sampled_from(SYMBOLS), st.integers(40, 60))
def test_revoicing_a_chord_from_itself_does_not_move(symbol: str, low: int) -> None:
    first = voice_chord(symbol, low, low + 24)
    assert voice_chord(symbol, low, low + 24, first) == first
