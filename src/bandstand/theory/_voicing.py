"""Chord voicing in a register, with voice leading from the previous chord.

Without a previous chord the voicing is close position with the bass at the
bottom. With one, each pitch class is placed at one of its two instances
nearest the previous notes, and the combination with the least total motion
(each new note to its nearest old one, and each old note to its nearest new
one) wins; ties go to the narrower, then the lower voicing. Slash chords keep
their bass at the bottom whenever the register leaves room for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import product

from bandstand.errors import TheoryError
from bandstand.theory._chords import Chord, parse_chord

Voicing = tuple[int, ...]


def _order(chord: Chord) -> list[int]:
    """Pitch classes from the bass up in chord-tone order (rotated to start at the bass), each once."""
    pcs: list[int] = []
    for interval in chord.intervals:
        pc = (chord.root + interval) % 12
        if pc not in pcs:
            pcs.append(pc)
    if chord.bass in pcs:
        k = pcs.index(chord.bass)
        return pcs[k:] + pcs[:k]
    return [chord.bass, *pcs]


def motion(previous: Sequence[int], voicing: Sequence[int]) -> int:
    """Total motion between two voicings: each note to the nearest note of the other, both ways."""
    if not previous or not voicing:
        return 0
    forward = sum(min(abs(n - p) for p in previous) for n in voicing)
    backward = sum(min(abs(p - n) for n in voicing) for p in previous)
    return forward + backward


def _close(order: list[int], low: int, high: int) -> Voicing:
    start = low + (order[0] - low) % 12
    notes = [start]
    for pc in order[1:]:
        note = notes[-1] + 1 + (pc - notes[-1] - 1) % 12
        if note > high:  # fold back down, staying above the bass when the register allows
            note = start + 1 + (pc - start - 1) % 12
        if note > high:
            note = low + (pc - low) % 12
        notes.append(note)
    return tuple(sorted(notes))


def _instances(pc: int, low: int, high: int) -> list[int]:
    return list(range(low + (pc - low) % 12, high + 1, 12))


def voice_chord(chord: Chord | str, low: int = 48, high: int = 72,
                previous: Sequence[int] | None = None) -> Voicing:
    """MIDI notes for `chord` within ``[low, high]``, one per pitch class, sorted.

    ``voice_chord("C", 48, 72) == (48, 52, 55)``; with `previous`, the voicing
    that moves least from it.
    """
    return _voice(parse_chord(chord), low, high, tuple(previous) if previous else None)


@lru_cache(maxsize=8192)
def _voice(c: Chord, low: int, high: int, prev: Voicing | None) -> Voicing:
    if high - low < 11:
        raise TheoryError(
            f"register {low}-{high} is narrower than an octave; every pitch class needs room",
            text=f"{low}-{high}", position=0,
        )
    order = _order(c)
    if prev is None:
        return _close(order, low, high)
    options: list[list[int]] = []
    for pc in order:
        here = sorted(_instances(pc, low, high), key=lambda n: (min(abs(n - p) for p in prev), n))
        options.append(here[:2])
    best: tuple[bool, int, int, int, Voicing] | None = None
    for combo in product(*options):
        voicing = tuple(sorted(combo))
        bass_misplaced = c.is_slash and voicing[0] != combo[0]
        rank = (bass_misplaced, motion(prev, voicing), voicing[-1] - voicing[0], sum(voicing), voicing)
        if best is None or rank < best:
            best = rank
    assert best is not None
    return best[4]


def voice_progression(chords: Iterable[Chord | str], low: int = 48, high: int = 72,
                      previous: Sequence[int] | None = None) -> list[Voicing]:
    """Voice each chord in turn, leading smoothly from the one before."""
    out: list[Voicing] = []
    last = tuple(previous) if previous else None
    for chord in chords:
        last = voice_chord(chord, low, high, last)
        out.append(last)
    return out
