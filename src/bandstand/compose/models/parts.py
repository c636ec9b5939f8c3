"""What stage 4 (parts) produces per role: the track itself and the
statistics of how it was generated (a `TrackGenerationResult` without the
file, which stage 8 writes)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from bandstand.score import Track


class PartStats(BaseModel):
    """Note statistics and the feel applied to one generated part."""

    model_config = ConfigDict(extra="forbid")

    track_id: str
    role: str
    program: int = Field(ge=0, le=127)
    is_drum: bool
    style: str = Field(description="the pattern family or style the generator used")
    note_count: int = Field(ge=0)
    notes_per_bar: float = Field(ge=0)
    pitch_range: tuple[int, int]
    velocity_mean: float
    velocity_sd: float
    control_count: int = Field(ge=0)
    pitch_bend_count: int = Field(ge=0)
    humanization: dict[str, float] = Field(description="timing_ms, velocity_sd, amount")
    groove: str = Field(description="groove template name")
    swing: float = Field(ge=0, le=0.5)
    take: int = Field(default=0, ge=0, description="the take kept when several were made (`--takes`), 0-based")
    takes: list[float] = Field(default_factory=list,
                               description="every take's quality score, by take (empty: one take was made)")


@dataclass(slots=True)
class PartResult:
    """One generated part: its track and its statistics."""

    track: Track
    stats: PartStats
