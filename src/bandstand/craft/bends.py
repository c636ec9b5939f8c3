"""Idiomatic pitch bends: how a player bends a part, as data over its notes.

A lead singer-like line scoops into notes that follow a rest or a leap (from
below, a fraction of a semitone, resolved within a sixteenth) and adds vibrato
to held notes once they have sounded a while; a bass slides into a note from a
step away. Pads, chords and drums are not bent (a channel's bend moves every
note it holds). How much depends on the genre: blues and rock bend widely,
classical and ambient hardly. Every gesture returns to centre (0) before the
next note starts, so no note is left out of tune.

Values are MIDI pitch-bend units (−8192..8191) for the default ±2-semitone
range: one semitone is 4096. Times are beats from the notes' origin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BEND_ROLES", "BENT_LEADS", "GENRE_DEPTH", "SEMITONE", "Gesture", "bendable", "idiomatic_bends"]

SEMITONE = 4096
"""Bend units per semitone at the default ±2-semitone range."""


@dataclass(frozen=True, slots=True)
class Gesture:
    """What a role's player does: scoop depth (semitones below), vibrato depth (semitones either
    side) and rate (cycles per beat), a slide from (semitones below), and how long a note must be
    held before vibrato starts (beats)."""

    scoop: float = 0.0
    vibrato: float = 0.0
    rate: float = 2.5
    slide: float = 0.0
    held: float = 1.0


BEND_ROLES: dict[str, Gesture] = {
    "lead": Gesture(scoop=0.5, vibrato=0.15, rate=2.5, held=1.0),
    "counter_melody": Gesture(scoop=0.35, vibrato=0.1, rate=2.0, held=1.5),
    "bass": Gesture(slide=1.0),
    "sub_bass": Gesture(slide=1.0),
}
"""The roles that bend, and how (the rest are not bent)."""

GENRE_DEPTH: dict[str, float] = {
    "blues": 1.5, "rock": 1.3, "metal": 1.3, "funk": 1.1, "soul": 1.2, "rnb": 1.2, "r&b": 1.2, "gospel": 1.2,
    "hip hop": 1.0, "trap": 1.2, "edm": 0.9, "house": 0.8, "techno": 0.6, "jazz": 0.8, "pop": 0.9,
    "lo-fi": 1.0, "lofi": 1.0, "reggae": 0.9, "country": 1.2, "classical": 0.3, "ambient": 0.4,
}
"""How widely a genre bends (a factor on every depth; 1 when the genre is not named)."""

BENT_LEADS = frozenset({"metal"})
"""Genres whose lead compose writes bent as it is played (a metal guitarist's scoops into the
phrase and wide vibrato on the held notes); elsewhere bends are a studio edit on request."""

MAX_DEPTH = 2.0
"""Nothing bends past the default range's two semitones."""
STEP = 1 / 32
"""Beats between the points of a vibrato or a scoop."""


def bendable(role: str) -> bool:
    return role in BEND_ROLES


def _depth(style: str) -> float:
    words = f" {' '.join(style.lower().split())} "
    found = [factor for genre, factor in GENRE_DEPTH.items() if f" {genre} " in words]
    return max(found) if found else 1.0


def _units(semitones: float) -> int:
    return round(max(-MAX_DEPTH, min(MAX_DEPTH, semitones)) * SEMITONE * (8191 / 8192))


def idiomatic_bends(notes: Sequence[tuple[float, float, int]], role: str, style: str = "",
                    end: float | None = None) -> list[tuple[float, int]]:
    """The bends for `notes` ((start, duration, pitch), in beats) as `role` plays them in `style`:
    (beat, value) points in time order, each gesture ending at 0 before the next note. Empty
    for a role that is not bent."""
    gesture = BEND_ROLES.get(role)
    if gesture is None or not notes:
        return []
    depth = _depth(style)
    ordered = sorted(notes)
    points: list[tuple[float, int]] = []
    for i, (start, duration, pitch) in enumerate(ordered):
        nxt = ordered[i + 1][0] if i + 1 < len(ordered) else (end if end is not None else start + duration)
        stop = min(start + duration, nxt) - 1e-6
        if stop <= start:
            continue
        before = ordered[i - 1] if i else None
        rest = before is None or start - (before[0] + before[1]) >= 0.25
        leap = before is not None and abs(pitch - before[2]) >= 5
        step = before is not None and 1 <= abs(pitch - before[2]) <= 2 and not rest
        gestures: list[tuple[float, int]] = []
        if gesture.slide and step:  # a bass slides in from the note it left
            assert before is not None
            direction = -1 if pitch > before[2] else 1
            span = min(0.125, (stop - start) / 2)
            gestures += [(start, _units(direction * gesture.slide * min(depth, 1.0))),
                         (start + span / 2, _units(direction * gesture.slide * min(depth, 1.0) / 3)),
                         (start + span, 0)]
        elif gesture.scoop and (rest or leap):  # a scoop up into the note
            span = min(0.25, (stop - start) / 2)
            k = 4
            gestures += [(start + span * j / k, _units(-gesture.scoop * depth * (1 - j / k) ** 2)) for j in range(k)]
            gestures.append((start + span, 0))
        if gesture.vibrato and stop - start >= gesture.held:  # vibrato on a held note, after it has settled
            first = start + gesture.held * 0.5
            count = int((stop - first) / STEP)
            wave = [(first + j * STEP, _units(gesture.vibrato * depth * math.sin(2 * math.pi * gesture.rate * j * STEP)
                                              * min(1.0, j / 8)))
                    for j in range(count)]
            gestures += [w for w in wave if w[0] < stop]
            gestures.append((min(stop, first + count * STEP), 0))
        for beat, value in gestures:
            if not points or beat > points[-1][0]:
                points.append((round(beat, 6), value))
        if points and points[-1][1] != 0:
            points.append((round(stop, 6), 0))
    return [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
