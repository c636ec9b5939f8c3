"""Guessing a part's role (drums, bass, chords, lead, pad, fx) for tracks of
MIDI files we did not write: first from words in the track name, then from
the drum channel, then from the GM program family, then from the channel."""

from __future__ import annotations

import re

from bandstand.midi.gm import GM_PROGRAMS
from bandstand.score import CHANNEL_BY_ROLE, DRUM_CHANNEL

# Words in a track name, checked in order (the first hit wins).
_NAME_WORDS: tuple[tuple[str, str], ...] = (
    ("drum", "drums"), ("kit", "drums"), ("perc", "drums"), ("kick", "drums"), ("beat", "drums"),
    ("bass", "bass"), ("pad", "pad"), ("string", "pad"), ("choir", "pad"),
    ("lead", "lead"), ("melody", "lead"), ("vocal", "lead"), ("voice", "lead"), ("solo", "lead"),
    ("chord", "chords"), ("key", "chords"), ("piano", "chords"), ("guitar", "chords"),
    ("comp", "chords"), ("organ", "chords"), ("fx", "fx"), ("effect", "fx"),
)  # fmt: skip

# GM program families (eight programs each) → role.
_FAMILY_ROLES: tuple[str, ...] = (
    "chords", "lead", "chords", "chords",  # piano, chromatic percussion, organ, guitar
    "bass", "pad", "pad", "lead",  # bass, strings, ensemble, brass
    "lead", "lead", "lead", "pad",  # reed, pipe, synth lead, synth pad
    "fx", "lead", "fx", "fx",  # synth effects, ethnic, percussive, sound effects
)
_ROLE_BY_CHANNEL = {channel: role for role, channel in CHANNEL_BY_ROLE.items()}


def guess_role(name: str, channel: int, program: int) -> str:
    """The most likely role of a track from its name, channel and GM program."""
    lowered = name.lower()
    for word, role in _NAME_WORDS:
        if re.search(rf"\b{word}", lowered):
            return role
    if channel == DRUM_CHANNEL:
        return "drums"
    if program == 0 and channel in _ROLE_BY_CHANNEL:
        return _ROLE_BY_CHANNEL[channel]
    return _FAMILY_ROLES[program // 8]


def track_display_name(channel: int, program: int) -> str:
    """A name for an unnamed track: "Drums" on the drum channel, else the GM program name."""
    return "Drums" if channel == DRUM_CHANNEL else GM_PROGRAMS[program]
