"""The `SoundPlan`: stage 5's per-part sound design — the GM program every file
plays with and the preset it stands for (with confidence, reasoning and two
ranked alternatives), the part's level (dB) and pan, its insert chain and its
sends; the shared buses; the master's loudness target. Every effect is an
effect of `bandstand.score.mix.EFFECTS` with valid parameters, so the plan is
what the render applies (`compose.sound.apply_sound` writes it into the song)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Preset(_Model):
    name: str
    program: int = Field(ge=0, le=127)  # the General MIDI program that plays it
    confidence: float = Field(ge=0, le=1)
    reasoning: str


class Effect(_Model):
    type: str
    params: dict[str, float | str]
    reason: str

    @field_validator("type")
    @classmethod
    def _known(cls, value: str) -> str:
        from bandstand.score import EFFECTS

        if value not in EFFECTS:
            raise ValueError(f"unknown effect type {value!r}")
        return value


class SendPlan(_Model):
    bus: str
    level: float = Field(ge=0, le=1)
    reason: str


class PartSound(_Model):
    role: str
    program: int = Field(ge=0, le=127)
    program_name: str
    preset: Preset
    alternatives: list[Preset]
    level_db: float = Field(le=3.5)
    pan: float = Field(ge=0, le=1)
    effects: list[Effect]
    sends: list[SendPlan] = []


class Bus(_Model):
    name: str
    effects: list[Effect]
    reason: str


class SoundPlan(_Model):
    parts: list[PartSound]
    buses: list[Bus]
    target_lufs: float = -14.0
    loudness_reason: str = ""
    summary: str

    def for_role(self, role: str) -> PartSound | None:
        return next((p for p in self.parts if p.role == role), None)
