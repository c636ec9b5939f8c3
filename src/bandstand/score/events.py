"""Timed events of a part: notes, control changes, pitch bends, aftertouch and
program changes. Times are beats (quarter notes) from the start of the song;
every event is a frozen value checked on construction, so a score that exists
is a score that can be written to a MIDI file."""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.errors import InvalidInput

PITCH_BEND_MIN = -8192
PITCH_BEND_MAX = 8191


def _check_range(kind: str, field: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InvalidInput(f"{kind} {field} {value} is out of range; use {low}..{high}", field=field)


def _check_time(kind: str, field: str, value: float) -> None:
    if not value >= 0.0:  # also rejects NaN
        raise InvalidInput(f"{kind} {field} {value} is negative; times are beats from 0", field=field)


@dataclass(frozen=True, slots=True)
class Note:
    """A note: `start` and `duration` in beats, MIDI `pitch` 0..127, `velocity` 1..127."""

    start: float
    duration: float
    pitch: int
    velocity: int

    def __post_init__(self) -> None:
        # one expression on the hot path; the checks that name the culprit run only on failure
        if not (self.start >= 0.0 and self.duration > 0.0 and 0 <= self.pitch <= 127 and 1 <= self.velocity <= 127):
            _check_time("note", "start", self.start)
            if not self.duration > 0.0:
                raise InvalidInput(f"note duration {self.duration} must be positive (beats)", field="duration")
            _check_range("note", "pitch", self.pitch, 0, 127)
            _check_range("note", "velocity", self.velocity, 1, 127)

    @property
    def end(self) -> float:
        """The beat where the note stops sounding."""
        return self.start + self.duration


@dataclass(frozen=True, slots=True)
class ControlChange:
    """A MIDI control change (`control` 0..127, `value` 0..127) at `time` beats."""

    time: float
    control: int
    value: int

    def __post_init__(self) -> None:
        _check_time("control change", "time", self.time)
        _check_range("control change", "control", self.control, 0, 127)
        _check_range("control change", "value", self.value, 0, 127)


@dataclass(frozen=True, slots=True)
class PitchBend:
    """A pitch bend at `time` beats; `value` -8192..8191, 0 is centre."""

    time: float
    value: int

    def __post_init__(self) -> None:
        _check_time("pitch bend", "time", self.time)
        _check_range("pitch bend", "value", self.value, PITCH_BEND_MIN, PITCH_BEND_MAX)


@dataclass(frozen=True, slots=True)
class ChannelAftertouch:
    """Channel pressure (`value` 0..127) at `time` beats."""

    time: float
    value: int

    def __post_init__(self) -> None:
        _check_time("aftertouch", "time", self.time)
        _check_range("aftertouch", "value", self.value, 0, 127)


@dataclass(frozen=True, slots=True)
class PolyAftertouch:
    """Polyphonic key pressure on one `pitch` (`value` 0..127) at `time` beats."""

    time: float
    pitch: int
    value: int

    def __post_init__(self) -> None:
        _check_time("poly aftertouch", "time", self.time)
        _check_range("poly aftertouch", "pitch", self.pitch, 0, 127)
        _check_range("poly aftertouch", "value", self.value, 0, 127)


@dataclass(frozen=True, slots=True)
class ProgramChange:
    """A General MIDI program change (`program` 0..127) at `time` beats."""

    time: float
    program: int

    def __post_init__(self) -> None:
        _check_time("program change", "time", self.time)
        _check_range("program change", "program", self.program, 0, 127)
