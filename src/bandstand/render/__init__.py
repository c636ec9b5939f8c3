"""Rendering: a song (or a .mid file) to WAV audio by SoundFont synthesis, and
to a piano-roll PNG. Heavy libraries (tinysoundfont, Pillow) load on first use."""

from bandstand.render.audio import TAIL_SECONDS, render_wav
from bandstand.render.pianoroll import ROLE_COLOURS, render_pianoroll, role_colour, title_line
from bandstand.render.soundfont import ENV_VAR, find_soundfont

__all__ = [
    "ENV_VAR",
    "ROLE_COLOURS",
    "TAIL_SECONDS",
    "find_soundfont",
    "render_pianoroll",
    "render_wav",
    "role_colour",
    "title_line",
]
