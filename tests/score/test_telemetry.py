"""Telemetry values on hand-built songs."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.score import Note, Section, Song, Track, section_telemetry, track_telemetry


def four_on_the_floor(bars: int, velocity: int = 100) -> list[Note]:
    return [Note(float(b * 4 + beat), 0.25, 36, velocity) for b in range(bars) for beat in range(4)]


def test_four_on_the_floor_kick() -> None:
    drums = Track("Drums", "drums", is_drum=True, notes=four_on_the_floor(2))
    song = Song(tracks=[drums])
    t = track_telemetry(drums, song)
    assert t.notes == 8
    assert t.bars == pytest.approx(7.25 / 4)  # the song ends with the last note, at beat 7.25
    assert t.kick == "x...x...x...x..."
    assert t.groove == (1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0)
    assert t.velocity_mean == 100.0
    assert t.velocity_variance == 0.0
    # four equally likely steps out of 16, none weak: entropy 2 of 4 bits
    assert t.complexity == pytest.approx((2 / 4 + 0.0) / 2)


def test_offbeat_sixteenths_are_more_complex_than_quarters() -> None:
    quarters = Track("Q", "lead", notes=[Note(float(i), 0.5, 60, 80) for i in range(8)])
    offbeats = Track("S", "lead", notes=[Note(i * 0.25, 0.2, 60, 80) for i in range(32) if i % 2])
    song = Song(tracks=[quarters, offbeats])
    assert track_telemetry(offbeats, song).complexity > track_telemetry(quarters, song).complexity
    assert track_telemetry(quarters, song).kick is None


def test_kick_fingerprint_ignores_a_one_bar_fill() -> None:
    notes = four_on_the_floor(3) + [Note(12.0 + i * 0.25, 0.25, 36, 90) for i in range(16)]
    song = Song(tracks=[Track("Drums", "drums", notes=notes)])
    assert track_telemetry(song.tracks[0], song).kick == "x...x...x...x..."


def test_irregular_kicks_fall_back_to_the_most_common_bar() -> None:
    # bars 1 and 2 kick on 1 and the "and" of 2, bars 3-5 once each elsewhere:
    # no step has kicks in half of the five bars, so the repeated bar wins
    starts = [0.0, 1.5, 4.0, 5.5, 8.75, 14.25, 19.0]
    song = Song(tracks=[Track("Drums", "drums", notes=[Note(s, 0.25, 36, 100) for s in starts])])
    assert track_telemetry(song.tracks[0], song).kick == "x.....x........."


def test_velocity_statistics_and_energy() -> None:
    notes = [Note(0.0, 1.0, 60, 40), Note(1.0, 1.0, 62, 80), Note(2.0, 1.0, 64, 120)]
    song = Song(sections=[Section("A", 1, 1, 0.5)], tracks=[Track("Lead", "lead", notes=notes)])
    t = track_telemetry(song.tracks[0], song)
    assert t.velocity_mean == 80.0
    assert t.velocity_variance == pytest.approx((40**2 + 0 + 40**2) / 3)
    assert t.density == pytest.approx(3 / 4)
    assert t.energy == pytest.approx(0.5 * (0.75 / 6) + 0.5 * 80 / 127)


def test_sections_split_notes_and_louder_busier_sections_have_more_energy() -> None:
    quiet = [Note(float(i), 1.0, 60, 50) for i in range(0, 16, 2)]
    loud = [Note(16 + i * 0.5, 0.5, 60, 120) for i in range(32)]
    drums = four_on_the_floor(8)
    song = Song(
        sections=[Section("verse", 1, 4, 0.3), Section("chorus", 5, 4, 0.9)],
        tracks=[Track("Lead", "lead", notes=quiet + loud), Track("Drums", "drums", notes=drums)],
    )
    verse, chorus = section_telemetry(song)
    assert (verse.name, chorus.name) == ("verse", "chorus")
    assert verse.notes == 8 + 16 and chorus.notes == 32 + 16
    assert verse.bars == chorus.bars == 4.0
    assert chorus.energy > verse.energy
    assert verse.kick == chorus.kick == "x...x...x...x..."
    assert len(verse.groove) == 16 and max(verse.groove) == 1.0
    assert chorus.to_dict()["groove"] == list(chorus.groove)


def test_empty_section_measures_zero() -> None:
    song = Song(sections=[Section("silence", 1, 2, 0.0)], tracks=[Track("Lead", "lead")])
    (t,) = section_telemetry(song)
    assert t.notes == 0 and t.energy == 0.0 and t.complexity == 0.0 and t.kick is None
    assert not any(t.groove) and not math.isnan(t.velocity_variance)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.builds(Note, st.integers(0, 16 * 32).map(lambda s: s / 16), st.integers(1, 32).map(lambda d: d / 16),
                          st.integers(30, 90), st.integers(1, 127)), max_size=60),
       st.integers(1, 4))
def test_telemetry_stays_in_range(notes: list[Note], bars: int) -> None:
    song = Song(sections=[Section("a", 1, bars, 0.5), Section("b", bars + 1, 8, 0.5)],
                tracks=[Track("Drums", "drums", notes=[dataclasses.replace(n, pitch=36) for n in notes]),
                        Track("Lead", "lead", notes=notes)])
    for t in [*section_telemetry(song), *(track_telemetry(tr, song) for tr in song.tracks)]:
        assert 0.0 <= t.energy <= 1.0 and 0.0 <= t.complexity <= 1.0 and t.density >= 0.0
        assert len(t.groove) == 16 and all(0.0 <= g <= 1.0 for g in t.groove)
        assert max(t.groove) == (1.0 if t.notes else 0.0)
        assert t.velocity_variance >= 0.0 and (t.notes == 0 or 1 <= t.velocity_mean <= 127)
        assert t.kick is None or (len(t.kick) == 16 and set(t.kick) <= {"x", "."} and "x" in t.kick)
    sections = section_telemetry(song)
    assert sum(s.notes for s in sections) == 2 * sum(1 for n in notes if n.start < (bars + 8) * 4)
    assert (sections[0].kick is None) == all(n.start >= bars * 4 for n in notes)
