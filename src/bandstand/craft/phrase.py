"""The phrase: what a musician plays, as note events on the grid, before any
humanizing. A generator makes a `Phrase`; a writer turns it into a score
`Track` (humanized and swung, `to_track`) or into pattern code
(`to_pattern`).

Times are beats from the start of the phrase (a song, or a jam loop). The
phrase also says how it is meant to feel, bar by bar — its swing, its time
feel (half, normal or double time) — and which groove template humanizes
it, so each writer can render the feel its own way: the score moves the
notes, the pattern code says `.swingBy(…)` / `.fast(2)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from bandstand.score import ControlChange, PitchBend

BEND_RANGE = 12  # semitones of pitch bend a gliding phrase sets up (RPN 0)


class NoteEvent(NamedTuple):
    """One note on the grid: `start` and `duration` in beats, MIDI `pitch` (a GM drum
    key for drums), `velocity` 1..127. A named tuple: immutable, and cheap to build by
    the thousand and to hand to numpy."""

    start: float
    duration: float
    pitch: int
    velocity: int


@dataclass(frozen=True, slots=True)
class Feel:
    """How a phrase is humanized: the groove template (by name), the swing as a
    fraction of the swing unit per bar (0 straight … 0.33 triplets), the swing unit in
    beats, the time feel per bar, how loosely the part sits (0 quantized … 1 the
    groove's full spread) and whether lay-backs are looked up by drum key."""

    groove: str = "rock_backbeat"
    swing: tuple[float, ...] = ()
    swing_unit: float = 0.25
    time_feel: tuple[float, ...] = ()
    looseness: float = 0.7
    by_key: bool = False
    lay_back: str = ""  # the role whose lay-back applies (empty: the phrase's own role)

    def swing_at(self, bar: int) -> float:
        return self.swing[bar] if 0 <= bar < len(self.swing) else (self.swing[-1] if self.swing else 0.0)

    def time_feel_at(self, bar: int) -> float:
        return self.time_feel[bar] if 0 <= bar < len(self.time_feel) else 1.0


@dataclass(frozen=True, slots=True)
class Phrase:
    """A part as played on the grid: events sorted by start, controller data, the
    style name the generator used, and its feel."""

    role: str
    events: tuple[NoteEvent, ...]
    beats_per_bar: float = 4.0
    bars: int = 1
    pulse: float = 1.0  # beats per counting unit of the metre: 1 in x/4, 0.5 in x/8
    is_drum: bool = False
    style: str = ""
    controls: tuple[ControlChange, ...] = ()
    bends: tuple[PitchBend, ...] = ()
    feel: Feel = field(default_factory=Feel)
    monophonic: bool = False
    glide: float = 0.0  # chance that a note slides into the next one (808 glides, by pitch bend)

    @property
    def length(self) -> float:
        """The phrase's length in beats (whole bars)."""
        return self.bars * self.beats_per_bar

    def in_bar(self, bar: int) -> tuple[NoteEvent, ...]:
        """The events that start in 0-based `bar`."""
        lo, hi = bar * self.beats_per_bar, (bar + 1) * self.beats_per_bar
        return tuple(e for e in self.events if lo - 1e-9 <= e.start < hi - 1e-9)

    def pitches(self) -> frozenset[int]:
        return frozenset(e.pitch for e in self.events)
