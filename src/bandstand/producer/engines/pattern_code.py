"""What `bandstand pattern` does with pattern code — evaluate it, check it, render it to a
song, read a hap's sound and pitch — as the producer names it: the pattern engine's own
functions, re-exported (the engine lives once, in `bandstand.patterns`). Clients reach them
through `App.patterns()` (`producer.engines.pattern_tools`) alone, see docs/architecture.md."""

from __future__ import annotations

from bandstand.patterns.expr import evaluate, run_program
from bandstand.patterns.to_score import (
           as_fraction,
           lookup_sound,
           pattern_to_song,
           value_pitch,
           value_sound,
)
from bandstand.patterns.validate import validate_pattern

__all__ = ["as_fraction", "evaluate", "lookup_sound", "pattern_to_song", "run_program", "validate_pattern",
           "value_pitch", "value_sound"]
