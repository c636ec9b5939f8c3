"""Writing MIDI files to disk, atomically (temp name, then rename)."""

from __future__ import annotations

import os
from pathlib import Path

from bandstand.files import write_bytes
from bandstand.midi._write import song_to_midi_bytes
from bandstand.score import Song


def write_midi(song: Song, path: str | os.PathLike[str]) -> Path:
    """Write `song` as a Standard MIDI File at `path` (atomically) and return the path."""
    return write_bytes(path, song_to_midi_bytes(song))
