"""The tempo map as a value: the opening tempo and the changes after it, and what setting a tempo
in some bars does to it.

A song's tempo map is `Song.tempo` (from beat 0) plus `Song.tempo_changes`. Setting the tempo in
a window of beats ("set the chorus to 140 BPM", "slow the bridge down by 10") cuts the map at
the window's edges, changes each tempo inside it and leaves every tempo outside it as it was:
the tempo in force where the window ends comes back there. These are the one implementation of
that arithmetic, used by the studio's `set_tempo` tool and by the studio's regenerations alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from bandstand.score.song import TempoChange

__all__ = ["TempoMap", "overlay", "retempo", "seconds_between", "segments", "tempo_at"]

TempoMap = tuple[float, tuple[TempoChange, ...]]
"""(the tempo at beat 0, the later changes sorted by beat, each a real change)."""

_EPS = 1e-9


def _normal(tempo: float, changes: Sequence[TempoChange]) -> TempoMap:
    """The map with changes sorted, one per beat (the last said wins), none at beat 0 (that is
    the opening tempo) and none that repeats the tempo already in force."""
    by_beat: dict[float, float] = {}
    for c in changes:
        if c.beat <= _EPS:
            tempo = c.bpm
        else:
            by_beat[round(c.beat, 6)] = c.bpm
    out: list[TempoChange] = []
    now = tempo
    for beat, bpm in sorted(by_beat.items()):
        if abs(bpm - now) > _EPS:
            out.append(TempoChange(beat, bpm))
            now = bpm
    return tempo, tuple(out)


def tempo_at(tempo: float, changes: Sequence[TempoChange], beat: float) -> float:
    """The bpm in force at `beat`."""
    bpm = tempo
    for c in sorted(changes, key=lambda c: c.beat):
        if c.beat > beat + _EPS:
            break
        bpm = c.bpm
    return bpm


def segments(tempo: float, changes: Sequence[TempoChange], start: float, end: float) -> list[tuple[float, float, float]]:
    """(from beat, to beat, bpm) of every stretch of one tempo inside [start, end)."""
    cuts = sorted({start, end, *(c.beat for c in changes if start + _EPS < c.beat < end - _EPS)})
    return [(a, b, tempo_at(tempo, changes, a)) for a, b in pairwise(cuts) if b - a > _EPS]


def retempo(tempo: float, changes: Sequence[TempoChange], start: float, end: float | None,
            bpm: Callable[[float], float]) -> TempoMap:
    """The map with every tempo inside [start, end) made `bpm(old tempo)` and every tempo outside
    it kept (`end` None: to the end of the song). The tempo in force at `end` before the change
    comes back at `end`."""
    after = tempo_at(tempo, changes, end) if end is not None else None
    outside = [c for c in changes if c.beat < start - _EPS or (end is not None and c.beat > end + _EPS)]
    last = end if end is not None else max([start, *(c.beat for c in changes)]) + 1.0
    inside = [TempoChange(a, bpm(old)) for a, _b, old in segments(tempo, changes, start, last)]
    restore = [TempoChange(end, after)] if end is not None and after is not None else []
    return _normal(tempo, [*outside, *inside, *restore])


def seconds_between(tempo: float, changes: Sequence[TempoChange], start: float, end: float) -> float:
    """How long the beats from `start` to `end` last, following the map."""
    return sum((b - a) * 60.0 / bpm for a, b, bpm in segments(tempo, changes, start, end))


def overlay(base: TempoMap, new: TempoMap, windows: Sequence[tuple[float, float]]) -> TempoMap:
    """`base` with `new`'s tempos inside the beat windows: what accepting a tempo change in some
    bars only makes."""
    now = base
    for start, end in windows:
        for a, b, bpm in segments(new[0], new[1], start, end):
            def held(_old: float, bpm: float = bpm) -> float:
                return bpm

            now = retempo(now[0], now[1], a, b, held)
    return now
