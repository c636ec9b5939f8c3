"""Contracts: the frozen agreements an agent team works under.

The coordinator seals a `SongContract` (tempo, key, metre, the sections with
their bars and beats, the tracks with their ids); each instrument agent gets
an `InstrumentContract` derived from it and each section agent a
`SectionContract` derived from its instrument's. Every contract carries a
**lineage fingerprint**: the SHA-256 of its canonical structural fields
(sorted-key JSON) and its parent's fingerprint. Advisory text — prompts,
names, colours, personas, briefs — is left out of the hash, so rewording a
brief never breaks a contract while changing one bar does.

Every contract is **bound to its session** (the session folder's name, a
structural field): two sessions of the same prompt and seed share ids and
notes, but not fingerprints, so a contract (or a section job) replayed from
another session is refused with a `ContractMismatch` naming both sessions.

Contracts are pydantic models with ``frozen=True`` built through `seal`,
which fills the fingerprint; building one with a fingerprint that does not
match its fields is refused, and `verify` recomputes it (a copy changed with
`model_copy(update=…)` skips validation, so an agent always verifies before
it touches the project). `reconcile` compares the structural values a model
reported with the contract's: drift is corrected from the contract and
returned as warnings, never silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from bandstand.errors import ContractMismatch

__all__ = [
    "Contract",
    "InstrumentContract",
    "SectionContract",
    "SectionShape",
    "SongContract",
    "TrackShape",
    "canonical",
    "fingerprint_of",
    "reconcile",
]


def canonical(value: Any) -> Any:
    """The structural content of a value as plain JSON data: contracts and shapes without
    their advisory fields (and without the fingerprint itself), floats rounded to 6 places."""
    if isinstance(value, BaseModel):
        skip = getattr(value, "ADVISORY", frozenset()) | {"fingerprint"}
        return {name: canonical(getattr(value, name)) for name in sorted(type(value).model_fields)
                if name not in skip}
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    return value


def fingerprint_of(value: BaseModel) -> str:
    """SHA-256 (hex) of the canonical structural JSON of `value`."""
    text = json.dumps(canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    ADVISORY: ClassVar[frozenset[str]] = frozenset()


class SectionShape(_Frozen):
    """One section as every agent must see it: where it starts and how long it is."""

    ADVISORY: ClassVar[frozenset[str]] = frozenset({"name"})

    index: int = Field(ge=0)
    name: str
    kind: str
    start_bar: int = Field(ge=1)
    bars: int = Field(ge=1)
    start_beat: float = Field(ge=0)
    beats: float = Field(gt=0)
    energy: float = Field(ge=0, le=1)
    roles: tuple[str, ...] = ()


class TrackShape(_Frozen):
    """One track: its server-issued id, the role it plays and its sound."""

    ADVISORY: ClassVar[frozenset[str]] = frozenset({"name", "colour"})

    track_id: str
    role: str
    program: int | None = Field(default=None, ge=0, le=127)
    drum_kit: int | None = Field(default=None, ge=0, le=127)
    name: str = ""
    colour: str | None = None


_SEALING: dict[str, bool] = {"sealing": True}


class Contract(_Frozen):
    """What every contract has: a parent's fingerprint (empty for the song) and its own."""

    parent: str = ""
    fingerprint: str = ""

    @classmethod
    def seal(cls, **fields: Any) -> Self:
        """Build the contract with its fingerprint filled in."""
        draft = cls.model_validate({**fields, "fingerprint": ""}, context=_SEALING)
        return draft.model_copy(update={"fingerprint": fingerprint_of(draft)})

    @model_validator(mode="after")
    def _sealed(self, info: ValidationInfo) -> Self:
        sealing = isinstance(info.context, dict) and info.context.get("sealing") is True
        if not sealing and self.fingerprint != fingerprint_of(self):
            raise ValueError(f"{type(self).__name__} fingerprint does not match its fields; build it with seal()")
        return self

    def verify(self, parent: Contract | None = None) -> Self:
        """This contract, after checking that its fields still give its fingerprint and that it
        descends from `parent`; `ContractMismatch` otherwise."""
        actual = fingerprint_of(self)
        if actual != self.fingerprint:
            raise ContractMismatch(f"{self.describe()}: the contract was changed after it was sealed "
                                   f"(fingerprint {self.fingerprint[:12]}, its fields give {actual[:12]})",
                                   fingerprint=self.fingerprint)
        if parent is not None:
            parent.verify()
            if self.parent != parent.fingerprint:
                raise ContractMismatch(f"{self.describe()}: the contract descends from {self.parent[:12] or 'nothing'}, "
                                       f"not from {parent.describe()} ({parent.fingerprint[:12]})",
                                       fingerprint=self.fingerprint)
        return self

    def describe(self) -> str:
        return type(self).__name__


class SongContract(Contract):
    """The song's structure, sealed by the coordinator."""

    ADVISORY: ClassVar[frozenset[str]] = frozenset({"title", "prompt"})

    seed: int = Field(ge=0)
    session: str = Field(default="", max_length=200, description="the session the team runs in (hash-bound)")
    tempo: float = Field(gt=0)
    key: str
    mode: str
    time_signature: tuple[int, int]
    beats_per_bar: float = Field(gt=0)
    total_bars: int = Field(ge=1)
    sections: tuple[SectionShape, ...]
    tracks: tuple[TrackShape, ...]
    title: str = ""
    prompt: str = ""

    def track(self, role: str) -> TrackShape:
        return next(t for t in self.tracks if t.role == role)

    def describe(self) -> str:
        return f"the song ({self.key} {self.mode}, {self.tempo:g} BPM, {self.total_bars} bars)"


class InstrumentContract(Contract):
    """One instrument's part: its track, its seed and the sections it plays in."""

    ADVISORY: ClassVar[frozenset[str]] = frozenset({"name", "persona", "brief"})

    role: str
    session: str = Field(default="", max_length=200)
    track_id: str
    program: int | None = None
    drum_kit: int | None = None
    part_seed: int = Field(ge=0)
    key: str
    mode: str
    tempo: float = Field(gt=0)
    time_signature: tuple[int, int]
    sections: tuple[int, ...]
    name: str = ""
    persona: str = ""
    brief: str = ""

    @classmethod
    def derive(cls, song: SongContract, role: str, part_seed: int, *, persona: str = "",
               brief: str = "") -> InstrumentContract:
        track = song.track(role)
        plays = tuple(s.index for s in song.sections if role in s.roles)
        return cls.seal(parent=song.fingerprint, role=role, session=song.session, track_id=track.track_id,
                        program=track.program,
                        drum_kit=track.drum_kit, part_seed=part_seed, key=song.key, mode=song.mode,
                        tempo=song.tempo, time_signature=song.time_signature, sections=plays, name=track.name,
                        persona=persona, brief=brief)

    def describe(self) -> str:
        return f"{self.role} ({self.track_id})"


class SectionContract(Contract):
    """One section of one instrument: exactly what the section agent may write."""

    ADVISORY: ClassVar[frozenset[str]] = frozenset({"brief"})

    song: str  # the song contract's fingerprint: what drum signals are keyed by
    role: str
    session: str = Field(default="", max_length=200)
    track_id: str
    part_seed: int = Field(ge=0)
    key: str
    mode: str
    tempo: float = Field(gt=0)
    time_signature: tuple[int, int]
    section: SectionShape
    brief: str = ""

    @classmethod
    def derive(cls, instrument: InstrumentContract, section: SectionShape, *, brief: str = "") -> SectionContract:
        return cls.seal(parent=instrument.fingerprint, song=instrument.parent, role=instrument.role,
                        session=instrument.session, track_id=instrument.track_id, part_seed=instrument.part_seed, key=instrument.key,
                        mode=instrument.mode, tempo=instrument.tempo, time_signature=instrument.time_signature,
                        section=section, brief=brief)

    @property
    def bars(self) -> int:
        return self.section.bars

    @property
    def beats(self) -> float:
        return self.section.beats

    def describe(self) -> str:
        return f"{self.role} in {self.section.name}"

    def verify_against(self, instrument: InstrumentContract, song: SongContract) -> SectionContract:
        """Verify the whole lineage: song → instrument → this section, and that the section is
        one of the song's and one the instrument plays. A contract of another session is refused
        first, saying so (its fingerprints differ for that reason alone)."""
        for made in (self, instrument):
            if made.session != song.session:
                raise ContractMismatch(f"{made.describe()}: this contract belongs to session "
                                       f"'{made.session or '(none)'}', not to '{song.session or '(none)'}'; a "
                                       "contract cannot be replayed into another session",
                                       fingerprint=made.fingerprint)
        self.verify(instrument)
        instrument.verify(song)
        if self.song != song.fingerprint:
            raise ContractMismatch(f"{self.describe()}: made for another song ({self.song[:12]})",
                                   fingerprint=self.fingerprint)
        shapes = {s.index: s for s in song.sections}
        if shapes.get(self.section.index) != self.section or self.section.index not in instrument.sections:
            raise ContractMismatch(f"{self.describe()}: the section is not one {instrument.role} plays in this song",
                                   fingerprint=self.fingerprint)
        return self


STRUCTURAL_REPORTS: dict[str, str] = {
    "bars": "bars", "start_bar": "section.start_bar", "key": "key", "mode": "mode", "tempo": "tempo",
    "section": "section.name", "beats": "section.beats",
}
"""Structural values a model may echo in a reply → where the section contract holds them."""


def _lookup(contract: BaseModel, path: str) -> Any:
    value: Any = contract
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _same(reported: Any, expected: Any) -> bool:
    if isinstance(expected, float | int) and not isinstance(expected, bool):
        try:
            return abs(float(reported) - float(expected)) < 1e-6
        except (TypeError, ValueError):
            return False
    return str(reported).strip().casefold() == str(expected).strip().casefold()


def reconcile(contract: SectionContract, reported: Mapping[str, Any], *,
              fields: Mapping[str, str] = STRUCTURAL_REPORTS) -> tuple[dict[str, Any], list[str]]:
    """The reported values with every structural one set from the contract, and one warning
    per value the model got wrong ("bass in Verse 1: the model wrote bars=16; the contract
    says 8 (kept 8)"). Values the contract does not hold pass through unchanged."""
    corrected = dict(reported)
    warnings: list[str] = []
    for key, path in fields.items():
        if key not in reported or reported[key] is None:
            continue
        expected = _lookup(contract, path)
        if not _same(reported[key], expected):
            warnings.append(f"{contract.describe()}: the model wrote {key}={reported[key]!r}; "
                            f"the contract says {expected!r} (kept {expected!r})")
        corrected[key] = expected
    return corrected, warnings
