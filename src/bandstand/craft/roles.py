"""One generator per role, in one table, and `play` — the entry point compose and
the jam both call: a role, the situation, a random source and the resolved
style of every bar give a `Phrase`."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bandstand.craft.bass import play_bass
from bandstand.craft.budget import within_budget
from bandstand.craft.comping import play_chords
from bandstand.craft.drums import play_drums
from bandstand.craft.knobs import base_style
from bandstand.craft.melody import play_lead
from bandstand.craft.pad import play_pad, play_percussion
from bandstand.craft.phrase import Phrase
from bandstand.craft.plays_instruments import (
    HAND_LINES,
    INSTRUMENT_COMPS,
    music_box,
    play_hand_line,
    play_instrument_chords,
)
from bandstand.craft.situation import Situation
from bandstand.craft.style import Style
from bandstand.craft.texture import play_fx, play_texture
from bandstand.errors import InvalidInput

__all__ = ["DEFAULT_PROGRAMS", "PLAYERS", "ROLES", "play"]

Player = Callable[[Situation, Sequence[Style], random.Random, str], Phrase]


def _arp(s: Situation, styles: Sequence[Style], rng: random.Random, role: str) -> Phrase:
    return play_chords(s, styles, rng, role, comp_style="arpeggiated")


def _chords(s: Situation, styles: Sequence[Style], rng: random.Random, role: str) -> Phrase:
    """The chords as the genre comps them, or as a named instrument plays them (a ukulele's strum)."""
    if s.idiom.comp_style in INSTRUMENT_COMPS:
        return play_instrument_chords(s, styles, rng, role)
    return play_chords(s, styles, rng, role)


def _lead(s: Situation, styles: Sequence[Style], rng: random.Random, role: str) -> Phrase:
    """The lead, on a music box when the prompt names one (the comb's register and touch)."""
    phrase = play_lead(s, styles, rng, role)
    return music_box(phrase) if role == "lead" and "music_box" in s.idiom.touches else phrase


def _percussion(s: Situation, styles: Sequence[Style], rng: random.Random, role: str) -> Phrase:
    """Hand percussion for the drum family, or the line a named güiro or shaker plays."""
    if any(touch in HAND_LINES for touch in s.idiom.touches):
        return play_hand_line(s, styles, rng, role)
    return play_percussion(s, styles, rng, role)


PLAYERS: dict[str, Player] = {
    "drums": play_drums,
    "bass": play_bass,
    "chords": _chords,
    "lead": _lead,
    "pad": play_pad,
    "arp": _arp,
    "percussion": _percussion,
    "counter_melody": play_lead,
    "sub_bass": play_bass,
    "texture": play_texture,
    "fx": play_fx,
}
ROLES: tuple[str, ...] = tuple(PLAYERS)
DEFAULT_PROGRAMS: dict[str, int] = {
    "drums": 0, "bass": 33, "chords": 0, "lead": 80, "pad": 89,
    "arp": 81, "percussion": 0, "counter_melody": 71, "sub_bass": 38, "texture": 0, "fx": 98,
}
"""The General MIDI program (0-based) of each role when nothing names an instrument for it:
fingered bass, piano, square lead, warm pad, saw arp, synth bass 2, FX 3 (crystal); the
counter-melody a clarinet, whose range (down to E3) holds its register (MIDI 52–72)."""


ROLE_FAMILIES: dict[str, tuple[str, ...]] = {
    "bass": ("bass", "sub_bass"), "sub_bass": ("sub_bass", "bass"),
    "lead": ("lead", "counter_melody"), "counter_melody": ("counter_melody", "lead"),
    "chords": ("chords", "pad"), "pad": ("pad", "chords"),
    "percussion": ("percussion", "drums"),
}
"""The roles that stand in for a role a song does not have, nearest first: "the bass" of a
trap song is its 808 (sub_bass) and "the 808" of a funk song its bass; "the melody" is the
counter-melody when there is no lead. A request is read as the first of these the song has."""


def play(role: str, s: Situation, rng: random.Random, styles: Sequence[Style] | None = None) -> Phrase:
    """The phrase `role` plays in `s` (each bar with its style; the role's base style
    when none is given), kept to its share of the band's density budget (`budget`). The same
    situation, styles and random state give the same phrase."""
    player = PLAYERS.get(role)
    if player is None:
        raise InvalidInput(f"unknown part role '{role}'; use one of: {', '.join(ROLES)}", role=role)
    if styles is None:
        styles = (base_style(s, role),) * len(s.bars)
    elif len(styles) != len(s.bars):
        raise InvalidInput(f"{len(styles)} styles for {len(s.bars)} bars; give one style per bar")
    return within_budget(player(s, styles, rng, role), s, styles)
