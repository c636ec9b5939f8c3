"""Rendering: a song (or a .mid file) to WAV audio — each track synthesized by
SoundFont, run through its mix (effects, fader, pan, sends, buses) and mastered
— with stems (a `TrackCache` keeps finished tracks between renders), and to a
piano-roll PNG. Heavy libraries (numba, scipy, pyloudnorm, Pillow) load on
first use, and so do this package's own modules: a piano roll does not load
the audio stack (the names below resolve on first access, PEP 562)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bandstand.render.audio import (
        TAIL_SECONDS,
        Rendered,
        render_song,
        render_wav,
        stem_names,
        write_stems,
    )
    from bandstand.render.effects import PROCESSORS
    from bandstand.render.master import Master
    from bandstand.render.pianoroll import ROLE_COLOURS, render_pianoroll, role_colour, title_line
    from bandstand.render.soundfont import ENV_VAR, find_soundfont
    from bandstand.render.synth import warm
    from bandstand.render.trackcache import TrackCache

_HOMES: dict[str, str] = {
    **dict.fromkeys(("TAIL_SECONDS", "Rendered", "render_song", "render_wav", "stem_names", "write_stems"), "audio"),
    "PROCESSORS": "effects",
    "Master": "master",
    **dict.fromkeys(("ROLE_COLOURS", "render_pianoroll", "role_colour", "title_line"), "pianoroll"),
    **dict.fromkeys(("ENV_VAR", "find_soundfont"), "soundfont"),
    "warm": "synth",
    "TrackCache": "trackcache",
}

__all__ = [
    "ENV_VAR",
    "PROCESSORS",
    "ROLE_COLOURS",
    "TAIL_SECONDS",
    "Master",
    "Rendered",
    "TrackCache",
    "find_soundfont",
    "render_pianoroll",
    "render_song",
    "render_wav",
    "role_colour",
    "stem_names",
    "title_line",
    "warm",
    "write_stems",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'bandstand.render' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"bandstand.render.{home}"), name)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
