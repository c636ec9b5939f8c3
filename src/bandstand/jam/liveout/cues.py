"""Cues: what live out plays, as timed values on the wall clock, before any port or socket.

A `Cue` is one thing to send at `at` (Unix seconds): a note (with its sound name for
SuperDirt and its channel, key and velocity for MIDI), or a transport signal — `start`,
`stop` and MIDI `clock` ticks (24 a quarter note). The jam's cycles (`events_cues`) and a
song's notes (`song_cues`) become the same stream, which the scheduler sends to OSC and MIDI
alike. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from bandstand.midi import STRUDEL_SOUNDFONTS

if TYPE_CHECKING:
    from bandstand.score import Song

__all__ = [
    "CLOCK_PPQN",
    "DRUM_CHANNEL",
    "Channels",
    "Cue",
    "clock_cues",
    "events_cues",
    "ordered",
    "song_cues",
]

CLOCK_PPQN = 24
"""MIDI clock ticks per quarter note (the MIDI standard's)."""
DRUM_CHANNEL = 9
"""General MIDI's drum channel (10, counted from 0)."""

CueKind = Literal["note", "clock", "start", "stop"]


@dataclass(frozen=True, slots=True)
class Cue:
    """One thing to send at `at` (Unix seconds). A note carries `s` (the sound's name), `note`
    (a MIDI pitch, None for a drum sample), `duration` (seconds), `gain`, `pan`, `orbit` (the
    part's lane), `cps` and `cycle` (where it falls, in cycles), and for MIDI `channel` (0-15),
    `key`, `velocity` and `program` (None: no program change)."""

    at: float
    kind: CueKind = "note"
    s: str = ""
    note: float | None = None
    duration: float = 0.0
    gain: float = 1.0
    pan: float = 0.5
    orbit: int = 0
    cps: float = 0.5
    cycle: float = 0.0
    channel: int = 0
    key: int | None = None
    velocity: int = 100
    program: int | None = None


class Channels:
    """A SuperDirt orbit for each part and a MIDI channel for each pitched part, in the order
    they first play: drums on channel 10, the others on 1-16 skipping it (the 16th pitched part
    on shares the last)."""

    def __init__(self) -> None:
        self._lanes: dict[str, int] = {}
        self._channels: dict[str, int] = {}

    def lane(self, part: str) -> int:
        """`part`'s orbit, 0 upwards, the same every time it is asked."""
        return self._lanes.setdefault(part, len(self._lanes))

    def channel(self, part: str, drums: bool) -> int:
        """`part`'s MIDI channel (0-15), the same every time it is asked."""
        if drums:
            return DRUM_CHANNEL
        lane = self._channels.setdefault(part, len(self._channels))
        return min(lane + (lane >= DRUM_CHANNEL), 15)


def events_cues(message: Mapping[str, Any], channels: Channels) -> list[Cue]:
    """The note cues of one jam cycle: an `events` message as the transport sends it (its `at` is
    when the cycle begins; each event's `begin` and `duration` are in cycles). A cycle not played
    in real time (`at` None) has no cues."""
    at = message.get("at")
    if at is None:
        return []
    seconds = float(message["cycle_seconds"])
    cycle = int(message["cycle"])
    out = []
    for event in message["events"]:
        member = str(event["member"])
        drums = event.get("program") is None
        part = member if drums else f"{member}:{event['program']}"
        out.append(Cue(
            at=float(at) + float(event["begin"]) * seconds,
            s=str(event["sound"]),
            note=event.get("note"),
            duration=float(event["duration"]) * seconds,
            gain=float(event.get("gain", 0.8)),
            pan=float(event.get("pan", 0.5)),
            orbit=channels.lane(member),
            cps=1.0 / seconds,
            cycle=cycle + float(event["begin"]),
            channel=channels.channel(part, drums),
            key=event.get("key"),
            velocity=int(event.get("velocity", 100)),
            program=event.get("program"),
        ))
    return out


def clock_cues(start: float, seconds: float, quarters: float) -> list[Cue]:
    """MIDI clock ticks for a stretch of `seconds` beginning at `start` that holds `quarters`
    quarter notes (a cycle of 4/4 holds 4): `CLOCK_PPQN` a quarter, evenly spaced."""
    ticks = max(1, round(quarters * CLOCK_PPQN))
    step = seconds / ticks
    return [Cue(at=start + i * step, kind="clock") for i in range(ticks)]


def song_cues(song: Song, start: float, *, from_beat: float = 0.0, to_beat: float | None = None,
              transport: bool = True) -> list[Cue]:
    """A `bandstand.score.Song`'s notes from `from_beat` to `to_beat` as cues, the first beat at
    wall-clock time `start`, with the clock ticks and (unless `transport` is false: a stretch of a
    longer playback, a loop's next time round) a start and a stop: a song played live. One
    cycle is one bar (so `cps` is bars a second); sounds are the names the Strudel export plays
    (drum-machine names, GM soundfonts)."""
    from bandstand.craft.to_strudel import drum_sound

    end_beat = song.length_beats if to_beat is None else to_beat
    offset = song.beats_to_seconds(from_beat)

    def when(beat: float) -> float:
        return start + song.beats_to_seconds(beat) - offset

    bar = song.beats_per_bar
    channels = Channels()
    out: list[Cue] = [Cue(at=start, kind="start")] if transport else []
    for track in song.tracks:
        if not track.notes:
            continue
        part = track.name or track.role
        channel = DRUM_CHANNEL if track.is_drum else (
            track.channel if track.channel is not None else channels.channel(part, False))
        for n in track.notes:
            if not from_beat <= n.start < end_beat:
                continue
            at = when(n.start)
            out.append(Cue(
                at=at,
                s=drum_sound(n.pitch) if track.is_drum else STRUDEL_SOUNDFONTS[track.program],
                note=None if track.is_drum else float(n.pitch),
                duration=when(min(n.start + n.duration, end_beat)) - at,
                gain=round(n.velocity / 127, 4),
                orbit=channels.lane(part),
                cps=1.0 / max(1e-9, song.beats_to_seconds(n.start + bar) - song.beats_to_seconds(n.start)),
                cycle=n.start / bar,
                channel=channel,
                key=n.pitch,
                velocity=n.velocity,
                program=None if track.is_drum else track.program,
            ))
    out += _song_clock(from_beat, end_beat, when)
    if transport:
        out.append(Cue(at=when(end_beat), kind="stop"))
    return sorted(out, key=_order)


def _song_clock(from_beat: float, end_beat: float, when: Any) -> list[Cue]:
    """Clock ticks quarter note by quarter note (a song's beats are quarters), so a tempo change
    moves the clock with the song."""
    out: list[Cue] = []
    beat = from_beat
    while beat < end_beat:
        nxt = min(end_beat, float(int(beat) + 1))
        out += clock_cues(when(beat), when(nxt) - when(beat), nxt - beat)
        beat = nxt
    return out


_KIND_ORDER = {"start": 0, "clock": 1, "note": 2, "stop": 3}


def _order(cue: Cue) -> tuple[float, int]:
    return (cue.at, _KIND_ORDER[cue.kind])


def ordered(cues: Iterable[Cue]) -> list[Cue]:
    """`cues` in the order they are sent: by time, a start before the clock, the clock before notes."""
    return sorted(cues, key=_order)
