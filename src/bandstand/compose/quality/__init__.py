"""The quality model of compose's stage 7: figures measured on a song against
its frame (`context`, `figures`, `melody`), each rated against a reference
range calibrated on reference music and our own songs (`ranges`, `model`),
deliberately broken songs to show the spread (`broken`) and the ranking of
takes (`takes`)."""

from __future__ import annotations

from bandstand.compose.quality.context import SongContext, from_plans, from_song
from bandstand.compose.quality.figures import measure, part_figures
from bandstand.compose.quality.model import DIRECTION, FIGURE_AXIS, rate, rate_one, take_score
from bandstand.compose.quality.ranges import RANGES

__all__ = ["DIRECTION", "FIGURE_AXIS", "RANGES", "SongContext", "from_plans", "from_song", "measure",
           "part_figures", "rate", "rate_one", "take_score"]
