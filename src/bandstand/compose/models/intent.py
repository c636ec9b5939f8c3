"""The `Intent`: what stage 1 (intent) reads out of a prompt.

It holds the requested genres, tempo, key, mood, influences, instrument
requests, constraints and the enriched analyses (tempo, key, genre DNA,
creativity dials) that every later stage builds on. Saved in the pipeline
state, so it is pydantic and round-trips through JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bandstand.compose.seeds import stable_seed

TempoSource = Literal["explicit", "genre_default", "influence_intersection", "mood_inferred"]
KeySource = Literal["explicit", "genre_convention", "mood_mapping", "random"]
Severity = Literal["blocking", "optional"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InstrumentRequest(_Model):
    """An instrument named in the prompt, mapped to the role that will play it."""

    text: str
    role: str
    program: int | None = Field(default=None, ge=0, le=127, description="GM program (0-based)")


class Constraint(_Model):
    """A restriction from the prompt: kind is a stable code such as only_kick, no_reverb, no_chorus."""

    kind: str
    text: str


class Duration(_Model):
    min_bars: int = Field(ge=1)
    max_bars: int = Field(ge=1)


class InfluenceAnalysis(_Model):
    """One artist named in the prompt and what bandstand knows about them."""

    name: str
    genres: list[str]
    traits: list[str]
    weight: float
    tempo_range: tuple[float, float]


class TempoAnalysis(_Model):
    bpm: float
    source: TempoSource
    half_time: bool = False
    perceived_bpm: float
    confidence: float = Field(ge=0, le=1)
    reasoning: str


class KeyAnalysis(_Model):
    root: str
    mode: str
    source: KeySource
    confidence: float = Field(ge=0, le=1)
    reasoning: str


class CreativityDials(_Model):
    harmonic: float = Field(ge=0, le=1)
    rhythmic: float = Field(ge=0, le=1)


class GenreDNA(_Model):
    """The blend of the requested genres: weights per genre and the blended trait vector."""

    weights: dict[str, float]
    swing: float
    tempo_center: float
    harmonic: float
    rhythmic: float
    energy: float
    electronic: float


class Ambiguity(_Model):
    field: str
    reason: str
    options: list[str]
    default: str
    severity: Severity


class Intent(_Model):
    """Everything the pipeline needs to know about the song that was asked for."""

    raw_prompt: str
    genre: list[str]
    sub_genre: list[str] = []
    tempo: float = Field(gt=0)
    key: str
    mode: str
    mood: list[str] = []
    influences: list[str] = []
    influence_analysis: list[InfluenceAnalysis] = []
    instrument_requests: list[InstrumentRequest] = []
    structure_hints: list[str] = []
    duration: Duration
    constraints: list[Constraint] = []
    time_signature: tuple[int, int] = (4, 4)
    section_metres: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="a song that changes metre between its sections ('odd time "
        "signatures'): the metre of each section kind; `time_signature` is its home metre. Empty: one metre")
    tempo_analysis: TempoAnalysis
    key_analysis: KeyAnalysis
    creativity_dials: CreativityDials
    genre_dna: GenreDNA
    energy: float | None = None
    requested_outputs: list[str] = []
    ambiguities: list[Ambiguity] = []
    inferred_fields: list[str] = []
    ready_to_execute: bool = True
    summary: str = ""
    style: dict[str, float] = Field(default_factory=dict, description="style knob deltas the mood words turn, every part")
    textures: list[str] = Field(default_factory=list, description="textures the prompt names: rain, vinyl")
    players: int | None = Field(default=None, ge=1, le=8, description="an ensemble's size (a quartet is 4)")
    substitutions: list[str] = Field(default_factory=list,
                                     description="words read as something close, e.g. 'polka → country (nearest genre)'")

    @property
    def half_time(self) -> bool:
        return self.tempo_analysis.half_time

    @property
    def beats_per_bar(self) -> int:
        return self.time_signature[0]

    def has_constraint(self, kind: str) -> bool:
        return any(c.kind == kind for c in self.constraints)

    def take(self, seed: int) -> int:
        """The seed a part is played with: `seed` itself for a prompt that names no mood, else the
        moods' own take on it (the motif, the line, the fills), so "music for a rainy Tuesday" and
        "lo-fi hip hop to study to" — both lo-fi in F minor, one form — are two songs with one seed,
        not one song twice. The direction a mood names (darker, sparser, slower) is its dials'."""
        if not self.mood:
            return seed
        return stable_seed(seed, "moods", "+".join(sorted(self.mood)))

    def requested_roles(self) -> list[str]:
        """Roles named by instrument requests, in prompt order, without duplicates."""
        seen: list[str] = []
        for req in self.instrument_requests:
            if req.role not in seen:
                seen.append(req.role)
        return seen
