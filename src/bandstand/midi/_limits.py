"""What a MIDI file may hold before bandstand refuses to read it.

A Standard MIDI File is a few bytes that can describe hours of sound, millions
of notes or thousands of tracks; the reader, the piano roll and the renderer
all do work in proportion to those. `MidiLimits` is the budget every read
checks as it parses (notes are counted as they are met, so a file over the
limit costs no more than the limit), and the refusal is one `MidiFileError`
line naming the limit."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIDI_LIMITS", "MidiLimits"]


@dataclass(frozen=True, slots=True)
class MidiLimits:
    """The most a readable file may hold: tracks (one per track chunk and channel), notes,
    length in beats (the last event's time) and length in seconds (through the tempo map)."""

    tracks: int = 256
    notes: int = 200_000
    beats: float = 20_000.0
    seconds: float = 1800.0


MIDI_LIMITS = MidiLimits()
