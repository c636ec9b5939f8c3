"""Writer: phrase → score `Track`. The phrase's time feel is applied bar by bar
(half time plays the bar's first half stretched over the bar, double time
plays the bar twice as fast), then its swing and the groove's humanizing;
a pitched part never strikes a key that is still held, and a monophonic one
never overlaps itself."""

from __future__ import annotations

import random
from itertools import pairwise
from operator import attrgetter

from bandstand.craft.groove import humanize
from bandstand.craft.phrase import BEND_RANGE, NoteEvent, Phrase
from bandstand.score import Note, PitchBend, Track

__all__ = ["apply_time_feel", "glides", "monophonic", "to_track", "untangle"]

_START = attrgetter("start", "pitch")


def apply_time_feel(phrase: Phrase) -> list[NoteEvent]:
    """The phrase's events with each bar's time feel applied (unchanged at feel 1)."""
    feels = phrase.feel.time_feel
    if not feels or all(f == 1.0 for f in feels):
        return list(phrase.events)
    bpb = phrase.beats_per_bar
    out: list[NoteEvent] = []
    for e in phrase.events:
        bar = int((e.start + 1e-9) // bpb)
        feel = phrase.feel.time_feel_at(bar)
        origin = bar * bpb
        rel = e.start - origin
        if feel == 0.5:
            if rel < bpb / 2 - 1e-9:
                out.append(NoteEvent(origin + rel * 2, min(e.duration * 2, bpb - rel * 2), e.pitch, e.velocity))
        elif feel == 2.0:
            for half in (0.0, bpb / 2):
                out.append(NoteEvent(origin + half + rel / 2, max(0.03, e.duration / 2), e.pitch, e.velocity))
        else:
            out.append(e)
    out.sort()
    return out


def untangle(notes: list[Note]) -> list[Note]:
    """Cut each note where the next note of the same pitch starts (a key cannot be
    struck while it is still held: MIDI readers would pair the note-offs wrongly)."""
    out: list[Note] = []
    last: dict[int, int] = {}  # pitch → index in out of its latest note
    for n in sorted(notes, key=_START):
        i = last.get(n.pitch)
        if i is not None:
            prev = out[i]
            if prev.start + prev.duration > n.start - 0.01:
                if n.start - prev.start < 0.02:  # the same strike twice: keep the longer
                    if n.duration > prev.duration:
                        out[i] = n
                    continue
                out[i] = Note(prev.start, n.start - prev.start - 0.01, prev.pitch, prev.velocity)
        last[n.pitch] = len(out)
        out.append(n)
    return out


def monophonic(notes: list[Note]) -> list[Note]:
    """One note at a time: each note cut at the next one's start (a strike landing on
    the same instant as the next is dropped)."""
    ordered = sorted(notes, key=lambda n: (n.start, n.pitch))
    mono: list[Note] = []
    for i, n in enumerate(ordered):
        nxt = ordered[i + 1].start if i + 1 < len(ordered) else None
        if nxt is not None and nxt <= n.start + 0.02:
            continue
        dur = min(n.duration, nxt - n.start - 0.01) if nxt is not None else n.duration
        mono.append(Note(n.start, max(0.03, dur), n.pitch, n.velocity))
    return mono


def glides(notes: list[Note], rng: random.Random, chance: float) -> list[PitchBend]:
    """808 glides (a phrase's `glide` chance): the end of a note bends into the next one's pitch (within the bend range)."""
    bends: list[PitchBend] = []
    for a, b in pairwise(notes):
        gap = b.start - a.end
        interval = b.pitch - a.pitch
        octave = abs(interval) == 12  # an octave jump is always slid
        if interval == 0 or abs(interval) > BEND_RANGE or gap > 0.3 or (not octave and rng.random() >= chance):
            continue
        t0 = max(a.start + 0.05, a.end - 0.3)
        for i in range(1, 5):
            value = round(interval / BEND_RANGE * 8191 * i / 4)
            bends.append(PitchBend(t0 + (a.end - t0) * i / 4, max(-8192, min(8191, value))))
        bends.append(PitchBend(b.start, 0))
    return bends



def to_track(phrase: Phrase, *, name: str, program: int, tempo: float, rng: random.Random) -> Track:
    """The phrase as a score track (humanized with `rng`, which the generator may have used first)."""
    events = apply_time_feel(phrase)
    notes = humanize(events, phrase.feel, tempo, phrase.beats_per_bar, rng, phrase.feel.lay_back or phrase.role)
    if phrase.monophonic:
        notes = monophonic(notes)
    if not phrase.is_drum:
        notes = untangle(notes)
    bends = list(phrase.bends)
    if phrase.glide > 0.0:
        bends += glides(notes, rng, phrase.glide)
    track = Track(name=name, role=phrase.role, program=program, is_drum=phrase.is_drum, notes=notes,
                  controls=list(phrase.controls), pitch_bends=bends)
    track.sort()
    return track
