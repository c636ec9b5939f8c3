"""Mixer edits: what a request asks of the mix desk and the transport rather than
of the music — mute or solo a track, set its level or pan, put an effect on
it, quantize or swing what it plays, rename it, add an empty track, play or
loop a section.

The request parser reads these only when asked to read as a studio
(`parse_request(text, studio=True)`); the jam never sees them. Each names the
track the way the person said it (`part`: "the lead synth", "rhodes 2", "it")
and, when the words name a part the band knows, its `role`; the studio finds
the track (by name, then by role) and turns each edit into tool calls.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "EFFECT_WORDS",
    "GRID_WORDS",
    "MIXER_ADAPTER",
    "AddTrackEdit",
    "EffectEdit",
    "MixerEdit",
    "MuteEdit",
    "PanEdit",
    "QuantizeEdit",
    "RenameEdit",
    "SwingEdit",
    "TrackSoloEdit",
    "TransportEdit",
    "VolumeEdit",
]

Part = Annotated[str, Field(min_length=1, max_length=60)]
EffectType = Literal["reverb", "delay", "compressor", "eq", "distortion", "overdrive", "filter", "chorus",
                     "tremolo", "phaser", "flanger", "limiter"]

EFFECT_WORDS: dict[str, str] = {
    "reverb": "reverb", "verb": "reverb", "hall": "reverb", "room": "reverb", "delay": "delay", "echo": "delay",
    "compressor": "compressor", "compression": "compressor", "eq": "eq", "equaliser": "eq", "equalizer": "eq",
    "distortion": "distortion", "fuzz": "distortion", "overdrive": "overdrive", "drive": "overdrive",
    "filter": "filter", "low-pass filter": "filter", "lowpass filter": "filter", "low pass filter": "filter",
    "chorus": "chorus", "tremolo": "tremolo", "phaser": "phaser", "flanger": "flanger", "limiter": "limiter",
}
"""Effect words → the effect type of `score.EFFECTS`."""
GRID_WORDS: dict[str, str] = {
    "32nds": "1/8", "32nd notes": "1/8", "thirty-seconds": "1/8", "1/32": "1/8",
    "16th triplets": "1/6", "sixteenth triplets": "1/6",
    "16ths": "1/4", "16th notes": "1/4", "sixteenths": "1/4", "sixteenth notes": "1/4", "1/16": "1/4",
    "triplets": "1/3", "8th triplets": "1/3", "eighth triplets": "1/3",
    "8ths": "1/2", "8th notes": "1/2", "eighths": "1/2", "eighth notes": "1/2", "1/8": "1/2",
    "quarter notes": "1", "quarters": "1", "beats": "1", "1/4 notes": "1",
}
"""Quantize grid words → the grid in beats (`quantize_notes`)."""


class _Mixer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _OnTrack(_Mixer):
    """An edit of one track: as the person named it, and the role those words name (if any)."""

    part: Part
    role: str | None = Field(default=None, max_length=40)


class MuteEdit(_OnTrack):
    kind: Literal["mute"] = "mute"
    muted: bool = True


class TrackSoloEdit(_OnTrack):
    """Solo a track on the mixer (not a musical solo: that is `craft.edits.SoloEdit`)."""

    kind: Literal["solo_track"] = "solo_track"
    solo: bool = True


class VolumeEdit(_OnTrack):
    """A track's level: linear gain (1 is unity), or a change in dB."""

    kind: Literal["volume"] = "volume"
    level: float | None = Field(default=None, ge=0, le=1.5)
    db: float | None = Field(default=None, ge=-60, le=24)


class PanEdit(_OnTrack):
    """Where a track sits: 0 left, 0.5 centre, 1 right."""

    kind: Literal["pan"] = "pan"
    pan: float = Field(ge=0, le=1)


class EffectEdit(_OnTrack):
    """An effect on a track (reverb goes through the shared Reverb bus). `amount` says how
    much: put it on ("add"), or — for the reverb send — "more", "less" or "none" (take it off)."""

    kind: Literal["effect"] = "effect"
    effect: EffectType
    amount: Literal["add", "more", "less", "none"] = "add"


class QuantizeEdit(_OnTrack):
    kind: Literal["quantize"] = "quantize"
    grid: str = "1/4"
    strength: float = Field(default=1.0, ge=0, le=1)


class SwingEdit(_OnTrack):
    """Swing what a track plays now (the notes move; nothing is played again)."""

    kind: Literal["swing"] = "swing"
    amount: float = Field(default=0.5, ge=0, le=1)
    grid: Literal["8ths", "16ths"] = "8ths"


class RenameEdit(_OnTrack):
    kind: Literal["rename"] = "rename"
    name: str = Field(min_length=1, max_length=50)


class AddTrackEdit(_Mixer):
    """An empty track (a part with music is `craft.edits.AddPartEdit`)."""

    kind: Literal["add_track"] = "add_track"
    name: str = Field(min_length=1, max_length=50)
    role: str | None = Field(default=None, max_length=40)
    program: int | None = Field(default=None, ge=0, le=127)
    drums: bool = False


class TransportEdit(_Mixer):
    """Play, stop, loop or go somewhere: the player's business (the page acts on it)."""

    kind: Literal["transport"] = "transport"
    action: Literal["play", "stop", "loop", "seek"]
    section: str | None = Field(default=None, max_length=40)
    bar: int | None = Field(default=None, ge=1, le=10_000)


MixerEdit = Annotated[
    MuteEdit | TrackSoloEdit | VolumeEdit | PanEdit | EffectEdit | QuantizeEdit | SwingEdit | RenameEdit
    | AddTrackEdit | TransportEdit,
    Field(discriminator="kind"),
]
MIXER_ADAPTER: TypeAdapter[MixerEdit] = TypeAdapter(MixerEdit)
