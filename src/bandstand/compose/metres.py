"""A composed song's metre map: one metre throughout, or — for a song in odd metres — each
section in its kind's metre (`Intent.section_metres`: verse 7/8, chorus 4/4, bridge 5/4).

A part of such a song is written once per metre of the map, each time as a song in that one
metre (the same seed, plans and harmony), and every bar is taken from the writing in its own
metre and laid where the map puts it (`on_map`): a 7/8 verse is a verse written in 7/8, its
drum figure, bass line, comping and melody bars seven eighths long.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.intent import Constraint, Intent
from bandstand.compose.parts.context import METRE_BARS
from bandstand.score import MetreChange, TimeSignature, Track
from bandstand.score.metre_map import EARLY, MetreMap, relay, runs

__all__ = ["in_metre", "metre_map", "on_map", "section_metre"]

_EPS = 1e-9


def section_metre(intent: Intent, kind: str) -> tuple[int, int]:
    """The metre a section of `kind` is written in."""
    return intent.section_metres.get(kind, intent.time_signature)


def metre_map(intent: Intent, arrangement: ArrangementPlan) -> MetreMap:
    """The song's metre map: the intent's metre throughout, or each section in its own."""
    home = TimeSignature(*intent.time_signature)
    if not intent.section_metres or not arrangement.sections:
        return MetreMap(home)
    changes = [MetreChange(s.start_bar, TimeSignature(*section_metre(intent, s.kind))) for s in arrangement.sections]
    return MetreMap.of(changes[0].time_signature, changes)


def in_metre(intent: Intent, ts: TimeSignature) -> Intent:
    """The intent of a song written in `ts` throughout (the bars of a section in another metre
    than the home one are said to be, so the drummer plays grooves that fit them)."""
    update: dict[str, object] = {"time_signature": (ts.numerator, ts.denominator), "section_metres": {}}
    if (ts.numerator, ts.denominator) != tuple(intent.time_signature):
        home = TimeSignature(*intent.time_signature)
        update["constraints"] = [*intent.constraints, Constraint(kind=METRE_BARS, text=f"bars in {ts}, in a song in {home}")]
    return intent.model_copy(update=update)


def _clipped(track: Track, metres: MetreMap, held: Sequence[tuple[int, int]]) -> Track:
    """`track` with no note ringing past the last bar of its run (the next bar is another
    metre's writing). A note belongs to the bar it is struck in, or to the next one when it is
    struck up to `EARLY` before its line (a downbeat humanized early: `relay`)."""
    ends = [(metres.start(a), metres.end(b)) for a, b in held]
    notes = []
    for n in track.notes:
        end = next((e for s, e in ends if s - _EPS <= n.start + EARLY < e), None)
        if end is None:
            continue
        notes.append(n if n.end <= end + _EPS else replace(n, duration=max(0.01, end - n.start)))
    return replace(track, notes=notes)


def on_map(write: Callable[[Intent], Track], intent: Intent, arrangement: ArrangementPlan) -> Track:
    """A part laid on the song's metre map: `write` (the part of a song in one metre, by its
    intent) is called once per metre and each bar taken from the writing in its metre."""
    metres = metre_map(intent, arrangement)
    pieces: list[Track] = []
    for ts, held in runs(metres, arrangement.total_bars):
        if not held:
            continue
        bars = {bar for a, b in held for bar in range(a, b + 1)}
        pieces.append(_clipped(relay(write(in_metre(intent, ts)), MetreMap(ts), metres, bars), metres, held))
    track = pieces[0]
    for more in pieces[1:]:
        for name in ("notes", "controls", "pitch_bends", "aftertouch", "poly_aftertouch"):
            setattr(track, name, [*getattr(track, name), *getattr(more, name)])
    track.sort()
    return track
