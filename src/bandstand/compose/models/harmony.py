"""The `HarmonyPlan`: stage 2's chord progression, fitted to the intent.

Each chord carries its symbol, its Roman numeral in the key, the voiced
pitches (voice-led from the previous chord), its length in bars, a tension
value (0 = home, 1 = maximal pull), and its pitch classes so later stages do
not parse symbols again. Saved in the pipeline state, so pydantic.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ProgressionChord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    symbol: str
    roman: str
    pitches: list[int] = Field(description="voiced MIDI notes, low to high, voice-led")
    bars: int = Field(default=1, ge=1)
    tension: float = Field(ge=0, le=1)
    root: int = Field(ge=0, le=11, description="root pitch class")
    bass: int = Field(ge=0, le=11, description="bass pitch class (differs from root for slash chords)")
    pitch_classes: list[int] = Field(description="sorted unique pitch classes of the chord")
    colour: str = Field(default="diatonic", description="diatonic | borrowed | modal | polytonal | chromatic")


class HarmonyPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str = Field(description='tonic name, e.g. "Eb"')
    mode: str = Field(description='mode name, e.g. "minor", "dorian"')
    family: str = Field(description="harmony family whose vocabulary was used")
    harmonic_dial: float = Field(ge=0, le=1)
    scale_pitch_classes: list[int]
    chords: list[ProgressionChord]
    summary: str

    @property
    def key_name(self) -> str:
        return f"{self.key} {self.mode}"

    @property
    def total_bars(self) -> int:
        return sum(c.bars for c in self.chords)
