"""Stage 6 — assembly: the parts become one `Song` (written as a format-1,
480-PPQ Standard MIDI File by `bandstand.midi`).

The song carries the conductor data (tempo, time signature, key, one
section and one marker per section at its first beat). Each part becomes
one track on its role's channel (drums 9, bass 1, chords 2, lead 3, pad 4,
others the next free one). A role that does not play in a section is
silent there: its notes are removed (a note ringing into such a section is
cut at the boundary; a humanized downbeat that starts a hair before its
section starts with it), not muted. Section transitions are written as
controller ramps on the tracks playing the section:

    fade          CC7  127 → 0  over the section's last 2 bars, back to 127 at the next section
    build         CC1    0 → 127 over the last 4 bars, back to 0
    filter_sweep  CC74  20 → 127 over the last 2 bars, back to 64

Times are beats throughout, so parts read from files of any PPQ (which
`read_midi` rescales to beats) land on the same grid; bar → tick is
``(bar − 1) × 480 × beats_per_bar`` in a song in one metre. A song whose sections
have metres of their own (`compose.metres`) carries its metre map (a time
signature at every change) and its bars start where the map puts them.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from bandstand.compose.metres import metre_map
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.parts.context import active_in
from bandstand.score import (
    ControlChange,
    Section,
    Song,
    Track,
    assign_channels,
)
from bandstand.score.metre_map import MetreMap

__all__ = ["TRANSITIONS", "Ramp", "active_spans", "assemble"]


@dataclass(frozen=True, slots=True)
class Ramp:
    control: int
    start: int
    end: int
    bars: int
    reset: int


TRANSITIONS: dict[str, Ramp] = {
    "fade": Ramp(7, 127, 0, 2, 127),
    "build": Ramp(1, 0, 127, 4, 0),
    "filter_sweep": Ramp(74, 20, 127, 2, 64),
}
STEPS_PER_BEAT = 2  # controller points per beat in a ramp
EARLY = 0.06  # beats: how far ahead of its section a humanized note may start and still belong to it


def active_spans(role: str, arrangement: ArrangementPlan, beats_per_bar: float | MetreMap) -> list[tuple[float, float]]:
    """The beat spans in which `role` plays, adjacent sections merged (bars of `beats_per_bar`
    beats, or where a metre map puts them)."""
    metres = beats_per_bar

    def bar_start(bar: int) -> float:
        return metres.start(bar) if isinstance(metres, MetreMap) else (bar - 1) * metres

    named = frozenset(arrangement.all_roles())
    spans: list[tuple[float, float]] = []
    for sec in arrangement.sections:
        if not active_in(role, sec.roles, named):
            continue
        start, end = bar_start(sec.start_bar), bar_start(sec.start_bar + sec.bars)
        if spans and abs(spans[-1][1] - start) < 1e-9:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _inside(spans: list[tuple[float, float]], starts: list[float], t: float) -> int:
    """Index of the span holding time `t`, or -1."""
    i = bisect_right(starts, t + 1e-9) - 1
    return i if i >= 0 and t < spans[i][1] - 1e-9 else -1


def _silence(track: Track, spans: list[tuple[float, float]]) -> Track:
    starts = [s for s, _ in spans]
    out = Track(name=track.name, role=track.role, program=track.program, is_drum=track.is_drum,
                channel=track.channel)
    for n in track.notes:
        i = _inside(spans, starts, n.start + EARLY)
        if i < 0:
            continue
        if n.start < spans[i][0]:  # a downbeat played a hair early belongs to its section: it starts there
            n = type(n)(spans[i][0], max(0.01, n.end - spans[i][0]), n.pitch, n.velocity)
        end = spans[i][1]
        out.notes.append(n if n.end <= end + 1e-9 else type(n)(n.start, max(0.01, end - n.start), n.pitch, n.velocity))
    # set-up controllers at time 0 (bend range, …) always stay; the rest follow the notes
    out.controls = [c for c in track.controls if c.time == 0.0 or _inside(spans, starts, c.time) >= 0]
    out.pitch_bends = [b for b in track.pitch_bends if _inside(spans, starts, b.time) >= 0]
    out.aftertouch = [a for a in track.aftertouch if _inside(spans, starts, a.time) >= 0]
    out.poly_aftertouch = [a for a in track.poly_aftertouch if _inside(spans, starts, a.time) >= 0]
    out.program_changes = list(track.program_changes)
    return out


def _ramp(sec: SectionPlan, nxt: SectionPlan | None, ramp: Ramp, metres: MetreMap) -> list[ControlChange]:
    end = metres.start(sec.start_bar + sec.bars)
    start = metres.start(sec.start_bar + sec.bars - min(ramp.bars, sec.bars))
    length = end - start
    points = max(2, int(length * STEPS_PER_BEAT))
    ccs = [ControlChange(start + length * i / points, ramp.control,
                         round(ramp.start + (ramp.end - ramp.start) * i / (points - 1)))
           for i in range(points)]
    if nxt is not None:
        ccs.append(ControlChange(end, ramp.control, ramp.reset))
    return ccs


def assemble(parts: list[Track], intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> Song:
    """One `Song` from the generated parts, laid out by the arrangement."""
    metres = metre_map(intent, arrangement)
    song = Song(
        title=intent.raw_prompt.strip()[:80] or intent.summary, tempo=intent.tempo, time_signature=metres.opening,
        metre_changes=list(metres.changes),
        key=f"{harmony.key} {harmony.mode}",
        # the MIDI writer puts one marker per section on the conductor track
        sections=[Section(s.name, s.start_bar, s.bars, s.energy) for s in arrangement.sections],
    )
    named = frozenset(arrangement.all_roles())
    tracks = [_silence(t, active_spans(t.role, arrangement, metres)) for t in parts]
    sections = arrangement.sections
    for i, sec in enumerate(sections):
        ramp = TRANSITIONS.get(sec.transition)
        if ramp is None:
            continue
        nxt = sections[i + 1] if i + 1 < len(sections) else None
        ccs = _ramp(sec, nxt, ramp, metres)
        for t in tracks:
            if active_in(t.role, sec.roles, named) and not (t.is_drum and ramp.control == 74):
                t.controls.extend(ccs)
    song.tracks = tracks
    for t, channel in zip(tracks, assign_channels(song), strict=True):
        t.channel = channel
        t.sort()
    return song
