"""The song: tracks (one per part, each with its mix), sections, tempo map,
time signature, key, markers and mix buses. Times are beats; bars are 1-based. A `Track` and a `Song` are
mutable containers of frozen events so stages can build them up in place;
the channel each part plays on comes from one table (`CHANNEL_BY_ROLE`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bandstand.errors import InvalidInput
from bandstand.score.events import (
    ChannelAftertouch,
    ControlChange,
    Note,
    PitchBend,
    PolyAftertouch,
    ProgramChange,
)
from bandstand.score.mix import Bus, TrackMix

DRUM_CHANNEL = 9
DRUM_PIECES: dict[str, tuple[int, ...]] = {
    "kick": (35, 36), "snare": (37, 38, 39, 40), "hats": (42, 44, 46), "toms": (41, 43, 45, 47, 48, 50),
    "cymbals": (49, 51, 52, 53, 55, 57, 59), "percussion": tuple(range(60, 82)),
}
"""The pieces of a General MIDI kit and the keys each plays (side stick and claps with the snare;
open, closed and pedal hi-hat together)."""
MIDI_CHANNELS = 16
# Zero-based MIDI channels per role; roles not listed get the next free channel (never 9).
CHANNEL_BY_ROLE: dict[str, int] = {"drums": 9, "bass": 1, "chords": 2, "lead": 3, "pad": 4}


@dataclass(frozen=True, slots=True)
class TimeSignature:
    """A time signature such as 4/4, 6/8 or 7/8 (the denominator is a power of two)."""

    numerator: int = 4
    denominator: int = 4

    def __post_init__(self) -> None:
        if not 1 <= self.numerator <= 64:
            raise InvalidInput(f"time signature numerator {self.numerator} is out of range; use 1..64")
        if self.denominator not in (1, 2, 4, 8, 16, 32, 64):
            raise InvalidInput(
                f"time signature denominator {self.denominator} is not a power of two (1..64)"
            )

    @property
    def beats_per_bar(self) -> float:
        """Quarter-note beats in one bar (6/8 → 3.0)."""
        return self.numerator * 4.0 / self.denominator

    def __str__(self) -> str:
        return f"{self.numerator}/{self.denominator}"


@dataclass(frozen=True, slots=True)
class MetreChange:
    """From 1-based `bar` on, the bars are in `time_signature` (the metre map after the opening
    metre; a metre changes only at a barline)."""

    bar: int
    time_signature: TimeSignature

    def __post_init__(self) -> None:
        if self.bar < 1:
            raise InvalidInput(f"metre change to {self.time_signature} at bar {self.bar}; bars start at 1")


def _lengths(opening: TimeSignature, changes: list[MetreChange] | tuple[MetreChange, ...]) -> list[tuple[int, float]]:
    """(first bar, beats per bar) of each stretch of one metre, bar 1 first (the last change said
    for a bar wins)."""
    by_bar = {1: opening.beats_per_bar}
    for c in changes:
        by_bar[c.bar] = c.time_signature.beats_per_bar
    return sorted(by_bar.items())


def bar_start(opening: TimeSignature, changes: list[MetreChange] | tuple[MetreChange, ...], bar: float) -> float:
    """The beat at which 1-based `bar` starts, following the metre map (`opening` from bar 1, then
    `changes`); a fractional bar is that far into its bar."""
    start, at, bpb = 0.0, 1, opening.beats_per_bar
    for first, length in _lengths(opening, changes):
        if first > bar:
            break
        start += (first - at) * bpb
        at, bpb = first, length
    return start + (bar - at) * bpb


def bar_at(opening: TimeSignature, changes: list[MetreChange] | tuple[MetreChange, ...], beat: float) -> int:
    """The 1-based bar that holds `beat`, following the metre map."""
    start, at, bpb = 0.0, 1, opening.beats_per_bar
    for first, length in _lengths(opening, changes):
        begins = start + (first - at) * bpb
        if begins > beat:
            break
        start, at, bpb = begins, first, length
    return at + int((beat - start) // bpb)


@dataclass(frozen=True, slots=True)
class TempoChange:
    """From `beat` on, the tempo is `bpm` quarter notes per minute."""

    beat: float
    bpm: float

    def __post_init__(self) -> None:
        if not self.beat >= 0.0:
            raise InvalidInput(f"tempo change at beat {self.beat} is negative")
        if not 1.0 <= self.bpm <= 1000.0:
            raise InvalidInput(f"tempo {self.bpm} bpm is out of range; use 1..1000")


@dataclass(frozen=True, slots=True)
class KeyChange:
    """From `beat` on, the song is in `key` (a key name such as "F# minor")."""

    beat: float
    key: str

    def __post_init__(self) -> None:
        if not self.beat >= 0.0:
            raise InvalidInput(f"key change to {self.key} at beat {self.beat} is negative")


@dataclass(frozen=True, slots=True)
class Marker:
    """A text marker at `beat` (section names are written as markers too)."""

    beat: float
    text: str

    def __post_init__(self) -> None:
        if not self.beat >= 0.0:
            raise InvalidInput(f"marker '{self.text}' at beat {self.beat} is negative")


@dataclass(frozen=True, slots=True)
class Section:
    """A named span of whole bars: `start_bar` is 1-based, `energy` is 0..1."""

    name: str
    start_bar: int
    bars: int
    energy: float = 0.5

    def __post_init__(self) -> None:
        if self.start_bar < 1:
            raise InvalidInput(f"section '{self.name}' starts at bar {self.start_bar}; bars start at 1")
        if self.bars < 1:
            raise InvalidInput(f"section '{self.name}' has {self.bars} bars; it needs at least 1")
        if not 0.0 <= self.energy <= 1.0:
            raise InvalidInput(f"section '{self.name}' energy {self.energy} is out of range; use 0..1")

    @property
    def end_bar(self) -> int:
        """The first bar after the section (1-based, exclusive)."""
        return self.start_bar + self.bars


@dataclass(slots=True)
class Track:
    """One part: its notes and controller data, GM `program`, and MIDI channel
    (`None` means "by role", see `assign_channels`)."""

    name: str
    role: str
    program: int = 0
    is_drum: bool = False
    channel: int | None = None
    notes: list[Note] = field(default_factory=list)
    controls: list[ControlChange] = field(default_factory=list)
    pitch_bends: list[PitchBend] = field(default_factory=list)
    aftertouch: list[ChannelAftertouch] = field(default_factory=list)
    poly_aftertouch: list[PolyAftertouch] = field(default_factory=list)
    program_changes: list[ProgramChange] = field(default_factory=list)
    mix: TrackMix = field(default_factory=TrackMix)

    def __post_init__(self) -> None:
        if not 0 <= self.program <= 127:
            raise InvalidInput(f"track '{self.name}' program {self.program} is out of range; use 0..127")
        if self.channel is not None and not 0 <= self.channel < MIDI_CHANNELS:
            raise InvalidInput(f"track '{self.name}' channel {self.channel} is out of range; use 0..15")

    @property
    def end_beat(self) -> float:
        """The last beat any note of this track sounds (0.0 when empty)."""
        return max((n.start + n.duration for n in self.notes), default=0.0)

    def sort(self) -> None:
        """Sort every event list by time (notes by start, then pitch), in place."""
        self.notes.sort(key=lambda n: (n.start, n.pitch, n.duration, n.velocity))
        self.controls.sort(key=lambda c: (c.time, c.control))
        self.pitch_bends.sort(key=lambda b: b.time)
        self.aftertouch.sort(key=lambda a: a.time)
        self.poly_aftertouch.sort(key=lambda a: (a.time, a.pitch))
        self.program_changes.sort(key=lambda p: p.time)


@dataclass(slots=True)
class Song:
    """A whole song. `tempo` is the starting bpm; `tempo_changes` may follow.
    `key` is a key name such as "C minor" or None when unknown: the key the song opens in;
    `key_changes` may follow (the key map)."""

    title: str = ""
    tempo: float = 120.0
    time_signature: TimeSignature = field(default_factory=TimeSignature)
    key: str | None = None
    sections: list[Section] = field(default_factory=list)
    tracks: list[Track] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    tempo_changes: list[TempoChange] = field(default_factory=list)
    buses: list[Bus] = field(default_factory=list)
    key_changes: list[KeyChange] = field(default_factory=list)
    metre_changes: list[MetreChange] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 1.0 <= self.tempo <= 1000.0:
            raise InvalidInput(f"tempo {self.tempo} bpm is out of range; use 1..1000")

    @property
    def beats_per_bar(self) -> float:
        """Quarter-note beats per bar of the opening time signature (`metre_at` for a bar's own)."""
        return self.time_signature.beats_per_bar

    def metre_map(self) -> list[MetreChange]:
        """The metre of bar 1 followed by the later changes, sorted, one per bar, each a real change."""
        out = [MetreChange(1, self.time_signature)]
        for c in sorted(self.metre_changes, key=lambda c: c.bar):
            if c.bar == out[-1].bar:
                out[-1] = c
            elif c.time_signature != out[-1].time_signature:
                out.append(c)
        return out

    def metre_at(self, bar: int) -> TimeSignature:
        """The time signature of 1-based `bar`."""
        ts = self.time_signature
        for c in self.metre_map():
            if c.bar > bar:
                break
            ts = c.time_signature
        return ts

    @property
    def length_beats(self) -> float:
        """Length in beats: the end of the last note or the last section, whichever is later."""
        sections_end = max((self.bar_to_beat(s.end_bar) for s in self.sections), default=0.0)
        notes_end = max((t.end_beat for t in self.tracks), default=0.0)
        return max(sections_end, notes_end)

    @property
    def length_bars(self) -> int:
        """Whole bars needed to hold the song (a partial last bar counts)."""
        beats = self.length_beats
        if self.metre_changes:
            bar = bar_at(self.time_signature, self.metre_changes, beats)
            return bar - 1 + (1 if beats - self.bar_to_beat(bar) > 1e-9 else 0)
        bars = beats / self.beats_per_bar
        whole = int(bars)
        return whole + (1 if bars - whole > 1e-9 else 0)

    def bar_to_beat(self, bar: int | float) -> float:
        """The beat at which 1-based `bar` starts (following the metre map)."""
        if self.metre_changes:
            return bar_start(self.time_signature, self.metre_changes, bar)
        return (bar - 1) * self.beats_per_bar

    def beat_to_bar(self, beat: float) -> int:
        """The 1-based bar that contains `beat` (following the metre map)."""
        if self.metre_changes:
            return bar_at(self.time_signature, self.metre_changes, beat)
        return int(beat // self.beats_per_bar) + 1

    def track(self, role_or_name: str) -> Track:
        """The first track whose role (or failing that, name) is `role_or_name`."""
        for t in self.tracks:
            if t.role == role_or_name:
                return t
        for t in self.tracks:
            if t.name == role_or_name:
                return t
        known = ", ".join(sorted({t.role for t in self.tracks})) or "none"
        raise KeyError(f"no track with role or name '{role_or_name}' (roles: {known})")

    def tempo_map(self) -> list[TempoChange]:
        """The tempo at beat 0 followed by the later changes, sorted, one per beat."""
        changes = {0.0: self.tempo}
        for c in sorted(self.tempo_changes, key=lambda c: c.beat):
            changes[c.beat] = c.bpm
        return [TempoChange(b, bpm) for b, bpm in sorted(changes.items())]

    def key_map(self) -> list[KeyChange]:
        """The key at beat 0 followed by the later changes, sorted, one per beat, each a real
        change (empty when the key is unknown)."""
        if self.key is None:
            return []
        changes = {0.0: self.key}
        for c in sorted(self.key_changes, key=lambda c: c.beat):
            changes[c.beat] = c.key
        out: list[KeyChange] = []
        for beat, key in sorted(changes.items()):
            if not out or out[-1].key != key:
                out.append(KeyChange(beat, key))
        return out

    def key_at(self, beat: float) -> str | None:
        """The key in force at `beat` (None when the song's key is unknown)."""
        key = self.key
        for c in self.key_map():
            if c.beat > beat + 1e-9:
                break
            key = c.key
        return key

    def tempo_at(self, beat: float) -> float:
        """The bpm in force at `beat`."""
        bpm = self.tempo
        for c in self.tempo_map():
            if c.beat > beat:
                break
            bpm = c.bpm
        return bpm

    def beats_to_seconds(self, beat: float) -> float:
        """Seconds from the start to `beat`, following the tempo map."""
        seconds, at, bpm = 0.0, 0.0, self.tempo
        for c in self.tempo_map():
            if c.beat >= beat:
                break
            seconds += (c.beat - at) * 60.0 / bpm
            at, bpm = c.beat, c.bpm
        return seconds + (beat - at) * 60.0 / bpm

    @property
    def duration_seconds(self) -> float:
        """Length of the song in seconds."""
        return self.beats_to_seconds(self.length_beats)


TEMPO_RANGE: tuple[float, float] = (30.0, 300.0)
"""The tempos (BPM) a song is composed, directed and jammed at — one range for every client:
`compose --tempo`, prompts, edits ("set the tempo to 96"), studio tools, the jam. A file read
from elsewhere may hold any tempo a Song allows (1–1000)."""


def clamp_tempo(bpm: float) -> float:
    """`bpm` brought into `TEMPO_RANGE`."""
    return min(TEMPO_RANGE[1], max(TEMPO_RANGE[0], bpm))


def file_slug(name: str) -> str:
    """A name as it appears in file names: lower case, letters and digits, single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def part_names(tracks: list[Track]) -> list[str]:
    """Each track's file name (without extension) — one name per part everywhere: its MIDI file
    (`midi/<name>.mid`), its stem (`audio/stems/<name>.wav`), its export. The track's name as a
    slug (its role when it has no name, "part" when neither), made unique in track order with
    -2, -3 …"""
    names: list[str] = []
    taken: set[str] = set()
    for track in tracks:
        base = file_slug(track.name) or file_slug(track.role) or "part"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        names.append(name)
    return names


def assign_channels(song: Song) -> list[int]:
    """The zero-based MIDI channel of each track, in track order.

    An explicit `Track.channel` wins; drum tracks play on 9; a role in
    `CHANNEL_BY_ROLE` gets its channel while free; the rest take the lowest
    free channel, never 9 (past 15 melodic parts, channels are shared)."""
    result: list[int | None] = [t.channel for t in song.tracks]
    used = {c for c in result if c is not None}
    for i, t in enumerate(song.tracks):
        if result[i] is not None:
            continue
        if t.is_drum or CHANNEL_BY_ROLE.get(t.role) == DRUM_CHANNEL:
            result[i] = DRUM_CHANNEL
            used.add(DRUM_CHANNEL)
            continue
        wanted = CHANNEL_BY_ROLE.get(t.role)
        if wanted is not None and wanted not in used:
            result[i] = wanted
            used.add(wanted)
    melodic = [c for c in range(MIDI_CHANNELS) if c != DRUM_CHANNEL]
    shared = 0
    for i in range(len(result)):
        if result[i] is not None:
            continue
        free = [c for c in melodic if c not in used and c not in CHANNEL_BY_ROLE.values()]
        free = free or [c for c in melodic if c not in used]
        if free:
            result[i] = free[0]
            used.add(free[0])
        else:
            result[i] = melodic[shared % len(melodic)]
            shared += 1
    return [c for c in result if c is not None]
