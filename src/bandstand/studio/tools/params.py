"""The parameters of every studio tool: one pydantic model per tool. The LLM tool
schemas, the MCP tool list and `/protocol/tools.json` are generated from these
models (and the effect parameters from `score.EFFECTS`), never written by hand.

References to things in the project (`track`, `region`, `bus`) take an id or a
name (case-insensitive); a region may also be named `Track/Region`. Times inside
a region (`start`, `beat`) are beats from the region's start.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bandstand.errors import InvalidInput
from bandstand.score import (
    CURVES,
    EFFECT_TYPES,
    EFFECTS,
    PITCH_BEND_MAX,
    PITCH_BEND_MIN,
    TEMPO_RANGE,
    VOLUME_MAX,
    automation_parameters,
    parameter_range,
)
from bandstand.studio.model import NAME_MAX

__all__ = [
    "GRIDS",
    "MAX_NOTES_PER_CALL",
    "AddAftertouch",
    "AddAutomation",
    "AddInsertEffect",
    "AddMidiCC",
    "AddMidiRegion",
    "AddMidiTrack",
    "AddNotes",
    "AddPitchBend",
    "AddSend",
    "ApplySwing",
    "ClearNotes",
    "CreateProject",
    "DeleteRegion",
    "DuplicateRegion",
    "EnsureBus",
    "GeneratePart",
    "MoveRegion",
    "MuteTrack",
    "NewNote",
    "NoteChange",
    "QuantizeNotes",
    "ReadProject",
    "RemoveNotes",
    "SetKey",
    "SetMidiProgram",
    "SetTempo",
    "SetTimeSignature",
    "SetTrackColour",
    "SetTrackName",
    "SetTrackPan",
    "SetTrackVolume",
    "SoloTrack",
    "ToolParams",
    "TransposeNotes",
    "UpdateNotes",
    "effect_params_schema",
]

MAX_NOTES_PER_CALL = 512
# Quantize grids in beats (quarter notes): 1/64 of a beat up to a whole bar of 4/4, triplets included.
GRIDS: tuple[Fraction, ...] = tuple(Fraction(x) for x in (
    "1/64", "1/32", "1/24", "1/16", "1/12", "1/8", "1/6", "1/4", "1/3", "1/2", "2/3", "1", "2", "4"))

TrackRef = Field(min_length=1, max_length=200, description="track id or name (case-insensitive)")
RegionRef = Field(min_length=1, max_length=300,
                  description="region id, or its name ('Verse 1', or 'Bass/Verse 1' when names repeat)")
BusRef = Field(min_length=1, max_length=200, description="bus id or name (case-insensitive)")


class ToolParams(BaseModel):
    """Base of every tool's parameters: unknown keys are refused, numbers must be finite."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


# --------------------------------------------------------------------------- setup


class ReadProject(ToolParams):
    """The project as JSON: tempo, key, sections, tracks with their mix and regions."""

    include_notes: bool = Field(default=False, description="also list every note of every region")
    include_automation: bool = Field(default=False, description="also list automation points")


class CreateProject(ToolParams):
    """Start over with an empty project (the old one stays in the history)."""

    name: str = Field(min_length=1, max_length=100)
    tempo: float = Field(ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1], description="beats per minute")
    key: str | None = Field(default=None, description="e.g. 'F# minor', 'Eb'")
    time_signature: str | None = Field(default=None, pattern=r"^\d{1,2}/\d{1,2}$", description="e.g. '4/4', '6/8'")


class SetTempo(ToolParams):
    """Set the song's tempo: the whole song (its tempo map becomes this one tempo), or with
    `start_bar` (and `end_bar`) those bars only — the tempo after them stays what it was."""

    tempo: float = Field(ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1], description="beats per minute")
    start_bar: int | None = Field(default=None, ge=1, le=100_000,
                                  description="first bar at this tempo (1-based); none: the whole song")
    end_bar: int | None = Field(default=None, ge=1, le=100_000,
                                description="last bar at this tempo (inclusive); none: to the end of the song")

    @model_validator(mode="after")
    def _bars(self) -> SetTempo:
        if self.end_bar is not None and self.start_bar is None:
            raise ValueError("end_bar needs a start_bar (the first bar at this tempo)")
        if self.start_bar is not None and self.end_bar is not None and self.end_bar < self.start_bar:
            raise ValueError(f"end_bar {self.end_bar} comes before start_bar {self.start_bar}")
        return self


class SetKey(ToolParams):
    """Set the song's key (the notes are not transposed)."""

    key: str = Field(min_length=1, max_length=40, description="e.g. 'F# minor', 'Eb major', 'D dorian'")


class SetTimeSignature(ToolParams):
    """Set the time signature: the whole song (its metre map becomes this one metre), or with
    `start_bar` (and `end_bar`) those bars only — the metre after them stays what it was. The
    notes keep their beats; the bars are counted anew."""

    numerator: int = Field(ge=1, le=64)
    denominator: Literal[1, 2, 4, 8, 16, 32, 64] = 4
    start_bar: int | None = Field(default=None, ge=1, le=100_000,
                                  description="first bar in this metre (1-based); none: the whole song")
    end_bar: int | None = Field(default=None, ge=1, le=100_000,
                                description="last bar in this metre (inclusive); none: to the end of the song")

    @model_validator(mode="after")
    def _bars(self) -> SetTimeSignature:
        if self.end_bar is not None and self.start_bar is None:
            raise ValueError("end_bar needs a start_bar (the first bar in this metre)")
        if self.start_bar is not None and self.end_bar is not None and self.end_bar < self.start_bar:
            raise ValueError(f"end_bar {self.end_bar} is before start_bar {self.start_bar}")
        return self


class _Sound(ToolParams):
    gm_program: int | None = Field(default=None, ge=0, le=127, description="General MIDI program, 0-based")
    drum_kit: int | None = Field(default=None, ge=0, le=127, description="GM drum kit (plays on channel 10)")

    @model_validator(mode="after")
    def _one_sound(self) -> _Sound:
        if (self.gm_program is None) == (self.drum_kit is None):
            raise ValueError("give exactly one of gm_program (0-127) and drum_kit (0-127)")
        return self


class AddMidiTrack(_Sound):
    """Add a MIDI track; returns its track_id."""

    name: str = Field(min_length=1, max_length=NAME_MAX, description="unique, ignoring case")
    role: str | None = Field(default=None, max_length=40,
                             description="drums, bass, chords, lead, pad, … (default: from the name)")
    colour: str | None = Field(default=None, pattern=r"^#[0-9a-fA-F]{6}$", description="#RRGGBB")


class AddMidiRegion(ToolParams):
    """Add an empty region to a track; returns its region_id."""

    track: str = TrackRef
    start_beat: float = Field(ge=0, le=100_000)
    length_beats: float = Field(gt=0, le=100_000)
    name: str | None = Field(default=None, max_length=100)


class SetMidiProgram(_Sound):
    """Give a track another GM program (or make it a drum kit)."""

    track: str = TrackRef


class SetTrackName(ToolParams):
    """Rename a track."""

    track: str = TrackRef
    name: str = Field(min_length=1, max_length=NAME_MAX)


class SetTrackColour(ToolParams):
    """Set a track's colour."""

    track: str = TrackRef
    colour: str = Field(pattern=r"^#[0-9a-fA-F]{6}$", description="#RRGGBB")


# --------------------------------------------------------------------------- composition


class NewNote(ToolParams):
    """A note to add; `start` is beats from the region's start."""

    pitch: int = Field(ge=0, le=127)
    start: float = Field(ge=0, le=100_000)
    duration: float = Field(gt=0, le=1000)
    velocity: int = Field(default=96, ge=1, le=127)


class AddNotes(ToolParams):
    """Add notes to a region; returns their note_ids."""

    region: str = RegionRef
    notes: list[NewNote] = Field(min_length=1, max_length=MAX_NOTES_PER_CALL)


class GeneratePart(ToolParams):
    """Generate a part with the configured generator; it lands as notes in a region of the
    role's track (made when missing). Returns track_id, region_id and note_count."""

    role: str = Field(min_length=1, max_length=40, description="drums, bass, chords, lead, pad, …")
    bars: int = Field(ge=1, le=512)
    style: str | None = Field(default=None, max_length=200, description="words: 'walking', 'sparse', 'funk'…")
    key: str | None = Field(default=None, max_length=40, description="defaults to the project's key")
    section: str | None = Field(default=None, max_length=100, description="section name: where it starts")
    start_bar: int | None = Field(default=None, ge=1, le=10_000, description="where it starts (default 1)")
    track: str | None = Field(default=None, max_length=200, description="track to write into")
    constraints: list[str] = Field(default_factory=list, max_length=20)
    offset_beats: float = Field(default=0.0, ge=-16, le=16,
                                description="a shift in beats from the first bar's start (a pickup is negative)")


# --------------------------------------------------------------------------- arrangement


class MoveRegion(ToolParams):
    """Move a region in time (and to another track)."""

    region: str = RegionRef
    start_beat: float = Field(ge=0, le=100_000)
    track: str | None = Field(default=None, max_length=200, description="move it onto this track")


class DuplicateRegion(ToolParams):
    """Copy a region (new ids); by default it lands right after the original. Returns region_id."""

    region: str = RegionRef
    start_beat: float | None = Field(default=None, ge=0, le=100_000)


class DeleteRegion(ToolParams):
    """Delete a region and its notes."""

    region: str = RegionRef


class TransposeNotes(ToolParams):
    """Move every note of a region by semitones."""

    region: str = RegionRef
    semitones: int = Field(ge=-48, le=48)


class QuantizeNotes(ToolParams):
    """Pull note starts toward a grid."""

    region: str = RegionRef
    grid: str | float = Field(description="grid in beats: 1/64 … 4 (e.g. '1/4' for 16ths, '1/3' for triplet 8ths)")
    strength: float = Field(default=1.0, ge=0, le=1)

    @field_validator("grid")
    @classmethod
    def _grid(cls, value: str | float) -> str | float:
        try:
            grid = Fraction(value).limit_denominator(64)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"grid {value!r} is not a number of beats") from None
        if grid not in GRIDS:
            raise ValueError(f"grid {value} is not one of {', '.join(str(g) for g in GRIDS)} (beats)")
        return value

    @property
    def grid_beats(self) -> float:
        return float(Fraction(self.grid).limit_denominator(64))


class ApplySwing(ToolParams):
    """Delay the off-beats of a grid toward the triplet (0 straight, 1 full triplet swing)."""

    region: str = RegionRef
    amount: float = Field(ge=0, le=1)
    grid: Literal["8ths", "16ths"] = Field(default="8ths", description="which notes swing")


class ClearNotes(ToolParams):
    """Remove every note from a region (controllers stay)."""

    region: str = RegionRef


NoteId = Field(min_length=1, max_length=100, description="a note's id (read_project include_notes lists them)")


class NoteChange(ToolParams):
    """New values for one note, by its id; what is left out stays as it was."""

    id: str = NoteId
    pitch: int | None = Field(default=None, ge=0, le=127)
    start: float | None = Field(default=None, ge=0, le=100_000, description="beats from the region's start")
    duration: float | None = Field(default=None, gt=0, le=1000)
    velocity: int | None = Field(default=None, ge=1, le=127)


class UpdateNotes(ToolParams):
    """Move, resize, re-pitch or re-voice notes of a region by their ids (a piano roll's edits)."""

    region: str = RegionRef
    notes: list[NoteChange] = Field(min_length=1, max_length=MAX_NOTES_PER_CALL)

    @model_validator(mode="after")
    def _unique(self) -> UpdateNotes:
        ids = [n.id for n in self.notes]
        if len(set(ids)) != len(ids):
            raise ValueError("a note id is listed twice; give each note's new values once")
        return self


class RemoveNotes(ToolParams):
    """Remove notes from a region by their ids."""

    region: str = RegionRef
    note_ids: list[str] = Field(min_length=1, max_length=MAX_NOTES_PER_CALL)


# --------------------------------------------------------------------------- sound design


def effect_params_schema() -> dict[str, Any]:
    """The JSON schema of `params`, one alternative per effect type, from `score.EFFECTS`."""
    options = []
    for etype, specs in EFFECTS.items():
        props: dict[str, Any] = {}
        for name, spec in specs.items():
            doc = " ".join(x for x in (spec.doc, spec.unit and f"({spec.unit})") if x)
            if spec.choices:
                props[name] = {"enum": list(spec.choices), "default": spec.default}
            else:
                props[name] = {"type": "number", "minimum": spec.low, "maximum": spec.high, "default": spec.default}
            if doc:
                props[name]["description"] = doc
        options.append({"title": f"{etype} parameters", "type": "object", "properties": props,
                        "additionalProperties": False})
    return {"description": "the effect's parameters (missing ones take their defaults)", "anyOf": options,
            "default": {}}


def _params_schema(schema: dict[str, Any]) -> None:
    schema.clear()
    schema.update(effect_params_schema())


class AddInsertEffect(ToolParams):
    """Add an insert effect to a track's chain (or a bus's); returns effect_id."""

    track: str | None = Field(default=None, max_length=200, description="track id or name (or give bus)")
    bus: str | None = Field(default=None, max_length=200, description="bus id or name (or give track)")
    type: Literal[EFFECT_TYPES] = Field(description="the effect type")  # type: ignore[valid-type]
    params: dict[str, float | str] = Field(default_factory=dict, json_schema_extra=_params_schema)

    @model_validator(mode="after")
    def _one_target(self) -> AddInsertEffect:
        if (self.track is None) == (self.bus is None):
            raise ValueError("give exactly one of track and bus")
        return self


# --------------------------------------------------------------------------- expression


class CCPoint(ToolParams):
    beat: float = Field(ge=0, le=100_000)
    value: int = Field(ge=0, le=127)


class BendPoint(ToolParams):
    beat: float = Field(ge=0, le=100_000)
    value: int = Field(ge=PITCH_BEND_MIN, le=PITCH_BEND_MAX, description="0 is centre")


class AddMidiCC(ToolParams):
    """Add control-change events to a region (beats from the region's start)."""

    region: str = RegionRef
    cc: int = Field(ge=0, le=127, description="controller number: 1 mod wheel, 7 volume, 11 expression, 64 sustain, 74 brightness")
    events: list[CCPoint] = Field(min_length=1, max_length=2048)


class AddPitchBend(ToolParams):
    """Add pitch-bend events to a region: the `events` given, or (`idiom`) the bends its part's
    player would make — scoops into notes and vibrato on held ones for a lead, slides for a bass —
    in place of the bends the region held."""

    region: str = RegionRef
    events: list[BendPoint] = Field(default_factory=list, max_length=2048)
    idiom: bool = Field(default=False, description="write the bends the part's role and style call for")
    style: str | None = Field(default=None, max_length=200, description="genre words for `idiom` ('blues')")

    @model_validator(mode="after")
    def _events_or_idiom(self) -> AddPitchBend:
        if bool(self.events) == self.idiom:
            raise ValueError("give events ([{beat, value}…]) or idiom: true, one of the two")
        return self


class AddAftertouch(ToolParams):
    """Add pressure events to a region: with `pitch`, on that key (poly); without, the channel."""

    region: str = RegionRef
    events: list[CCPoint] = Field(min_length=1, max_length=2048)
    pitch: int | None = Field(default=None, ge=0, le=127)


# --------------------------------------------------------------------------- mixing


class SetTrackVolume(ToolParams):
    """Set a track's volume (linear gain: 1 is unity)."""

    track: str = TrackRef
    volume: float = Field(ge=0, le=VOLUME_MAX)


class SetTrackPan(ToolParams):
    """Set a track's pan (0 left, 0.5 centre, 1 right)."""

    track: str = TrackRef
    pan: float = Field(ge=0, le=1)


class MuteTrack(ToolParams):
    """Mute (or unmute) a track."""

    track: str = TrackRef
    muted: bool = True


class SoloTrack(ToolParams):
    """Solo (or unsolo) a track."""

    track: str = TrackRef
    solo: bool = True


class EnsureBus(ToolParams):
    """The bus with this name, made when missing (a new "Reverb" bus gets a reverb); returns bus_id."""

    name: str = Field(min_length=1, max_length=NAME_MAX)


class AddSend(ToolParams):
    """Send a track to a bus (replaces an earlier send to the same bus)."""

    track: str = TrackRef
    bus: str = BusRef
    level: float = Field(default=0.25, ge=0, le=1)


class AutoPoint(ToolParams):
    beat: float = Field(ge=0, le=100_000, description="beats from the song's start")
    value: float
    curve: Literal[CURVES] = "linear"  # type: ignore[valid-type]


class AddAutomation(ToolParams):
    """Automate volume, pan or an effect parameter ('delay.mix', 'filter.cutoff_hz', …) over time;
    points at the same beat replace the lane's."""

    track: str = TrackRef
    parameter: str = Field(min_length=1, max_length=60,
                           json_schema_extra={"enum": list(automation_parameters())})
    points: list[AutoPoint] = Field(min_length=1, max_length=1024)

    @field_validator("parameter")
    @classmethod
    def _automatable(cls, value: str) -> str:
        try:
            parameter_range(value)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None
        return value
