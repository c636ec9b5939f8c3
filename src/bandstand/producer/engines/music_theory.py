"""What `bandstand theory` shows — chords, scales, keys, Roman numerals, the key heard in
notes — as the producer names it: the theory layer's own functions, re-exported (each fact
lives once, in `bandstand.theory`). Clients reach them through `App.theory()`
(`producer.engines.theory_tools`) alone, see docs/architecture.md."""

from __future__ import annotations

from bandstand.theory import (
    Chord,
    detect_key,
    format_chord,
    get_scale,
    parse_chord,
    parse_key,
    roman_to_chord,
)

__all__ = ["Chord", "detect_key", "format_chord", "get_scale", "parse_chord", "parse_key", "roman_to_chord"]
