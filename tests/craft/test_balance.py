"""The balance model's drums (issue #30, stem balance by role): a hit counts by the drum it
strikes and a kit by its own figure, so a bossa nova's cross-stick and brushed hats get the
fader a backbeat with as many hits does not need."""

from __future__ import annotations

import pytest

from bandstand.craft.balance import fader_db, notes_db
from bandstand.craft.kit import CLOSED_HAT, KICK, RIM, SNARE
from bandstand.score import Note

QUIET = -12.0  # a target low enough that no fader here meets the top of its range


def _groove(*beat: int, bars: int = 4) -> list[Note]:
    """Three hits a beat: the beat's drum on it and two closed hats on the eighths."""
    notes = []
    for b in range(bars * 4):
        notes.append(Note(float(b), 0.25, beat[b % len(beat)], 100))
        notes += [Note(b + 0.0, 0.25, CLOSED_HAT, 100), Note(b + 0.5, 0.25, CLOSED_HAT, 100)]
    return notes


def test_the_plain_groove_the_kit_was_measured_on_counts_nothing() -> None:
    assert notes_db(_groove(KICK, SNARE), 0, True, 4.0) == pytest.approx(0.0, abs=0.05)


def test_a_cross_stick_and_hats_groove_gets_more_fader_than_a_backbeat_with_as_many_hits() -> None:
    backbeat = fader_db("drums", QUIET, 0, True, _groove(KICK, SNARE))
    cross_stick = fader_db("drums", QUIET, 0, True, _groove(RIM))
    hats_only = fader_db("drums", QUIET, 0, True, [Note(b / 2, 0.25, CLOSED_HAT, 100) for b in range(32)])
    assert cross_stick > backbeat + 4  # a cross-stick sits under the kick and far under the snare
    assert hats_only > cross_stick + 5  # closed hats alone hardly move the meter


@pytest.mark.parametrize("kit, louder_by", [(8, 3.5), (40, -5.7), (32, 0.0)])
def test_each_kit_is_set_for_its_own_loudness(kit: int, louder_by: float) -> None:
    """The room kit's ambience stands above the standard kit, the brushes under it."""
    notes = _groove(KICK, SNARE)
    assert fader_db("drums", QUIET, kit, True, notes) == pytest.approx(fader_db("drums", QUIET, 0, True, notes) - louder_by,
                                                                      abs=0.05)
