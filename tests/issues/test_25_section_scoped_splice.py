"""Issue #25: "simpler drums in the chorus" shortened a crash in the bar before the chorus from one
beat to 0.01 — the splice of a section-scoped edit cut an old note starting just before the window
where a new note of the same key starts on the window's downbeat. A note belongs where it starts:
outside the windows a drum part is exactly the old one; a pitched part's held key is still
released where the new part strikes it again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.producer.requests.iteration_song import splice
from bandstand.score import Note, Track

CRASH = 49
CHORUS = (32.0, 48.0)


def test_a_crash_just_before_the_chorus_keeps_its_length() -> None:
    old = Track("Drums", "drums", is_drum=True, notes=[Note(28.0, 0.25, 36, 100), Note(31.9996, 1.0, CRASH, 110),
                                                        Note(32.0, 1.0, CRASH, 110), Note(48.0, 1.0, CRASH, 110)])
    new = Track("Drums", "drums", is_drum=True, notes=[Note(32.0047, 1.0, CRASH, 100), Note(40.0, 0.25, 36, 90)])
    spliced = splice(old, new, [CHORUS])
    assert [(n.start, n.duration, n.pitch) for n in spliced.notes] == [
        (28.0, 0.25, 36), (31.9996, 1.0, CRASH), (32.0047, 1.0, CRASH), (40.0, 0.25, 36), (48.0, 1.0, CRASH)]


def test_a_held_key_of_a_pitched_part_is_still_released_where_the_new_part_strikes_it() -> None:
    old = Track("Pad", "pad", notes=[Note(28.0, 8.0, 61, 80)])
    new = Track("Pad", "pad", notes=[Note(32.0, 4.0, 61, 80)])
    assert [(n.start, n.duration) for n in splice(old, new, [CHORUS]).notes] == [(28.0, 4.0), (32.0, 4.0)]


notes = st.lists(st.tuples(st.floats(0, 63, allow_nan=False), st.sampled_from([0.25, 1.0, 4.0]),
                           st.sampled_from([36, 38, 42, CRASH])), max_size=40)


@settings(max_examples=60, deadline=None)
@given(notes, notes)
def test_outside_the_section_a_drum_part_is_untouched(before: list[tuple[float, float, int]],
                                                        after: list[tuple[float, float, int]]) -> None:
    old = Track("Drums", "drums", is_drum=True, notes=[Note(s, d, p, 100) for s, d, p in before])
    new = Track("Drums", "drums", is_drum=True, notes=[Note(s, d, p, 90) for s, d, p in after])
    spliced = splice(old, new, [CHORUS])
    outside = sorted((n.start, n.duration, n.pitch) for n in spliced.notes if not CHORUS[0] - 1e-9 <= n.start < CHORUS[1] - 1e-9)
    assert outside == sorted((n.start, n.duration, n.pitch) for n in old.notes
                             if not CHORUS[0] - 1e-9 <= n.start < CHORUS[1] - 1e-9)
