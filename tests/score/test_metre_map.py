"""The metre map: bars of several lengths. A bar's start and the bar of a beat agree with a plain
list of bar lengths; putting some bars in another metre leaves every other bar's metre as it was;
and moving a part from one map to another keeps every event in its bar and its place in the bar."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from bandstand.score import MetreChange, Note, TimeSignature, Track
from bandstand.score.metre_map import MetreMap, overlay, relay, remetre

METRES = [TimeSignature(4, 4), TimeSignature(3, 4), TimeSignature(6, 8), TimeSignature(7, 8), TimeSignature(5, 4)]
BARS = 24

per_bar = st.lists(st.sampled_from(METRES), min_size=BARS, max_size=BARS)


def _map(bars: list[TimeSignature]) -> MetreMap:
    return MetreMap.of(bars[0], [MetreChange(b, ts) for b, ts in enumerate(bars, start=1)])


@given(per_bar)
def test_bar_starts_follow_the_bar_lengths(bars: list[TimeSignature]) -> None:
    metres = _map(bars)
    starts = [0.0, *accumulate(ts.beats_per_bar for ts in bars)]
    for bar in range(1, BARS + 1):
        assert metres.at(bar) == bars[bar - 1]
        assert metres.start(bar) == starts[bar - 1]
        assert metres.bar(starts[bar - 1]) == bar
        assert metres.bar(starts[bar] - 0.01) == bar
    assert all(a.time_signature != b.time_signature for a, b in zip(metres.changes, metres.changes[1:], strict=False))


@given(per_bar, st.integers(1, BARS), st.integers(0, 6), st.sampled_from(METRES))
def test_remetre_changes_those_bars_only(bars: list[TimeSignature], first: int, more: int, ts: TimeSignature) -> None:
    last = min(BARS, first + more)
    after = remetre(_map(bars), first, last, ts)
    assert [after.at(b) for b in range(1, BARS + 1)] == [ts if first <= b <= last else bars[b - 1]
                                                         for b in range(1, BARS + 1)]


@given(per_bar, per_bar, st.sets(st.integers(1, BARS)))
def test_overlay_takes_the_new_metre_in_the_accepted_bars(old: list[TimeSignature], new: list[TimeSignature],
                                                          accepted: set[int]) -> None:
    made = overlay(_map(old), _map(new), accepted, BARS)
    assert [made.at(b) for b in range(1, BARS + 1)] == [new[b - 1] if b in accepted else old[b - 1]
                                                        for b in range(1, BARS + 1)]


@given(per_bar, per_bar)
def test_relay_keeps_each_event_in_its_bar_and_place(src: list[TimeSignature], dst: list[TimeSignature]) -> None:
    a, b = _map(src), _map(dst)
    notes = [Note(a.start(bar) + 0.5, 0.25, 60 + bar % 12, 90) for bar in range(1, BARS + 1)]
    moved = relay(Track("lead", "lead", notes=notes), a, b)
    assert [(b.bar(n.start), n.start - b.start(b.bar(n.start)), n.pitch) for n in moved.notes] == [
        (bar, 0.5, 60 + bar % 12) for bar in range(1, BARS + 1)]
    assert relay(moved, b, a).notes == notes
