"""The project model: a song as a DAW sees it. A `Project` holds the tempo map,
key, time signature, sections, markers, buses and tracks; a `Track` holds its
sound (GM program or drum kit), its mix (volume, pan, mute/solo, inserts,
sends, automation) and its regions; a `Region` holds notes (each with an id),
CC, pitch bend and aftertouch, timed in beats from the region's start.

Everything is a frozen pydantic value: a change makes a new project that
shares what did not change. Mix values are checked by `bandstand.score.mix`
(the one table of effects and ranges), so a project that exists is one the
renderer can play. Ids are issued by the server (`studio.ids`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bandstand.errors import InvalidInput
from bandstand.score import (
    PITCH_BEND_MAX,
    PITCH_BEND_MIN,
    VOLUME_MAX,
    AutomationLane,
    AutomationPoint,
    Effect,
    bar_at,
    bar_start,
)
from bandstand.score import MetreChange as ScoreMetreChange
from bandstand.score import TimeSignature as ScoreTimeSignature

__all__ = [
    "NAME_MAX",
    "AftertouchEvent",
    "AutomationLaneSpec",
    "AutomationPointSpec",
    "BusSpec",
    "CCEvent",
    "EffectSpec",
    "KeyChange",
    "Marker",
    "MetreChange",
    "NoteEvent",
    "PitchBendEvent",
    "ProgramChangeEvent",
    "Project",
    "Provenance",
    "Region",
    "Section",
    "SendSpec",
    "TempoChange",
    "TimeSignature",
    "Track",
]

NAME_MAX = 50  # characters in a track name


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


# --------------------------------------------------------------------------- region content


class NoteEvent(_Value):
    """A note: `start` in beats from its region's start, `duration` in beats."""

    id: str
    pitch: int = Field(ge=0, le=127)
    start: float = Field(ge=0)
    duration: float = Field(gt=0)
    velocity: int = Field(ge=1, le=127)

    def key(self) -> tuple[float, int, float, int]:
        """What the note sounds like, without its id."""
        return (self.start, self.pitch, self.duration, self.velocity)


class CCEvent(_Value):
    """A MIDI control change at `beat` (from the region's start)."""

    beat: float = Field(ge=0)
    cc: int = Field(ge=0, le=127)
    value: int = Field(ge=0, le=127)


class PitchBendEvent(_Value):
    """A pitch bend at `beat`; 0 is centre."""

    beat: float = Field(ge=0)
    value: int = Field(ge=PITCH_BEND_MIN, le=PITCH_BEND_MAX)


class AftertouchEvent(_Value):
    """Pressure at `beat`: on one key when `pitch` is given (poly), else the whole channel."""

    beat: float = Field(ge=0)
    value: int = Field(ge=0, le=127)
    pitch: int | None = Field(default=None, ge=0, le=127)


class Region(_Value):
    """A span of one track holding events; a note belongs to the region it starts in
    (it may ring past the region's end)."""

    id: str
    track_id: str
    name: str = ""
    start_beat: float = Field(ge=0)
    length_beats: float = Field(gt=0)
    notes: tuple[NoteEvent, ...] = ()
    cc: tuple[CCEvent, ...] = ()
    pitch_bends: tuple[PitchBendEvent, ...] = ()
    aftertouch: tuple[AftertouchEvent, ...] = ()

    @property
    def end_beat(self) -> float:
        return self.start_beat + self.length_beats

    @property
    def is_empty(self) -> bool:
        return not (self.notes or self.cc or self.pitch_bends or self.aftertouch)


# --------------------------------------------------------------------------- mix


class EffectSpec(_Value):
    """An insert effect: a type of `score.EFFECTS` and its parameters (missing ones take
    the table's defaults; the table checks every value)."""

    id: str
    type: str
    params: dict[str, float | str] = {}
    bypass: bool = False

    @model_validator(mode="before")
    @classmethod
    def _fill(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" in data:
            try:
                effect = Effect(data["type"], dict(data.get("params") or {}), bool(data.get("bypass", False)))
            except InvalidInput as exc:
                raise ValueError(str(exc)) from exc
            data = {**data, "params": dict(effect.params)}
        return data

    def to_effect(self) -> Effect:
        return Effect(self.type, dict(self.params), self.bypass)


class SendSpec(_Value):
    """A post-insert send to a bus (by the bus's id)."""

    bus_id: str
    level: float = Field(default=0.25, ge=0, le=1)


class AutomationPointSpec(_Value):
    beat: float = Field(ge=0)
    value: float
    curve: str = "linear"


class AutomationLaneSpec(_Value):
    """Points over time for one parameter (volume, pan or `<effect>.<param>`)."""

    parameter: str
    points: tuple[AutomationPointSpec, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> AutomationLaneSpec:
        try:
            self.to_lane()
        except InvalidInput as exc:
            raise ValueError(str(exc)) from exc
        return self

    def to_lane(self) -> AutomationLane:
        return AutomationLane(self.parameter, tuple(AutomationPoint(p.beat, p.value, p.curve) for p in self.points))


class ProgramChangeEvent(_Value):
    """A GM program change at `beat` from the song's start."""

    beat: float = Field(ge=0)
    program: int = Field(ge=0, le=127)


class Track(_Value):
    """One part: sound, mix and regions. Exactly one of `program` (GM, 0-based) and
    `drum_kit` is set; `channel` None means "by role". `user_touched` is set once a tool
    (a person's or an agent's edit) has changed the track."""

    id: str
    name: str = Field(min_length=1, max_length=NAME_MAX)
    role: str = ""
    program: int | None = Field(default=None, ge=0, le=127)
    drum_kit: int | None = Field(default=None, ge=0, le=127)
    channel: int | None = Field(default=None, ge=0, le=15)
    colour: str | None = Field(default=None, pattern=r"^#[0-9a-fA-F]{6}$")
    volume: float = Field(default=1.0, ge=0, le=VOLUME_MAX)
    pan: float = Field(default=0.5, ge=0, le=1)
    mute: bool = False
    solo: bool = False
    inserts: tuple[EffectSpec, ...] = ()
    sends: tuple[SendSpec, ...] = ()
    automation: tuple[AutomationLaneSpec, ...] = ()
    user_touched: bool = False
    program_changes: tuple[ProgramChangeEvent, ...] = ()
    regions: tuple[Region, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Track:
        if (self.program is None) == (self.drum_kit is None):
            raise ValueError(f"track '{self.name}' needs exactly one of program (GM 0-127) and drum_kit")
        for region in self.regions:
            if region.track_id != self.id:
                raise ValueError(f"region {region.id} says it is on track {region.track_id}, not {self.id}")
        return self

    @property
    def is_drum(self) -> bool:
        return self.drum_kit is not None

    @property
    def note_count(self) -> int:
        return sum(len(r.notes) for r in self.regions)


class BusSpec(_Value):
    """A mix bus (a shared "Reverb" is the default home of reverb)."""

    id: str
    name: str = Field(min_length=1, max_length=NAME_MAX)
    inserts: tuple[EffectSpec, ...] = ()
    volume: float = Field(default=1.0, ge=0, le=VOLUME_MAX)


# --------------------------------------------------------------------------- song level


class TimeSignature(_Value):
    numerator: int = Field(default=4, ge=1, le=64)
    denominator: int = Field(default=4)

    @field_validator("denominator")
    @classmethod
    def _power_of_two(cls, v: int) -> int:
        if v not in (1, 2, 4, 8, 16, 32, 64):
            raise ValueError(f"time signature denominator {v} is not a power of two (1..64)")
        return v

    @property
    def beats_per_bar(self) -> float:
        return self.numerator * 4.0 / self.denominator

    def __str__(self) -> str:
        return f"{self.numerator}/{self.denominator}"


class MetreChange(_Value):
    """From 1-based `bar` on, the bars are in `time_signature` (the metre map after the opening metre)."""

    bar: int = Field(ge=1)
    time_signature: TimeSignature


class TempoChange(_Value):
    beat: float = Field(ge=0)
    bpm: float = Field(ge=1, le=1000)


class KeyChange(_Value):
    """From `beat` on, the song is in `key` (the key map after the opening key)."""

    beat: float = Field(ge=0)
    key: str = Field(min_length=1, max_length=40)


class Section(_Value):
    name: str
    start_bar: int = Field(ge=1)
    bars: int = Field(ge=1)
    energy: float = Field(default=0.5, ge=0, le=1)

    @property
    def end_bar(self) -> int:
        return self.start_bar + self.bars


class Marker(_Value):
    beat: float = Field(ge=0)
    text: str


class Provenance(_Value):
    """Where the project came from. `recipe` is opaque to the studio: the compose use case
    keeps in it whatever it needs to regenerate parts. An agent team keeps its contracts'
    fingerprints in `contract_hashes` and, in `team`, who wrote each section (musician, backend,
    persona, contract and execution fingerprints) — opaque here too; the manifest shows it."""

    prompt: str = ""
    seeds: dict[str, int] = {}
    generator: str = ""
    contract_hashes: dict[str, str] = {}
    recipe: dict[str, Any] = {}
    team: dict[str, Any] = {}


class Project(_Value):
    """A song you direct. `revision` counts accepted changes (1 is the first take)."""

    id: str
    name: str = ""
    tempo: float = Field(default=120.0, ge=1, le=1000)
    tempo_changes: tuple[TempoChange, ...] = ()
    key: str | None = None
    key_changes: tuple[KeyChange, ...] = ()
    time_signature: TimeSignature = TimeSignature()
    metre_changes: tuple[MetreChange, ...] = ()
    sections: tuple[Section, ...] = ()
    markers: tuple[Marker, ...] = ()
    buses: tuple[BusSpec, ...] = ()
    tracks: tuple[Track, ...] = ()
    revision: int = Field(default=0, ge=0)
    provenance: Provenance = Provenance()

    @model_validator(mode="after")
    def _check(self) -> Project:
        seen: dict[str, str] = {}
        for t in self.tracks:
            folded = t.name.casefold()
            if folded in seen:
                raise ValueError(f"two tracks are named '{t.name}' (names are unique, ignoring case)")
            seen[folded] = t.id
        buses = {b.id for b in self.buses}
        if len({b.name.casefold() for b in self.buses}) != len(self.buses):
            raise ValueError("two buses share a name (names are unique, ignoring case)")
        for t in self.tracks:
            for s in t.sends:
                if s.bus_id not in buses:
                    raise ValueError(f"track '{t.name}' sends to bus {s.bus_id}, which does not exist")
        ids = [self.id, *(t.id for t in self.tracks), *(b.id for b in self.buses),
               *(r.id for t in self.tracks for r in t.regions)]
        if len(set(ids)) != len(ids):
            raise ValueError("an id is used twice (project, track, bus and region ids are unique)")
        return self

    @property
    def beats_per_bar(self) -> float:
        return self.time_signature.beats_per_bar

    def bar_to_beat(self, bar: float) -> float:
        """The beat at which 1-based `bar` starts (following the metre map)."""
        if self.metre_changes:
            return bar_start(*self.score_metres(), bar)
        return (bar - 1) * self.beats_per_bar

    def beat_to_bar(self, beat: float) -> int:
        """The 1-based bar holding `beat` (following the metre map)."""
        if self.metre_changes:
            return bar_at(*self.score_metres(), beat)
        return int(beat // self.beats_per_bar) + 1

    def metre_at(self, bar: int) -> TimeSignature:
        """The time signature of 1-based `bar`."""
        ts = self.time_signature
        for c in sorted(self.metre_changes, key=lambda c: c.bar):
            if c.bar > bar:
                break
            ts = c.time_signature
        return ts

    def score_metres(self) -> tuple[ScoreTimeSignature, list[ScoreMetreChange]]:
        """The metre map as the score writes it: (the opening time signature, the later changes)."""
        def of(ts: TimeSignature) -> ScoreTimeSignature:
            return ScoreTimeSignature(ts.numerator, ts.denominator)

        return of(self.time_signature), [ScoreMetreChange(c.bar, of(c.time_signature)) for c in self.metre_changes]

    def regions(self) -> Iterator[tuple[Track, Region]]:
        """Every region with its track, in track order."""
        for t in self.tracks:
            for r in t.regions:
                yield t, r

    def track_by_id(self, track_id: str) -> Track:
        for t in self.tracks:
            if t.id == track_id:
                return t
        raise KeyError(track_id)

    def region_by_id(self, region_id: str) -> tuple[Track, Region]:
        for t, r in self.regions():
            if r.id == region_id:
                return t, r
        raise KeyError(region_id)

    def with_track(self, track: Track) -> Project:
        """The project with the track of the same id replaced (or appended when new)."""
        tracks = list(self.tracks)
        for i, t in enumerate(tracks):
            if t.id == track.id:
                tracks[i] = track
                break
        else:
            tracks.append(track)
        return self.model_copy(update={"tracks": tuple(tracks)})

    def with_region(self, region: Region) -> Project:
        """The project with the region of the same id replaced (or added to its track)."""
        track = self.track_by_id(region.track_id)
        regions = list(track.regions)
        for i, r in enumerate(regions):
            if r.id == region.id:
                regions[i] = region
                break
        else:
            regions.append(region)
            regions.sort(key=lambda r: r.start_beat)
        return self.with_track(track.model_copy(update={"regions": tuple(regions)}))

    def entities(self) -> dict[str, list[dict[str, str]]]:
        """Every track, region and bus as {id, name} (regions also name their track)."""
        return {
            "tracks": [{"id": t.id, "name": t.name} for t in self.tracks],
            "regions": [{"id": r.id, "name": r.name, "track_id": t.id} for t, r in self.regions()],
            "buses": [{"id": b.id, "name": b.name} for b in self.buses],
        }

    def note_count(self) -> int:
        return sum(t.note_count for t in self.tracks)
