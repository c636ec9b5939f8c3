"""The one musical core under compose and jam: the situation a musician plays
in, the style knobs words turn, phrases, one generator per role, and writers
to score tracks and to pattern code. Pure: no I/O, no compose, no jam."""

from bandstand.craft.style import KNOBS, TIME_FEELS, Style, StyleOverride, resolve

__all__ = ["KNOBS", "TIME_FEELS", "Style", "StyleOverride", "resolve"]
