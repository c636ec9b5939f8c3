"""Dance-band basses that do not follow a drum kit: the two-beat of bluegrass, country,
polka and cumbia (root on one, fifth on three, walking up into a new chord) and the
tango's marcato and 3-3-2 síncopa. Same signature as every figure in `bass`."""

from __future__ import annotations

import random

from bandstand.craft.situation import Bar, Situation, pitch_near
from bandstand.craft.style import Style

__all__ = ["marcato", "two_beat"]

LOW, HIGH = 28, 52  # E1..E3, the bass's register
Event = tuple[int, float, int, int]  # (step, length in steps, pitch, velocity)


def two_beat(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
             style: Style) -> list[Event]:
    """Bluegrass, country, polka, cumbia: the root on one, the fifth below on three, and a
    walk up (two scale steps) into a new chord when the band is up."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    fifth = pitch_near(bar.chord.fifth, root - 5, LOW, HIGH)
    half = sit.steps // 2
    events: list[Event] = [(0, half * 0.7, root, 100), (half, half * 0.7, fifth, 92)]
    if bar.chord_changes and bar.energy >= 0.5 and half >= 8:
        target = pitch_near(bar.next_chord.bass, root, LOW, HIGH)
        steps = [p for p in range(target - 4, target) if p % 12 in sit.scale][-2:]
        if len(steps) == 2:
            events = [events[0], (half, 1.8, fifth, 92), (half + 4, 1.8, steps[0], 86), (half + 6, 1.8, steps[1], 88)]
    return events


# Tango's bass: marcato on every beat (accents on one and three); when up, the 3-3-2 síncopa.
MARCATO = ((0, 104), (4, 80), (8, 96), (12, 80))
SINCOPA = ((0, 106), (6, 96), (12, 100))


def marcato(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
            style: Style) -> list[Event]:
    """Tango: marcato on every beat, the fifth on three; the 3-3-2 síncopa in answering bars when up."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    fifth = pitch_near(bar.chord.fifth, root + 7, LOW, HIGH + 5)
    figure = SINCOPA if bar.energy >= 0.7 and bar.bar_in_phrase % 2 == 1 else MARCATO
    return [(s, 2.4, fifth if s == 8 or (s == 6 and figure is SINCOPA) else root, v)
            for s, v in figure if s < sit.steps]
