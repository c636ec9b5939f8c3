"""The metre map as a value: the opening time signature and the bars where another one starts, and
what putting some bars in another metre does to the beats of everything after them.

A song's metre map is `Song.time_signature` (from bar 1) plus `Song.metre_changes`. Bars are the
map's unit: "the bridge in 6/8" puts the bridge's bars in 6/8, so every bar after it starts
earlier or later in beats while it stays the same bar. `relay` moves events bar by bar from one
map to another (each event keeps its place inside its bar); `remetre` and `overlay` are the map's
arithmetic for an edit and for accepting it in some bars only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from bandstand.score.song import (
    KeyChange,
    Marker,
    MetreChange,
    Song,
    TempoChange,
    TimeSignature,
    Track,
    bar_at,
    bar_start,
)

__all__ = ["EARLY", "MetreMap", "bar_metres", "move_beat", "overlay", "relay", "relay_song", "remetre", "runs"]

_EPS = 1e-9
# beats: a note struck up to a 32nd before a bar line (a downbeat humanized early) is that bar's note
EARLY = 0.125
_E = TypeVar("_E")


@dataclass(frozen=True, slots=True)
class MetreMap:
    """The opening time signature and the later changes (sorted, each a real change, none at bar 1)."""

    opening: TimeSignature
    changes: tuple[MetreChange, ...] = ()

    @classmethod
    def of(cls, opening: TimeSignature, changes: Sequence[MetreChange]) -> MetreMap:
        """The map normalised: one change per bar (the last said wins), a change at bar 1 is the
        opening metre, none repeats the metre in force."""
        by_bar: dict[int, TimeSignature] = {}
        for c in changes:
            if c.bar <= 1:
                opening = c.time_signature
            else:
                by_bar[c.bar] = c.time_signature
        out: list[MetreChange] = []
        now = opening
        for bar, ts in sorted(by_bar.items()):
            if ts != now:
                out.append(MetreChange(bar, ts))
                now = ts
        return cls(opening, tuple(out))

    @classmethod
    def of_song(cls, song: Song) -> MetreMap:
        return cls.of(song.time_signature, song.metre_changes)

    def at(self, bar: int) -> TimeSignature:
        """The time signature of 1-based `bar`."""
        ts = self.opening
        for c in self.changes:
            if c.bar > bar:
                break
            ts = c.time_signature
        return ts

    def start(self, bar: float) -> float:
        """The beat at which 1-based `bar` starts."""
        return bar_start(self.opening, self.changes, bar)

    def bar(self, beat: float) -> int:
        """The 1-based bar holding `beat`."""
        return bar_at(self.opening, self.changes, beat)

    def end(self, bar: int) -> float:
        """The beat at which 1-based `bar` ends."""
        return self.start(bar + 1)

    @property
    def uniform(self) -> bool:
        return not self.changes


def bar_metres(metres: MetreMap, bars: int) -> list[TimeSignature]:
    """The time signature of every bar, bar 1 first."""
    return [metres.at(bar) for bar in range(1, bars + 1)]


def runs(metres: MetreMap, bars: int) -> list[tuple[TimeSignature, list[tuple[int, int]]]]:
    """Each time signature of the map's first `bars` bars with the (first, last) runs of bars in it,
    the opening metre first."""
    out: dict[TimeSignature, list[tuple[int, int]]] = {metres.opening: []}
    for bar, ts in enumerate(bar_metres(metres, bars), start=1):
        held = out.setdefault(ts, [])
        if held and held[-1][1] == bar - 1:
            held[-1] = (held[-1][0], bar)
        else:
            held.append((bar, bar))
    return list(out.items())


def remetre(metres: MetreMap, first: int, last: int | None, ts: TimeSignature) -> MetreMap:
    """The map with bars `first`..`last` (None: to the end) in `ts` and every other bar as it was:
    the metre in force after `last` comes back there."""
    after = metres.at(last + 1) if last is not None else None
    outside = [c for c in metres.changes if c.bar < first or (last is not None and c.bar > last + 1)]
    back = [MetreChange(last + 1, after)] if last is not None and after is not None else []
    return MetreMap.of(metres.opening, [*outside, MetreChange(first, ts), *back])


def overlay(base: MetreMap, new: MetreMap, bars: Collection[int], total: int) -> MetreMap:
    """`base` with `new`'s metre in `bars`: what accepting a metre change in those bars only makes."""
    per_bar = [new.at(b) if b in bars else base.at(b) for b in range(1, total + 1)]
    return MetreMap.of(per_bar[0] if per_bar else base.opening,
                       [MetreChange(b, ts) for b, ts in enumerate(per_bar, start=1)])


def move_beat(beat: float, src: MetreMap, dst: MetreMap) -> float:
    """`beat` of `src` at the same place of the same bar in `dst`."""
    bar = src.bar(beat + _EPS)
    return dst.start(bar) + max(0.0, beat - src.start(bar))


def _moved(events: Sequence[_E], time: Callable[[_E], float], src: MetreMap, dst: MetreMap,
           keep: Callable[[int], bool], set_time: Callable[[_E, float], _E]) -> list[_E]:
    out: list[_E] = []
    for e in events:
        t = time(e)
        bar = src.bar(t + _EPS)
        if keep(bar):
            out.append(set_time(e, dst.start(bar) + max(0.0, t - src.start(bar))))
    return out


def relay(track: Track, src: MetreMap, dst: MetreMap, bars: Collection[int] | None = None) -> Track:
    """`track` (laid on `src`) laid on `dst`: every event keeps its bar and its place in the bar;
    a note that ended inside its bar ends by the bar's end in `dst` (a 4/4 bar's last beat has
    no room in 3/4); with `bars`, only the events of those bars are kept. A note struck up to
    `EARLY` before a bar line is the next bar's (its downbeat, humanized early) and stays as early
    before that bar's line in `dst`."""
    if src == dst and bars is None:
        return track

    def keep(bar: int) -> bool:
        return bars is None or bar in bars

    notes = []
    for n in track.notes:
        bar = src.bar(n.start + EARLY)
        if not keep(bar):
            continue
        start = max(0.0, dst.start(bar) + n.start - src.start(bar))
        duration = n.duration
        if n.start + n.duration <= src.end(bar) + _EPS:
            duration = max(0.01, min(duration, dst.end(bar) - start))
        if start < dst.end(bar) - _EPS:  # a beat the bar no longer has is gone
            notes.append(replace(n, start=start, duration=duration))

    def timed(e: Any, t: float) -> Any:
        return replace(e, time=t)

    def time_of(e: Any) -> float:
        return float(e.time)

    out = replace(track, notes=notes)
    for name in ("controls", "pitch_bends", "aftertouch", "poly_aftertouch", "program_changes"):
        setattr(out, name, _moved(getattr(track, name), time_of, src, dst, keep, timed))
    out.sort()
    return out


def relay_song(song: Song, dst: MetreMap) -> Song:
    """`song` on the metre map `dst`: its tracks, tempo and key changes and markers moved bar by bar."""
    src = MetreMap.of_song(song)
    if src == dst:
        return song
    return replace(
        song, time_signature=dst.opening, metre_changes=list(dst.changes),
        tracks=[relay(t, src, dst) for t in song.tracks],
        tempo_changes=[TempoChange(move_beat(c.beat, src, dst), c.bpm) for c in song.tempo_changes],
        key_changes=[KeyChange(move_beat(c.beat, src, dst), c.key) for c in song.key_changes],
        markers=[Marker(move_beat(m.beat, src, dst), m.text) for m in song.markers],
    )
