"""What a MIDI file may hold before bandstand refuses to read it.

A Standard MIDI File is a few bytes that can describe hours of sound, millions
of notes or thousands of tracks; the reader, the piano roll and the renderer
all do work in proportion to those. `MidiLimits` is the budget every read
checks: the file's size before it is read (at most one byte past the cap is
ever read), then its events and notes as they are met (a file over a limit
costs no more than the limit), then its length and its tracks × length (what
the render's full-length buffers grow with) before anything that size is made.
The refusal is one `MidiFileError` line naming the limit."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIDI_LIMITS", "MidiLimits"]


@dataclass(frozen=True, slots=True)
class MidiLimits:
    """The most a readable file may hold: its size in bytes, events of any kind (notes, controllers,
    meta and SysEx events, ...), tracks (one per track chunk and channel), notes, length in beats
    (the last event's time), length in seconds (through the tempo map) and tracks × minutes."""

    file_bytes: int = 16 << 20
    events: int = 1_000_000
    tracks: int = 256
    notes: int = 200_000
    beats: float = 20_000.0
    seconds: float = 1800.0
    track_minutes: float = 960.0


MIDI_LIMITS = MidiLimits()
