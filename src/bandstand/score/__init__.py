"""The song model: notes and controller events in beats, tracks (one per
part), sections, tempo map, time signature, key and markers, plus telemetry
(density, groove, energy) measured from them. Pure values, no I/O."""

from bandstand.score.events import (
    PITCH_BEND_MAX,
    PITCH_BEND_MIN,
    ChannelAftertouch,
    ControlChange,
    Note,
    PitchBend,
    PolyAftertouch,
    ProgramChange,
)
from bandstand.score.song import (
    CHANNEL_BY_ROLE,
    DRUM_CHANNEL,
    Marker,
    Section,
    Song,
    TempoChange,
    TimeSignature,
    Track,
    assign_channels,
)
from bandstand.score.telemetry import (
    GROOVE_STEPS,
    Telemetry,
    kick_fingerprint,
    section_telemetry,
    track_telemetry,
)

__all__ = [
    "CHANNEL_BY_ROLE",
    "DRUM_CHANNEL",
    "GROOVE_STEPS",
    "PITCH_BEND_MAX",
    "PITCH_BEND_MIN",
    "ChannelAftertouch",
    "ControlChange",
    "Marker",
    "Note",
    "PitchBend",
    "PolyAftertouch",
    "ProgramChange",
    "Section",
    "Song",
    "Telemetry",
    "TempoChange",
    "TimeSignature",
    "Track",
    "assign_channels",
    "kick_fingerprint",
    "section_telemetry",
    "track_telemetry",
]
