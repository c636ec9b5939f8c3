"""Rendering: a song (or a .mid file) to WAV audio — each track synthesized by
SoundFont, run through its mix (effects, fader, pan, sends, buses) and mastered
— with stems (a `TrackCache` keeps finished tracks between renders), and to a
piano-roll PNG. Heavy libraries (numba, scipy, pyloudnorm, Pillow) load on
first use."""

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
