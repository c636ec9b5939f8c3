"""A song with its mix as JSON: compose's codec for the notes and controllers, plus
each track's mix (volume, pan, mute, solo, inserts, sends, automation) and the
buses. Compose writes the finished, mixed song to `state/song.json`, so a
session can be opened again (by the studio, by `bandstand export`) with every
part of the mix it was rendered with — the MIDI files carry only what MIDI can."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bandstand.compose.codec import decode_song, encode_song
from bandstand.score import AutomationLane, AutomationPoint, Bus, Effect, Send, Song, TrackMix

__all__ = ["SONG_JSON", "read_session_song", "song_from_json", "song_to_json"]

SONG_JSON = "state/song.json"


def _effect(fx: Effect) -> dict[str, Any]:
    return {"type": fx.type, "params": dict(fx.params), "bypass": fx.bypass}


def _mix(mix: TrackMix) -> dict[str, Any]:
    return {"volume": mix.volume, "pan": mix.pan, "mute": mix.mute, "solo": mix.solo,
            "inserts": [_effect(fx) for fx in mix.inserts], "sends": [[s.bus, s.level] for s in mix.sends],
            "automation": [{"parameter": lane.parameter, "points": [[p.beat, p.value, p.curve] for p in lane.points]}
                           for lane in mix.automation]}


def _unmix(data: dict[str, Any]) -> TrackMix:
    return TrackMix(volume=data["volume"], pan=data["pan"], mute=data["mute"], solo=data["solo"],
                    inserts=tuple(Effect(e["type"], e["params"], e["bypass"]) for e in data["inserts"]),
                    sends=tuple(Send(bus, level) for bus, level in data["sends"]),
                    automation=tuple(AutomationLane(a["parameter"], tuple(AutomationPoint(*p) for p in a["points"]))
                                     for a in data["automation"]))


def song_to_json(song: Song) -> dict[str, Any]:
    """The song, its mix and its buses as JSON-ready data."""
    data = encode_song(song)
    data["mix"] = [_mix(t.mix) for t in song.tracks]
    data["buses"] = [{"name": b.name, "volume": b.volume, "inserts": [_effect(fx) for fx in b.inserts]}
                     for b in song.buses]
    return data


def song_from_json(data: dict[str, Any]) -> Song:
    """The song `song_to_json` wrote (values are checked again as they are built)."""
    song = decode_song(data)
    for track, mix in zip(song.tracks, data.get("mix", []), strict=False):
        track.mix = _unmix(mix)
    song.buses = [Bus(b["name"], tuple(Effect(e["type"], e["params"], e["bypass"]) for e in b["inserts"]), b["volume"])
                  for b in data.get("buses", [])]
    return song


def read_session_song(session_dir: str | os.PathLike[str]) -> Song | None:
    """The mixed song compose wrote for a session, or None when the session has none."""
    path = Path(session_dir) / SONG_JSON
    if not path.is_file():
        return None
    return song_from_json(json.loads(path.read_text(encoding="utf-8")))
