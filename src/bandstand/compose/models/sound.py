"""The `SoundPlan`: stage 5's per-part sound design — the GM program every file
plays with, a recommended preset (with confidence, reasoning and two ranked
alternatives) and an effect chain, plus the shared buses."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Preset(_Model):
    name: str
    confidence: float = Field(ge=0, le=1)
    reasoning: str


class Effect(_Model):
    type: str  # compressor | eq | reverb_send | delay | saturation | sidechain | filter | chorus
    params: dict[str, Any]
    reason: str


class PartSound(_Model):
    role: str
    program: int = Field(ge=0, le=127)
    program_name: str
    preset: Preset
    alternatives: list[Preset]
    effects: list[Effect]


class Bus(_Model):
    name: str
    effect: Effect


class SoundPlan(_Model):
    parts: list[PartSound]
    buses: list[Bus]
    summary: str

    def for_role(self, role: str) -> PartSound | None:
        return next((p for p in self.parts if p.role == role), None)
