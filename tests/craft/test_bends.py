"""`craft.bends`: the bends a player makes are bounded, start from below, and are back at
centre before the next note; parts that are not bent get none."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.craft.bends import BEND_ROLES, SEMITONE, idiomatic_bends

notes = st.lists(st.tuples(st.integers(0, 64), st.integers(1, 16), st.integers(30, 90)), min_size=1, max_size=24)


def _line(raw: list[tuple[int, int, int]]) -> list[tuple[float, float, int]]:
    """A monophonic line: sixteenth-grid starts, each note ending before the next starts."""
    starts = sorted({s / 4 for s, _, _ in raw})
    out = []
    for i, start in enumerate(starts):
        nxt = starts[i + 1] if i + 1 < len(starts) else start + 4
        out.append((start, min(raw[i % len(raw)][1] / 4, nxt - start), raw[i % len(raw)][2]))
    return out


@settings(max_examples=60, deadline=None)
@given(notes, st.sampled_from(sorted(BEND_ROLES)), st.sampled_from(["", "blues", "classical", "funk"]))
def test_bends_are_bounded_and_back_at_centre_before_each_note(raw: list[tuple[int, int, int]], role: str,
                                                                style: str) -> None:
    line = _line(raw)
    bends = idiomatic_bends(line, role, style)
    assert all(abs(v) <= 2 * SEMITONE for _, v in bends)
    assert [b for b, _ in bends] == sorted(b for b, _ in bends)
    for start, _, _ in line[1:]:
        before = [v for b, v in bends if b < start]
        assert not before or before[-1] == 0


def test_a_lead_scoops_and_sings_vibrato_a_bass_slides_a_pad_holds_still() -> None:
    lead = idiomatic_bends([(0, 0.5, 72), (1, 3, 79)], "lead", "blues")
    assert min(v for _, v in lead) < -SEMITONE / 2  # a scoop from below, wider in the blues
    assert max(v for b, v in lead if b > 1.5) > 0  # vibrato on the held note
    bass = idiomatic_bends([(0, 0.5, 40), (0.5, 0.5, 42)], "bass")
    assert bass[0] == (0.5, -round(SEMITONE * 8191 / 8192)) and bass[-1][1] == 0
    assert idiomatic_bends([(0, 4, 60)], "pad") == [] and idiomatic_bends([], "lead") == []
