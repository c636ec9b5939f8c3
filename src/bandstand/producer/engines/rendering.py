"""What `bandstand render`, `bandstand pattern render` and the server's SoundFont route do with
a song outside a project: read and write Standard MIDI Files, draw the piano roll, render the
WAV, find the SoundFont — the MIDI and render layers' own functions, re-exported (each lives
once, in `bandstand.midi` / `bandstand.render`; a client imports only the producer,
docs/architecture.md)."""

from __future__ import annotations

from bandstand.midi import read_midi, write_midi
from bandstand.render import find_soundfont, render_pianoroll, render_wav, title_line, warm

__all__ = ["find_soundfont", "read_midi", "render_pianoroll", "render_wav", "title_line", "warm", "write_midi"]
