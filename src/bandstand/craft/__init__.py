"""The one musical core under compose and jam: the situation a musician plays
in, the style knobs words turn, phrases, one generator per role, and writers
to score tracks and to pattern code. Pure: no I/O, no compose, no jam."""

from bandstand.craft.knobs import base_style
from bandstand.craft.phrase import Feel, NoteEvent, Phrase
from bandstand.craft.roles import PLAYERS, ROLES, play
from bandstand.craft.situation import Bar, Chord, Idiom, Situation, active_in, pitch_near
from bandstand.craft.style import KNOBS, TIME_FEELS, Style, StyleOverride, resolve
from bandstand.craft.to_track import to_track

__all__ = [
    "KNOBS", "PLAYERS", "ROLES", "TIME_FEELS", "Bar", "Chord", "Feel", "Idiom", "NoteEvent", "Phrase",
    "Situation", "Style", "StyleOverride", "active_in", "base_style", "pitch_near", "play", "resolve", "to_track",
]
