"""The tempo map's arithmetic (`score.tempo_map`) against a plain model: one tempo per beat. Setting
or moving the tempo in a window changes exactly the beats inside it; an overlay takes the new
map's tempos in its windows and the old one's elsewhere; a map's seconds are the sum of its beats'."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bandstand.score import TempoChange
from bandstand.score.tempo_map import (
    TempoMap,
    overlay,
    retempo,
    seconds_between,
    segments,
    tempo_at,
)

BEATS = 40
bpm = st.integers(30, 300).map(float)
maps = st.builds(lambda t, cs: (t, tuple(TempoChange(float(b), v) for b, v in sorted(dict(cs).items()))),
                 bpm, st.lists(st.tuples(st.integers(1, BEATS - 1), bpm), max_size=5))
windows = st.tuples(st.integers(0, BEATS - 1), st.integers(1, BEATS)).map(lambda w: (min(w), max(w[1], min(w) + 1)))


def _beats(m: TempoMap) -> list[float]:
    return [tempo_at(m[0], m[1], float(b)) for b in range(BEATS)]


@given(maps, windows, st.sampled_from([lambda old: 96.0, lambda old: old / 2, lambda old: old + 10]))
def test_retempo_changes_the_window_only(m: TempoMap, window: tuple[int, int], fn: object) -> None:
    start, end = window
    new = retempo(m[0], m[1], float(start), float(end), fn)  # type: ignore[arg-type]
    before, after = _beats(m), _beats(new)
    assert after == [fn(v) if start <= b < end else v for b, v in enumerate(before)]  # type: ignore[operator]
    # normal: sorted, none at beat 0, none repeating the tempo in force
    assert all(c.beat > 0 for c in new[1]) and [c.beat for c in new[1]] == sorted(c.beat for c in new[1])
    assert all(c.bpm != tempo_at(new[0], new[1], c.beat - 1e-6) for c in new[1])


@given(maps, maps, st.lists(windows, max_size=3))
def test_overlay_takes_the_new_tempos_in_its_windows(old: TempoMap, new: TempoMap, ws: list[tuple[int, int]]) -> None:
    got = _beats(overlay(old, new, [(float(a), float(b)) for a, b in ws]))
    inside = {b for a, e in ws for b in range(a, e)}
    assert got == [n if b in inside else o for b, (o, n) in enumerate(zip(_beats(old), _beats(new), strict=True))]


@given(maps, windows)
def test_seconds_are_the_sum_of_the_beats(m: TempoMap, window: tuple[int, int]) -> None:
    start, end = window
    expected = sum(60.0 / v for v in _beats(m)[start:end])
    assert abs(seconds_between(m[0], m[1], float(start), float(end)) - expected) < 1e-9
    assert sum(b - a for a, b, _ in segments(m[0], m[1], float(start), float(end))) == end - start
