"""Edits: what a request in words asks of a song or a jam, as typed values.

A request ("make the bass busier in the chorus", "switch to D major, more
energy") becomes a tuple of `Edit`s. Each is a frozen pydantic value with a
`kind`, so the same objects come from the rule tables and from a language
model's JSON reply, and the same schema describes them to either. Changes of
how a part is played are `StyleEdit`s carrying a `StyleOverride` (knob deltas
for a role, limited to sections or bars); the rest name what changes in the
song's facts (key, tempo, metre, energy, parts, instruments) or in the
session (regenerate, next alternative, freeze, praise).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from bandstand.craft.mixer_edits import MixerEdit
from bandstand.craft.style import StyleOverride

__all__ = [
    "EDIT_ADAPTER",
    "MODES",
    "ROLES",
    "AddPartEdit",
    "AlternativeEdit",
    "Edit",
    "EnergyEdit",
    "FreezeEdit",
    "GenreEdit",
    "InstrumentEdit",
    "KeyEdit",
    "MetreEdit",
    "MixEdit",
    "ModeEdit",
    "PraiseEdit",
    "PresenceEdit",
    "ProgressionEdit",
    "RegenerateEdit",
    "RemovePartEdit",
    "Request",
    "SoloEdit",
    "StyleEdit",
    "TempoEdit",
    "TransposeEdit",
]

# The roles a band plays (one generator per role); "*" in a scope means every part.
ROLES: tuple[str, ...] = ("drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion",
                          "counter_melody")
MODES: tuple[str, ...] = ("major", "minor", "dorian", "phrygian", "lydian", "mixolydian", "locrian")
Role = Literal["drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody"]
AnyRole = Literal["*", "drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody"]
Mode = Literal["major", "minor", "dorian", "phrygian", "lydian", "mixolydian", "locrian"]
E = TypeVar("E", bound="_Edit")
Sections = tuple[Annotated[str, Field(min_length=1, max_length=40)], ...]


class _Edit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Scoped(_Edit):
    """An edit that may be limited to sections (names or kinds) and/or a 1-based bar range."""

    sections: Sections = ()
    bars: tuple[int, int] | None = None

    @field_validator("bars")
    @classmethod
    def _bar_range(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and not 1 <= value[0] <= value[1]:
            raise ValueError(f"bars {value[0]}-{value[1]} is not a 1-based range")
        return value


class StyleEdit(_Edit):
    """Play a part differently: knob deltas, a time feel (half, double), scoped by the override."""

    kind: Literal["style"] = "style"
    override: StyleOverride


class EnergyEdit(_Scoped):
    """More or less energy: `delta` in steps of a tenth, or an absolute `level` 1–10."""

    kind: Literal["energy"] = "energy"
    delta: int = Field(default=0, ge=-9, le=9)
    level: int | None = Field(default=None, ge=1, le=10)


class KeyEdit(_Scoped):
    """A new key: tonic (e.g. "F#", "Eb") and, when said, a mode (else the song's); with a scope,
    in those sections or bars only (the song's key map moves there)."""

    kind: Literal["key"] = "key"
    tonic: str = Field(pattern=r"^[A-G][#b]?$")
    mode: Mode | None = None


class ModeEdit(_Edit):
    """The same tonic in another mode ("switch to dorian")."""

    kind: Literal["mode"] = "mode"
    mode: Mode


class TransposeEdit(_Edit):
    """Move the song up or down by semitones ("up a tone")."""

    kind: Literal["transpose"] = "transpose"
    semitones: int = Field(ge=-11, le=11)


class TempoEdit(_Scoped):
    """A tempo in BPM, a change by `delta` BPM, or by a `factor` ("half the tempo"); with a scope,
    in those sections or bars only (the song's tempo map moves there). `asked` is the tempo the
    words named when it lay outside `score.TEMPO_RANGE` (`bpm` is then the nearest end of the range)."""

    kind: Literal["tempo"] = "tempo"
    bpm: float | None = Field(default=None, gt=0, le=100000)
    delta: float = Field(default=0.0, ge=-200, le=200)
    factor: float | None = Field(default=None, ge=0.25, le=4.0)
    asked: float | None = Field(default=None, ge=0)

    def applied(self, old: float) -> float:
        """The tempo this edit makes of `old` (before the range's clamp)."""
        if self.bpm is not None:
            return self.bpm
        return old * self.factor if self.factor is not None else old + self.delta


class MetreEdit(_Scoped):
    """A time signature; a scope ("3/4 in the verse") is read so that it is never dropped silently
    (the studio says a metre in some sections only is not written yet)."""

    kind: Literal["metre"] = "metre"
    numerator: int = Field(ge=2, le=15)
    denominator: Literal[4, 8]


class ProgressionEdit(_Edit):
    """These chords, one per bar, in this order."""

    kind: Literal["progression"] = "progression"
    chords: tuple[Annotated[str, Field(min_length=1, max_length=16)], ...] = Field(min_length=1, max_length=64)


class GenreEdit(_Edit):
    kind: Literal["genre"] = "genre"
    genre: str = Field(min_length=1, max_length=60)


class InstrumentEdit(_Edit):
    """Play `role` on another instrument (a General MIDI program, 0-based)."""

    kind: Literal["instrument"] = "instrument"
    role: Role
    program: int = Field(ge=0, le=127)
    name: str = Field(default="", max_length=60)


class AddPartEdit(_Scoped):
    """A new part for `role` (on `program` when an instrument was named), where scoped."""

    kind: Literal["add_part"] = "add_part"
    role: Role
    program: int | None = Field(default=None, ge=0, le=127)
    name: str = Field(default="", max_length=60)


class RemovePartEdit(_Edit):
    kind: Literal["remove_part"] = "remove_part"
    role: Role


class PresenceEdit(_Scoped):
    """A part drops out (`present` False) or comes back in, where scoped; with `pieces`, only
    those pieces of the drum kit (`score.DRUM_PIECES`: "mute the hi-hats in the intro")."""

    kind: Literal["presence"] = "presence"
    role: AnyRole = "*"
    present: bool
    pieces: tuple[Literal["kick", "snare", "hats", "toms", "cymbals", "percussion"], ...] = ()


class SoloEdit(_Scoped):
    """A part takes a solo: it steps forward, busier, more adventurous, a little higher."""

    kind: Literal["solo"] = "solo"
    role: AnyRole = "*"


class RegenerateEdit(_Scoped):
    """Play it again with a new seed: a part (a role), the progression or the arrangement."""

    kind: Literal["regenerate"] = "regenerate"
    target: Literal["drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody",
                    "progression", "arrangement"]


class AlternativeEdit(_Edit):
    """Try something different: the next alternative of a part, the progression or the
    arrangement (None: of what was changed last)."""

    kind: Literal["alternative"] = "alternative"
    target: str | None = Field(default=None, max_length=40)


class FreezeEdit(_Edit):
    """Keep these parts as they are (`frozen`), or let them change again."""

    kind: Literal["freeze"] = "freeze"
    roles: tuple[Role, ...] = Field(min_length=1)
    frozen: bool = True


class MixEdit(_Edit):
    """A part louder or quieter: `volume` multiplies its level."""

    kind: Literal["mix"] = "mix"
    role: Role
    volume: float = Field(gt=0, le=4)


class PraiseEdit(_Edit):
    """Nothing to change: the person likes it."""

    kind: Literal["praise"] = "praise"


Edit = Annotated[
    StyleEdit | EnergyEdit | KeyEdit | ModeEdit | TransposeEdit | TempoEdit | MetreEdit | ProgressionEdit
    | GenreEdit | InstrumentEdit | AddPartEdit | RemovePartEdit | PresenceEdit | SoloEdit | RegenerateEdit
    | AlternativeEdit | FreezeEdit | MixEdit | PraiseEdit,
    Field(discriminator="kind"),
]
EDIT_ADAPTER: TypeAdapter[Edit] = TypeAdapter(Edit)


class Request(BaseModel):
    """A request in words and the edits read out of it (empty: not understood); `mixer`
    holds what it asks of the mix desk and the player (read for the studio only)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    edits: tuple[Edit, ...] = ()
    mixer: tuple[MixerEdit, ...] = ()

    @property
    def understood(self) -> bool:
        return bool(self.edits or self.mixer)

    @property
    def praise_only(self) -> bool:
        return bool(self.edits) and all(isinstance(e, PraiseEdit) for e in self.edits)

    def of(self, kind: type[E]) -> list[E]:
        """The edits of one type, in order."""
        return [e for e in self.edits if isinstance(e, kind)]
