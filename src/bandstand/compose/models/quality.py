"""Stage 7's verdict: a `QualityScore` (four axes in 0–1 with the measured
numbers behind them and the calibrated `FigureScore`s) and the `GateResult` that decides whether the song
passes or which stage must be regenerated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

AXES = ("harmony", "rhythm", "arrangement", "vibe")


class FigureScore(BaseModel):
    """One calibrated quality figure: the value measured, the reference range beside it (the
    10th–90th percentile of the reference music and of our own songs, and their median) and the
    value mapped onto 0..1 against that range."""

    model_config = ConfigDict(extra="forbid")

    value: float
    low: float
    median: float
    high: float
    score: float = Field(ge=0, le=1)
    axis: str
    sources: list[str] = Field(description="what the range was calibrated on: bach (music21's chorales), ours")


class QualityScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    axes: dict[str, float] = Field(description="harmony, rhythm, arrangement, vibe — each 0..1")
    metrics: dict[str, float | None] = Field(
        description="the measured numbers (rates, correlations, similarities); None when not measurable")
    metric_scores: dict[str, float] = Field(description="each measured number mapped onto 0..1")
    notes: list[str] = Field(default_factory=list, description="why a number could not be measured, etc.")
    figures: dict[str, FigureScore] = Field(
        default_factory=dict, description="the calibrated figures, each with its reference range (compose.quality)")

    @property
    def mean(self) -> float:
        return sum(self.axes.values()) / len(self.axes) if self.axes else 0.0

    def axis(self, name: str) -> float:
        return self.axes[name]


class GateResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: bool
    failing_axes: list[str]
    responsible_stage: int = Field(ge=0, le=8, description="0 when passed; else the stage to regenerate")
    reason: str
    responsible_parts: list[str] = Field(default_factory=list, description="the roles the weakest number is "
                                         "about (a retry redraws those parts alone); empty: the stage's nodes")
    weakest: str = Field(default="", description="the weakest number in words, with its reference: "
                         "'groove consistency 0.31 < 0.78'")

