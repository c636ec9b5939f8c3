"""Brightness on pitched parts (`craft.knobs.brighten`, used by every pitched role through
`reshape`): harder or softer, chords opened upward or closed down, never out of range."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bandstand.craft.knobs import brighten, reshape
from bandstand.craft.style import Style

CHORD = [(0.0, 1.0, 60, 80), (0.0, 1.0, 64, 80), (0.0, 1.0, 67, 80), (1.0, 1.0, 62, 80)]


def test_the_middle_changes_nothing() -> None:
    assert brighten(CHORD, 0.5, 36, 96) is CHORD
    assert reshape(CHORD, Style(), 36, 96, 4.0) == CHORD


def test_brighter_is_harder_and_opens_the_chord_upward() -> None:
    out = brighten(CHORD, 0.8, 36, 96)
    assert sorted(p for t, _, p, _ in out if t == 0.0) == [60, 67, 76]  # the E over the top, the C stays
    assert all(v == 92 for *_, v in out)  # 80 × 1.15
    assert [n for n in out if n[0] == 1.0] == [(1.0, 1.0, 62, 92)]  # a single note only louder


def test_darker_is_softer_and_closes_the_chord_down() -> None:
    open_chord = [(0.0, 1.0, 48, 80), (0.0, 1.0, 55, 80), (0.0, 1.0, 64, 80)]
    assert sorted(p for *_, p, _ in brighten(open_chord, 0.2, 36, 96)) == [48, 52, 55]
    assert sorted(p for *_, p, _ in brighten(CHORD, 0.2, 36, 96)) == [48, 52, 55, 62]  # close: down whole
    assert all(v == 68 for *_, v in brighten(CHORD, 0.2, 36, 96))
    assert brighten(CHORD, 0.2, 60, 96)[:3] == [(0.0, 1.0, p, 68) for p in (60, 64, 67)]  # no room below


notes = st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.just(0.5), st.integers(36, 96),
                           st.integers(1, 127)), max_size=12)


@given(notes, st.floats(0.0, 1.0))
def test_notes_keep_their_times_stay_in_range_and_follow_the_knob(raw: list, brightness: float) -> None:
    out = brighten(raw, brightness, 36, 96)
    assert len(out) == len(raw)
    assert sorted((t, d) for t, d, _, _ in out) == sorted((t, d) for t, d, _, _ in raw)
    assert all(36 <= p <= 96 and 1 <= v <= 127 for *_, p, v in out)
    louder = sum(v for *_, v in out) - sum(v for *_, v in raw)
    assert (louder >= 0) if brightness >= 0.5 else (louder <= 0)
