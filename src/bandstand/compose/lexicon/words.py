"""Words a musician acts on beyond genres and moods: genre names bandstand does
not know (mapped to the nearest genre it does, and said so), textures ("with
rain", "vinyl crackle"), ensemble sizes ("quartet" is four players), the
style knobs a mood turns ("angry" plays denser and brighter than "metal"
alone; "rainy" darker and more legato), and the sounds some words name
("robot" is square waves and an arpeggiator, "lullaby" a music box).

All tables; `scan` and `decompose` read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ENSEMBLES", "MOOD_LEAVES_OUT", "MOOD_SOUNDS", "MOOD_STYLE", "NEAREST", "NEAREST_SUFFIXES", "STRING_PLAYERS", "TEXTURES", "Ensemble",
           "ensemble_roles", "nearest_genre"]

# Genre words bandstand has no row for → the nearest genre it plays.
NEAREST: dict[str, str] = {
    "skiffle": "country", "cloud rap": "trap", "electroclash": "synthwave", "italo": "disco", "swing": "jazz",
    "kwaito": "amapiano", "madchester": "indie", "nu metal": "metal", "grindcore": "metal", "oi": "punk",
    "lieder": "classical", "opera": "classical", "gregorian": "choral", "bluebeat": "ska", "calypsonian": "calypso",
}
# Unknown compound words by their ending (…core, …wave, …step …) → the nearest genre.
NEAREST_SUFFIXES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b([a-z]+(?:-)?{suffix})\b", re.IGNORECASE), genre) for suffix, genre in (
        ("core", "metal"), ("wave", "synthwave"), ("step", "dubstep"), ("house", "house"), ("hop", "hip-hop"),
        ("punk", "punk"), ("gaze", "indie"), ("tronica", "edm"),
    ))


@dataclass(frozen=True, slots=True)
class Texture:
    """A sound a prompt names that is not an instrument: played on the GM drum kit's
    noise-like voices (GM has no rain or vinyl sample)."""

    name: str
    words: tuple[str, ...]


TEXTURES: tuple[Texture, ...] = (
    Texture("rain", ("rain", "rainfall", "raindrops", "rain sounds", "storm", "thunderstorm", "drizzle")),
    Texture("vinyl", ("vinyl crackle", "crackle", "vinyl noise", "record crackle", "tape hiss", "hiss", "dusty vinyl")),
)


@dataclass(frozen=True, slots=True)
class Ensemble:
    """How many players an ensemble word means."""

    word: str
    players: int


ENSEMBLES: tuple[Ensemble, ...] = (
    Ensemble("duo", 2), Ensemble("trio", 3), Ensemble("quartet", 4), Ensemble("quintet", 5), Ensemble("sextet", 6),
)
# Which roles the players take, by the genre's family: a jazz quartet is drums, bass,
# piano and a horn; a string quartet is two violins, a viola and a cello.
ENSEMBLE_ORDER: dict[str, tuple[str, ...]] = {
    "classical": ("lead", "bass", "counter_melody", "pad", "chords", "drums"),
    "default": ("drums", "bass", "chords", "lead", "pad", "counter_melody"),
}
STRING_PLAYERS: dict[str, int] = {"lead": 40, "counter_melody": 40, "pad": 41, "bass": 42, "chords": 45}


def ensemble_roles(family: str, players: int) -> list[str]:
    """The roles `players` musicians take in a genre of `family`."""
    order = ENSEMBLE_ORDER.get(family, ENSEMBLE_ORDER["default"])
    return list(order[: max(1, min(players, len(order)))])


# What a mood does to every part's style knobs (deltas, -1..1).
MOOD_STYLE: dict[str, dict[str, float]] = {
    "aggressive": {"density": 0.25, "syncopation": 0.2, "articulation": -0.25, "brightness": 0.25},
    "angry": {"density": 0.1, "syncopation": 0.1, "articulation": -0.3, "brightness": 0.3},
    "energetic": {"density": 0.2, "brightness": 0.1},
    "dark": {"brightness": -0.2},
    "sad": {"density": -0.15, "brightness": -0.15, "articulation": 0.15},
    "rainy": {"density": -0.2, "brightness": -0.25, "articulation": 0.2, "register": -0.1},
    "chill": {"density": -0.15, "articulation": 0.15, "brightness": -0.1},
    "dreamy": {"density": -0.1, "articulation": 0.25, "register": 0.1},
    "happy": {"brightness": 0.15, "syncopation": 0.1},
    "groovy": {"syncopation": 0.2},
    "minimal": {"density": -0.25, "complexity": -0.2},
    "complex": {"complexity": 0.2},
    "meditative": {"density": -0.3, "articulation": 0.2},
    "funereal": {"density": -0.3, "articulation": 0.25, "brightness": -0.2},
    "mechanical": {"swing": -1.0, "articulation": -0.3, "syncopation": -0.15, "complexity": -0.15},
    "experimental": {"syncopation": 0.2, "complexity": 0.2},
}
# Sounds a mood word names: role → GM program, and extra roles it brings.
MOOD_SOUNDS: dict[str, tuple[tuple[tuple[str, int], ...], tuple[str, ...]]] = {
    "mechanical": ((("lead", 80), ("pad", 81), ("arp", 81)), ("arp",)),
    "lullaby": ((("lead", 10), ("chords", 46)), ()),
    "funereal": ((("chords", 19), ("pad", 52)), ()),
}


# Roles a mood has no place for (unless the prompt names them): nobody drums a lullaby to sleep.
MOOD_LEAVES_OUT: dict[str, tuple[str, ...]] = {
    "lullaby": ("drums",),
    "funereal": ("drums",),
}


def nearest_genre(text: str, known: set[str]) -> tuple[str, str] | None:
    """(the unknown genre word in `text`, the nearest known genre), or None."""
    low = text.lower()
    for word, genre in sorted(NEAREST.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"\b{re.escape(word)}\b", low):
            return word, genre
    for pattern, genre in NEAREST_SUFFIXES:
        for m in pattern.finditer(low):
            if m.group(1) not in known:
                return m.group(1), genre
    return None
