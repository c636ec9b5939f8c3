"""A few bars of a song as a song of their own — what an audition plays and
draws. Notes that start in the bars are kept (cut at the end), the controller
values in force when the excerpt starts are restated at its first beat (so a
sustain pedal held from before is still down), and the tempo map, sections,
markers and automation move with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from bandstand import score

__all__ = ["excerpt"]

E = TypeVar("E")


def _window(events: Sequence[E], time: Callable[[E], float], key: Callable[[E], object], start: float, end: float,
            shift: Callable[[E, float], E]) -> list[E]:
    """Events inside [start, end) moved to start at 0, led by the last event of each key before start."""
    before: dict[object, E] = {}
    inside: list[E] = []
    for e in events:
        t = time(e)
        if t < start:
            before[key(e)] = e
        elif t < end:
            inside.append(shift(e, t - start))
    at_zero = {key(e) for e in inside if time(e) == 0.0}
    lead = [shift(e, 0.0) for k, e in before.items() if k not in at_zero]
    return lead + inside


def _track(track: score.Track, start: float, end: float) -> score.Track:
    notes = [score.Note(n.start - start, min(n.duration, end - n.start), n.pitch, n.velocity)
             for n in track.notes if start <= n.start < end]
    lanes = []
    for lane in track.mix.automation:
        points = [score.AutomationPoint(p.beat - start, p.value, p.curve) for p in lane.points if start <= p.beat < end]
        first = lane.value_at(start)
        if first is not None and not any(p.beat == 0.0 for p in points):
            points.insert(0, score.AutomationPoint(0.0, first))
        lanes.append(score.AutomationLane(lane.parameter, tuple(points)))
    return replace(
        track, notes=notes,
        controls=_window(track.controls, lambda c: c.time, lambda c: c.control, start, end,
                         lambda c, t: score.ControlChange(t, c.control, c.value)),
        pitch_bends=_window(track.pitch_bends, lambda b: b.time, lambda b: "bend", start, end,
                            lambda b, t: score.PitchBend(t, b.value)),
        aftertouch=_window(track.aftertouch, lambda a: a.time, lambda a: "pressure", start, end,
                           lambda a, t: score.ChannelAftertouch(t, a.value)),
        poly_aftertouch=[score.PolyAftertouch(a.time - start, a.pitch, a.value) for a in track.poly_aftertouch
                         if start <= a.time < end],
        program_changes=_window(track.program_changes, lambda p: p.time, lambda p: "program", start, end,
                                lambda p, t: score.ProgramChange(t, p.program)),
        mix=replace(track.mix, automation=tuple(lanes)),
    )


def excerpt(song: score.Song, first_bar: int, last_bar: int) -> score.Song:
    """Bars `first_bar`..`last_bar` (1-based, inclusive) of the song, starting at beat 0."""
    first_bar = max(1, first_bar)
    last_bar = max(first_bar, last_bar)
    start, end = song.bar_to_beat(first_bar), song.bar_to_beat(last_bar + 1)
    sections = []
    for s in song.sections:
        lo, hi = max(s.start_bar, first_bar), min(s.end_bar - 1, last_bar)
        if lo <= hi:
            sections.append(score.Section(s.name, lo - first_bar + 1, hi - lo + 1, s.energy))
    return replace(
        song, title=f"{song.title} — bars {first_bar}–{last_bar}", tempo=song.tempo_at(start),
        tempo_changes=[score.TempoChange(c.beat - start, c.bpm) for c in song.tempo_changes if start < c.beat < end],
        key=song.key_at(start),
        key_changes=[score.KeyChange(c.beat - start, c.key) for c in song.key_changes if start < c.beat < end],
        time_signature=song.metre_at(first_bar),  # the metre map from the first bar on
        metre_changes=[score.MetreChange(c.bar - first_bar + 1, c.time_signature) for c in song.metre_map()
                       if first_bar < c.bar <= last_bar],
        sections=sections, markers=[score.Marker(m.beat - start, m.text) for m in song.markers if start <= m.beat < end],
        tracks=[_track(t, start, end) for t in song.tracks], buses=list(song.buses),
    )
