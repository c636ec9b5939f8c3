"""The `HarmonyPlan`: stage 2's harmony for the whole form, fitted to the intent.

`chords` is the song's chord vocabulary: every chord with the voicing it is
played in (the main loop's first), listed once; `loop` is the main loop
(the verse) as indices into it. Each chord carries its
symbol, its Roman numeral in the key, the voiced pitches (voice-led within
its progression), its length in bars in its loop, a tension value (0 = home,
1 = maximal pull), and its pitch classes so later stages do not parse
symbols again. `sections` gives each section function (verse, chorus,
pre-chorus, bridge …) its progression bar by bar; `ending` the song's last
bars. Saved in the pipeline state, so pydantic.
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


class SectionHarmony(BaseModel):
    """One section function's progression: an index into `HarmonyPlan.chords` per bar of one pass."""

    model_config = ConfigDict(extra="forbid")

    function: str = Field(description="verse | chorus | prechorus | bridge | head | solo | intro …")
    chords: list[int] = Field(min_length=1)


class HarmonyPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str = Field(description='tonic name, e.g. "Eb"')
    mode: str = Field(description='mode name, e.g. "minor", "dorian"')
    family: str = Field(description="harmony family whose vocabulary was used")
    harmonic_dial: float = Field(ge=0, le=1)
    scale_pitch_classes: list[int]
    chords: list[ProgressionChord]
    summary: str
    loop: list[int] = Field(default_factory=list, description="the main loop (the verse), chord by chord; empty: all of `chords`")
    sections: list[SectionHarmony] = Field(default_factory=list)
    ending: list[int] = Field(default_factory=list, description="chord indices of the song's last bars")
    ending_name: str = ""
    grammar: str = Field(default="", description="the form grammar followed, e.g. '12-bar blues', 'AABA'")

    def section(self, function: str) -> list[int] | None:
        """The per-bar chord indices of `function`, or None when the plan has none for it."""
        return next((s.chords for s in self.sections if s.function == function), None)

    @property
    def main_loop(self) -> list[ProgressionChord]:
        """The main loop's chords in order (a chord that comes back is listed again)."""
        return [self.chords[i] for i in self.loop] if self.loop else list(self.chords)

    @property
    def key_name(self) -> str:
        return f"{self.key} {self.mode}"

    @property
    def total_bars(self) -> int:
        """Bars of one pass of the main loop."""
        return sum(c.bars for c in self.main_loop)
