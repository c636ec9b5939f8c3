"""Where the band leaves space (`bandstand.craft.density`): the time-keeping drums thinned below
the chorus's lift, the comping answering the lead where it breathes, a tambourine over the
hats in full only in the last peak, and the drums and comping of a verse against a chorus."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.craft import Idiom, Situation, play
from bandstand.craft.density import (
    HUSH_ENERGY,
    LAST_PEAK_ENERGY,
    LIFT_ENERGY,
    answers,
    breathes,
    doubled,
    steady,
    thinned,
    timekeeping_every,
)
from bandstand.craft.kit import CLOSED_HAT, OPEN_HAT, RIDE, TAMBOURINE
from bandstand.craft.situation import Bar, Chord

steps_lists = st.lists(st.integers(0, 15), unique=True, max_size=16).map(sorted)


@given(steps_lists, st.sampled_from((1, 2, 4)))
def test_thinned_hits_are_the_voices_own_every_so_many_sixteenths(steps, every):
    kept = thinned(steps, every)
    assert set(kept) <= set(steps)
    assert all(b - a >= every for a, b in pairwise(kept))
    assert kept[:1] == steps[:1]  # counted from its first hit: an off-beat hat stays off the beat
    if every == 1:
        assert kept == steps


def test_the_hats_thin_below_the_lift_and_hush_in_intros():
    assert timekeeping_every(LIFT_ENERGY, 0.9) == 1
    assert timekeeping_every(0.5, 0.5) == 2
    assert timekeeping_every(0.2, HUSH_ENERGY - 0.01) == 4
    assert not doubled(0.9) and doubled(LAST_PEAK_ENERGY)


def test_the_comping_answers_where_the_lead_breathes():
    for bar in range(16):
        assert answers(bar, 16, 0.5) == (breathes(bar, 16, 0.5) != "")
    assert [answers(b, 16, 0.5) for b in range(8)] == [False] * 6 + [True, True]
    assert not any(answers(b, 16, 0.9) for b in range(16))  # a chorus sings through


def _song(energies: list[float], section_energy: list[float]) -> Situation:
    chord = Chord.of_symbol("C")
    bars = tuple(Bar(index=i, start=4.0 * i, section=i // 8, kind="verse" if s < LIFT_ENERGY else "chorus",
                     bar_in_section=i % 8, bars_in_section=8, energy=e, chord=chord, next_chord=chord,
                     roles=frozenset({"drums", "chords", "lead", "bass", "pad"}), section_energy=s)
                 for i, (e, s) in enumerate(zip(energies, section_energy, strict=True)))
    return Situation(tonic=0, mode="major", scale=(0, 2, 4, 5, 7, 9, 11), tempo=110, beats_per_bar=4, steps=16,
                     bars=bars, idiom=Idiom(drum_family="rock_backbeat", comp_style="strummed"))


def _per_bar(events, bars: range, notes: frozenset[int] | None = None) -> float:
    hits = [e for e in events if int(e.start // 4) in bars and (notes is None or e.pitch in notes)]
    return len(hits) / len(bars)


def test_a_verse_keeps_time_in_eighths_and_the_last_chorus_doubles_the_tambourine():
    s = _song([0.5] * 8 + [0.9] * 8 + [0.95] * 8, [0.5] * 8 + [0.9] * 8 + [0.95] * 8)
    drums = play("drums", s, random.Random(1)).events
    cymbals = frozenset({CLOSED_HAT, OPEN_HAT, RIDE})
    assert _per_bar(drums, range(0, 7), cymbals) <= 8  # eighths at most in the verse
    assert _per_bar(drums, range(0, 7), frozenset({TAMBOURINE})) == 0
    first, last = (_per_bar(drums, bars, frozenset({TAMBOURINE})) for bars in (range(8, 15), range(16, 23)))
    assert 0 < first <= 4 < last  # on the beats in a chorus, as written (eighths) in the last one


def test_under_the_singing_lead_the_verse_comping_keeps_to_the_strong_beats():
    s = _song([0.5] * 8, [0.5] * 8)
    chords = play("chords", s, random.Random(2)).events
    for e in chords:
        bar, beat = int(e.start // 4), e.start % 4
        if not answers(bar % 8, 8, 0.5):
            assert min(abs(beat - 0), abs(beat - 2)) < 0.2, (bar, beat)
    assert any(min(abs(e.start % 4), abs(e.start % 4 - 2)) >= 0.2 for e in chords if int(e.start // 4) in (6, 7))


def test_a_funk_chop_grip_keeps_the_chords_root() -> None:
    """The chicken scratch's grip on the top strings holds the root: E minor 7's top voices
    G-B-D become E-B-D (the root an octave up inside the grip), a grip with the root stays."""
    from bandstand.craft.comping import _with_root

    assert _with_root((55, 59, 62), 4) == (52, 59, 62)  # G3 B3 D4 → E3 B3 D4: the root under the grip
    assert _with_root((55, 62, 71), 4) == (62, 64, 71)  # G3 D4 B4 → D4 E4 B4: the root inside the grip
    assert _with_root((52, 55, 59), 4) == (52, 55, 59)


@pytest.mark.parametrize(("density", "mood", "played"), [
    (0.5, 0.0, 0.5), (0.9, 0.4, 0.5), (0.3, -0.2, 0.3), (0.8, 0.0, 0.8), (1.0, 0.4, 0.6), (1.0, 0.7, 0.5)])
def test_a_steady_figure_takes_back_only_what_the_mood_added(density, mood, played):
    assert steady(density, mood) == pytest.approx(played)
