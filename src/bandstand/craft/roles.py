"""One generator per role, in one table, and `play` — the entry point compose and
the jam both call: a role, the situation, a random source and the resolved
style of every bar give a `Phrase`."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bandstand.craft.bass import play_bass
from bandstand.craft.comping import play_chords
from bandstand.craft.drums import play_drums
from bandstand.craft.knobs import base_style
from bandstand.craft.melody import play_lead
from bandstand.craft.pad import play_pad, play_percussion
from bandstand.craft.phrase import Phrase
from bandstand.craft.situation import Situation
from bandstand.craft.style import Style
from bandstand.craft.texture import play_fx, play_texture
from bandstand.errors import InvalidInput

__all__ = ["PLAYERS", "ROLES", "play"]

Player = Callable[[Situation, Sequence[Style], random.Random, str], Phrase]


def _arp(s: Situation, styles: Sequence[Style], rng: random.Random, role: str) -> Phrase:
    return play_chords(s, styles, rng, role, comp_style="arpeggiated")


PLAYERS: dict[str, Player] = {
    "drums": play_drums,
    "bass": play_bass,
    "chords": play_chords,
    "lead": play_lead,
    "pad": play_pad,
    "arp": _arp,
    "percussion": play_percussion,
    "counter_melody": play_lead,
    "sub_bass": play_bass,
    "texture": play_texture,
    "fx": play_fx,
}
ROLES: tuple[str, ...] = tuple(PLAYERS)


def play(role: str, s: Situation, rng: random.Random, styles: Sequence[Style] | None = None) -> Phrase:
    """The phrase `role` plays in `s` (each bar with its style; the role's base style
    when none is given). The same situation, styles and random state give the same phrase."""
    player = PLAYERS.get(role)
    if player is None:
        raise InvalidInput(f"unknown part role '{role}'; use one of: {', '.join(ROLES)}", role=role)
    if styles is None:
        styles = (base_style(s, role),) * len(s.bars)
    elif len(styles) != len(s.bars):
        raise InvalidInput(f"{len(styles)} styles for {len(s.bars)} bars; give one style per bar")
    return player(s, styles, rng, role)
