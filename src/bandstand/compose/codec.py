"""Checkpoint encoding of score values (tracks and songs) as plain JSON data.

Events are stored as rows of their fields in declaration order; floats
survive JSON exactly, so a song restored from a checkpoint writes the same
MIDI bytes as the song that was checkpointed.
"""

from __future__ import annotations

from dataclasses import astuple, fields
from operator import attrgetter
from typing import Any

from bandstand.protocol.jsonvalue import JSONObject
from bandstand.score import (
    ChannelAftertouch,
    ControlChange,
    KeyChange,
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
)

_EVENTS: dict[str, type] = {
    "notes": Note, "controls": ControlChange, "pitch_bends": PitchBend, "aftertouch": ChannelAftertouch,
    "poly_aftertouch": PolyAftertouch, "program_changes": ProgramChange,
}


_GETTERS = {name: attrgetter(*(f.name for f in fields(cls))) for name, cls in _EVENTS.items()}


def encode_track(track: Track) -> JSONObject:
    data: dict[str, Any] = {"name": track.name, "role": track.role, "program": track.program,
                            "is_drum": track.is_drum, "channel": track.channel}
    for name, getter in _GETTERS.items():
        data[name] = [getter(e) for e in getattr(track, name)]
    return data


def decode_track(data: dict[str, Any]) -> Track:
    events: dict[str, Any] = {field: [cls(*row) for row in data.get(field, [])] for field, cls in _EVENTS.items()}
    return Track(name=data["name"], role=data["role"], program=data["program"], is_drum=data["is_drum"],
                 channel=data["channel"], **events)


def encode_song(song: Song) -> JSONObject:
    data: dict[str, Any] = {
        "title": song.title, "tempo": song.tempo,
        "time_signature": [song.time_signature.numerator, song.time_signature.denominator],
        "key": song.key,
        "sections": [list(astuple(s)) for s in song.sections],
        "markers": [list(astuple(m)) for m in song.markers],
        "tempo_changes": [list(astuple(t)) for t in song.tempo_changes],
        "tracks": [encode_track(t) for t in song.tracks],
    }
    if song.key_changes:  # only a song whose key moves says so (a one-key song's bytes stay as they were)
        data["key_changes"] = [list(astuple(k)) for k in song.key_changes]
    return data


def decode_song(data: dict[str, Any]) -> Song:
    return Song(
        title=data["title"], tempo=data["tempo"], time_signature=TimeSignature(*data["time_signature"]),
        key=data["key"], sections=[Section(*row) for row in data["sections"]],
        markers=[Marker(*row) for row in data["markers"]],
        tempo_changes=[TempoChange(*row) for row in data["tempo_changes"]],
        key_changes=[KeyChange(*row) for row in data.get("key_changes", [])],
        tracks=[decode_track(t) for t in data["tracks"]],
    )
