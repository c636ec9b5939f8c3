"""The song model: values are checked, bars and beats convert, channels follow the role table."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bandstand.score as score
from bandstand.errors import InvalidInput
from bandstand.score import (
    CHANNEL_BY_ROLE,
    ChannelAftertouch,
    ControlChange,
    Marker,
    Note,
    PitchBend,
    PolyAftertouch,
    ProgramChange,
    Section,
    Song,
    TempoChange,
    TimeSignature,
    Track,
    assign_channels,
)


def test_public_exports_are_pinned() -> None:
    assert set(score.__all__) == {
        "CHANNEL_BY_ROLE", "DRUM_CHANNEL", "DRUM_PIECES", "GROOVE_STEPS", "PITCH_BEND_MAX", "PITCH_BEND_MIN",
        "ChannelAftertouch", "ControlChange", "KeyChange", "Marker", "Note", "PitchBend", "PolyAftertouch",
        "ProgramChange", "Section", "Song", "TempoChange", "Telemetry", "TimeSignature", "Track",
        "MetreChange", "bar_at", "bar_start",
        "assign_channels", "kick_fingerprint", "section_telemetry", "track_telemetry",
        "TEMPO_RANGE", "clamp_tempo", "file_slug", "part_names",
        "CURVES", "EFFECTS", "EFFECT_TYPES", "VOLUME_MAX", "AutomationLane", "AutomationPoint", "Bus",
        "Effect", "ParamSpec", "Send", "TrackMix", "audible", "automation_parameters", "parameter_range",
    }
    for name in score.__all__:
        assert hasattr(score, name)


def test_events_are_frozen_values_with_slots() -> None:
    note = Note(0.5, 1.0, 60, 100)
    with pytest.raises(dataclasses.FrozenInstanceError):
        note.pitch = 61  # type: ignore[misc]
    assert not hasattr(note, "__dict__")
    assert note.end == 1.5
    assert dataclasses.replace(note, pitch=62) == Note(0.5, 1.0, 62, 100)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Note(-0.1, 1.0, 60, 100),
        lambda: Note(0.0, 0.0, 60, 100),
        lambda: Note(0.0, 1.0, 128, 100),
        lambda: Note(0.0, 1.0, 60, 0),
        lambda: Note(float("nan"), 1.0, 60, 100),
        lambda: ControlChange(0.0, 128, 0),
        lambda: ControlChange(0.0, 7, 200),
        lambda: PitchBend(0.0, 8192),
        lambda: PitchBend(0.0, -8193),
        lambda: ChannelAftertouch(0.0, -1),
        lambda: PolyAftertouch(0.0, 60, 128),
        lambda: ProgramChange(0.0, 128),
        lambda: TimeSignature(4, 3),
        lambda: TimeSignature(0, 4),
        lambda: TempoChange(0.0, 0.0),
        lambda: Section("verse", 0, 8, 0.5),
        lambda: Section("verse", 1, 0, 0.5),
        lambda: Section("verse", 1, 8, 1.5),
        lambda: Marker(-1.0, "x"),
        lambda: Track("t", "lead", program=200),
        lambda: Track("t", "lead", channel=16),
        lambda: Song(tempo=0.0),
    ],
)
def test_out_of_range_values_are_refused(make: object) -> None:
    with pytest.raises(InvalidInput):
        make()  # type: ignore[operator]


def test_bars_beats_and_length() -> None:
    song = Song(time_signature=TimeSignature(6, 8), sections=[Section("intro", 1, 4, 0.3)])
    assert song.beats_per_bar == 3.0
    assert song.bar_to_beat(1) == 0.0
    assert song.bar_to_beat(3) == 6.0
    assert song.beat_to_bar(5.9) == 2
    assert song.length_beats == 12.0
    song.tracks.append(Track("Lead", "lead", notes=[Note(13.0, 2.0, 72, 90)]))
    assert song.length_beats == 15.0
    assert song.length_bars == 5


def test_track_lookup_by_role_then_name() -> None:
    song = Song(tracks=[Track("Bass", "bass"), Track("Keys", "chords")])
    assert song.track("bass").name == "Bass"
    assert song.track("Keys").role == "chords"
    with pytest.raises(KeyError, match="no track"):
        song.track("lead")


def test_tempo_map_and_seconds() -> None:
    song = Song(tempo=120.0, tempo_changes=[TempoChange(8.0, 60.0)])
    assert song.tempo_at(0.0) == 120.0
    assert song.tempo_at(8.0) == 60.0
    assert song.beats_to_seconds(8.0) == pytest.approx(4.0)
    assert song.beats_to_seconds(10.0) == pytest.approx(6.0)


def test_track_sort_orders_every_list() -> None:
    track = Track("Lead", "lead", notes=[Note(2.0, 1.0, 60, 90), Note(0.0, 1.0, 64, 90)],
                  controls=[ControlChange(3.0, 7, 1), ControlChange(1.0, 7, 2)])
    track.sort()
    assert [n.start for n in track.notes] == [0.0, 2.0]
    assert [c.time for c in track.controls] == [1.0, 3.0]


def test_channels_follow_the_role_table() -> None:
    roles = ["drums", "bass", "chords", "lead", "pad", "fx", "strings"]
    song = Song(tracks=[Track(r.title(), r) for r in roles])
    channels = assign_channels(song)
    assert channels[:5] == [CHANNEL_BY_ROLE[r] for r in roles[:5]]
    assert channels[5:] == [0, 5]


def test_explicit_channel_and_drum_flag_win() -> None:
    song = Song(tracks=[Track("Perc", "perc", is_drum=True), Track("Bass", "bass"),
                        Track("Sub", "bass", channel=1)])
    assert assign_channels(song) == [9, 0, 1]


@settings(deadline=None)
@given(st.lists(st.sampled_from(["drums", "bass", "chords", "lead", "pad", "fx", "vox", "keys"]),
                max_size=24))
def test_melodic_tracks_never_get_the_drum_channel(roles: list[str]) -> None:
    song = Song(tracks=[Track(r, r) for r in roles])
    channels = assign_channels(song)
    assert len(channels) == len(roles)
    for role, channel in zip(roles, channels, strict=True):
        assert 0 <= channel <= 15
        assert (channel == 9) == (role == "drums")
    melodic = [c for r, c in zip(roles, channels, strict=True) if r != "drums"]
    if len(melodic) <= 15:
        assert len(set(melodic)) == len(melodic)


@settings(deadline=None)
@given(st.integers(3000, 30000), st.lists(st.tuples(st.integers(1, 400), st.integers(3000, 30000)), max_size=5),
       st.lists(st.integers(0, 500), min_size=2, max_size=10))
def test_seconds_follow_the_tempo_map(tempo: int, changes: list[tuple[int, int]], quarters: list[int]) -> None:
    song = Song(tempo=tempo / 100, tempo_changes=[TempoChange(b / 4, bpm / 100) for b, bpm in changes])
    beats = sorted(q / 4 for q in quarters)
    seconds = [song.beats_to_seconds(b) for b in beats]
    assert seconds == sorted(seconds) and song.beats_to_seconds(0.0) == 0.0
    for b in beats:  # a short step forward lasts as long as the tempo in force says
        step = 1 / 64
        assert song.beats_to_seconds(b + step) - song.beats_to_seconds(b) == pytest.approx(
            step * 60 / song.tempo_at(b), rel=1e-6)
