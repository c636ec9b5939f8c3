"""The `ArrangementPlan`: stage 3's sections, energy arc and active roles.

Bars are 1-based. Every section names the roles that play in it, one chord
index per bar (into the harmony plan's chord list) and the transition into
the next section. `bar_energy` has one value per bar of the song.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SectionKind = Literal[
    "intro", "verse", "prechorus", "chorus", "drop", "build", "break",
    "bridge", "hook", "loop", "head", "solo", "outro",
]
Transition = Literal["cut", "fade", "build", "filter_sweep"]


class SectionPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    kind: SectionKind
    start_bar: int = Field(ge=1)
    bars: int = Field(ge=1)
    energy: float = Field(ge=0, le=1)
    roles: list[str]
    chord_indices: list[int]
    transition: Transition = "cut"
    entries: dict[str, int] = Field(default_factory=dict, description="the bar of the section (0-based) a role "
                                    "comes in on, where it does not play from the first (the guitar in the second "
                                    "half of a verse)")

    @property
    def end_bar(self) -> int:
        """The last bar of the section (inclusive)."""
        return self.start_bar + self.bars - 1


class ArrangementPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    form_name: str
    generic_fallback: bool = False
    total_bars: int = Field(ge=1)
    sections: list[SectionPlan]
    bar_energy: list[float]
    groove: int = Field(default=0, ge=0, description="the groove the drummer and the bassist agree on (a seed both read)")
    form_variant: str = Field(default="as written", description="the seed's take on the genre's form "
                              "(`compose.form_variants`): as written, the last peak twice as long, a short intro…")

    def section_at(self, bar: int) -> SectionPlan:
        """The section that contains 1-based `bar`."""
        for section in self.sections:
            if section.start_bar <= bar <= section.end_bar:
                return section
        raise IndexError(f"bar {bar} is outside the arrangement (1..{self.total_bars})")

    def chord_index_at(self, bar: int) -> int:
        section = self.section_at(bar)
        return section.chord_indices[bar - section.start_bar]

    def is_active(self, role: str, bar: int) -> bool:
        return role in self.section_at(bar).roles

    def all_roles(self) -> list[str]:
        roles: list[str] = []
        for section in self.sections:
            roles.extend(r for r in section.roles if r not in roles)
        return roles
