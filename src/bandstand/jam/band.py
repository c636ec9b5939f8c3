"""Band members at run time and the composition of their patterns.

A `Member` holds one persona's live state: its session, status, current and
last valid pattern, words, mute/solo and the style the boss asked of it.
`compose` stacks the sounding members' patterns in code: none → silence,
one → that pattern, several → `stack(a, b, …)`; solo beats mute; a member's
volume other than 1 scales its layer's gain (0 leaves it out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bandstand.jam.persona import Persona
from bandstand.jam.sound import SILENCE
from bandstand.jam.turn import Style
from bandstand.protocol.jam import Layer, MemberView

MAX_VOLUME = 1.5
"""A member's fader goes from 0 (silent) to 1.5; 1 plays the pattern as written."""


@dataclass(slots=True)
class Member:
    """One band member's live state (mutable; owned by the engine)."""

    persona: Persona
    session: Any = None
    status: str = "idle"
    pattern: str = SILENCE
    fallback_pattern: str = SILENCE
    using_fallback: bool = False
    thoughts: str = ""
    reaction: str = ""
    complied: bool = True
    last_updated: float = 0.0
    muted: bool = False
    soloed: bool = False
    active: bool = True
    style: Style = field(default_factory=Style)
    seen_key: str = ""
    llm: bool = False  # LLM members get the turn as text, algorithmic ones as a TurnInput
    volume: float = 1.0  # the boss's fader for this member (0..MAX_VOLUME)
    boss_code: str | None = None  # a pattern the boss wrote for this member, not yet told in a turn
    override: str | None = None  # the boss's pattern for this member, until the boss asks it for something else
    rejected: tuple[str, str] | None = None  # (pattern, why) of its last rejected reply, told next turn
    said: list[list[str]] = field(default_factory=list)  # its thought and reaction of each recent round, oldest first
    solo_ended: bool = False  # its solo had its rounds: told in its next turn

    @property
    def name(self) -> str:
        return self.persona.name

    def view(self) -> MemberView:
        return MemberView(
            name=self.name,
            emoji=self.persona.emoji,
            role=self.persona.role,
            colour=self.persona.colour,
            status=self.status,  # type: ignore[arg-type]
            pattern=self.pattern,
            fallback_pattern=self.fallback_pattern,
            using_fallback=self.using_fallback,
            thoughts=self.thoughts,
            reaction=self.reaction,
            muted=self.muted,
            soloed=self.soloed,
            active=self.active,
            last_updated=self.last_updated,
            volume=self.volume,
        )

    def layer_code(self) -> str:
        """The member's pattern as it sounds: at its fader's gain (`.mul(gain(v))` scales every
        event's gain, so the page and the recording hear the same level)."""
        code = self.pattern.strip()
        return code if self.volume == 1.0 else f"{code}.mul(gain({self.volume:g}))"


@dataclass(frozen=True, slots=True)
class Composition:
    """The combined pattern and its labelled layers."""

    code: str
    layers: tuple[tuple[str, str], ...]

    def layer_views(self) -> list[Layer]:
        return [Layer(member=m, code=c) for m, c in self.layers]


def compose(members: list[Member]) -> Composition:
    """Stack the patterns of the members that sound right now."""
    sounding = [m for m in members if m.active and m.pattern.strip() != SILENCE and m.volume > 0]
    if any(m.soloed for m in sounding):
        sounding = [m for m in sounding if m.soloed]
    else:
        sounding = [m for m in sounding if not m.muted]
    layers = tuple((m.name, m.layer_code()) for m in sounding)
    if not layers:
        return Composition(SILENCE, ())
    if len(layers) == 1:
        return Composition(layers[0][1], layers)
    return Composition("stack(" + ", ".join(code for _, code in layers) + ")", layers)
