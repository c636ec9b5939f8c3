"""The band's density budget: how many notes a bar a section has room for, every part together,
and how a part that plays more than its share of it makes space. The room follows the section's
energy through the idiom's notes-per-bar range (`density.notes_per_bar_range`: its floor in a
silent bar, its ceiling at the song's peaks), and the roles playing there share it by weight.

The budget is planned, not measured on the other parts: each part keeps to its share alone, so
regenerating one part never changes another. A part over its share (with `SLACK`) gives way one
step at a time, in the order a producer thins a busy arrangement, until it fits or has no step
left, and a section at the lift only while it stays `LIFT_KEPT` times busier than the part's
busiest section below it (the chorus still lifts): in the kit, hand percussion keeping time in
sixteenths plays eighths through the section's first half (the percussionist comes in halfway),
then a shaker or tambourine sits out where the cymbals keep the time; hand percussion (its own
part) plays eighths, then rests below the lift;
comping voices its seventh chords as shells (no fifth), then (where its off-beats are not the idiom,
`density.SPACIOUS_COMPS`) keeps to the eighths, then to the beats, playing its whole figure where
the lead rests; below the lift the lead lands on the downbeat of the last bar of each four-bar
phrase and rests there (call and response with the comping); the pad holds its chords instead of
striking them again. The kit's backbone and figures (kick, snare, clap, hats and ride, ghost
notes, rim, congas, clave) and the bass are never thinned, and a part someone asked to play
busier plays as asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bandstand.craft.density import LIFT_ENERGY, SPACIOUS_COMPS, notes_per_bar_range
from bandstand.craft.kit import HAND_TIME, HIHATS, RIDE
from bandstand.craft.knobs import base_style
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation
from bandstand.craft.style import Style

__all__ = ["PEAK_ENERGY", "SLACK", "WEIGHT", "allowance", "section_budget", "within_budget"]

# A role's weight in a section's budget (its share among the roles playing there), from a busy
# band at its peak: a kit with a percussion layer ~0.4 of the notes, the comping a quarter, the bass
# and the lead a sixth each, a pad a few held chords.
WEIGHT: dict[str, float] = {
    "drums": 0.42, "bass": 0.18, "sub_bass": 0.1, "chords": 0.24, "arp": 0.14, "lead": 0.14,
    "counter_melody": 0.1, "pad": 0.06, "percussion": 0.12, "texture": 0.06, "fx": 0.02,
}
SLACK = 1.15  # a part gives way only when this far over its share: the budget is a ceiling, not a quota
# Comping styles a player voices as shells when the band is busy: the spacious ones and the bossa guitar.
SHELL_COMPS = SPACIOUS_COMPS | {"bossa_comp"}
SHELL_FROM = 4  # pitch classes of a chord from which comping may leave out its fifth
LIFT_KEPT = 1.5  # a section at the lift stays this much busier than the part's busiest one below it
PEAK_ENERGY = 0.9  # from this section energy the room is the idiom's whole ceiling
GRID = 0.25  # beats in a sixteenth
TOL = 1e-6
CYMBAL_TIME = HIHATS | {RIDE}

Events = list[NoteEvent]
Step = Callable[[Events, Sequence[Bar], Situation], Events]


def section_budget(low: float, high: float, energy: float) -> float:
    """Notes per bar a section of `energy` has room for, every part together: rising with the
    square of the energy, so a chorus has room to lift over its verse as each part does (a verse
    at half the peak's energy has a quarter of the range above the floor)."""
    return low + (high - low) * max(0.0, min(1.0, energy / PEAK_ENERGY)) ** 2


def allowance(role: str, s: Situation, bars: Sequence[Bar]) -> float:
    """The notes per bar `role` may play in the section of `bars`: the section's room, shared by
    weight among the roles that play there."""
    low, high = notes_per_bar_range(s.idiom.drum_family, s.idiom.name)
    playing = {r for b in bars for r in b.roles} | {role}
    total = sum(WEIGHT.get(r, 0.0) for r in playing)
    return section_budget(low, high, bars[0].section_energy) * WEIGHT.get(role, 0.0) / total if total else 0.0


def _step(t: float, bar: Bar) -> float:
    """Sixteenths from the start of `bar` to time `t` (beats)."""
    return (t - bar.start) / GRID


def _on(step: float, every: int) -> bool:
    return abs(step / every - round(step / every)) < TOL


def _bar_of(e: NoteEvent, bars: Sequence[Bar], bpb: float) -> Bar:
    return bars[min(len(bars) - 1, max(0, int((e.start + TOL) // bpb) - bars[0].index))]


def _keep(events: Events, bars: Sequence[Bar], s: Situation, kept: Callable[[NoteEvent, Bar], bool]) -> Events:
    return [e for e in events if kept(e, _bar_of(e, bars, s.beats_per_bar))]


def _answers(bar: Bar) -> bool:
    """The last bar of a four-bar phrase: where the comping answers a lead that rests."""
    return bar.bar_in_section % 4 == 3


def _drums_hands_enter_late(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """Hand percussion keeping time in sixteenths (a shaker, a tambourine) plays the eighths through
    the first half of the section and its whole figure from the second half: the percussionist
    comes in halfway, the drummer's lift is there from the first bar."""
    def kept(e: NoteEvent, bar: Bar) -> bool:
        return e.pitch not in HAND_TIME or 2 * bar.bar_in_section >= bar.bars_in_section or _on(_step(e.start, bar), 2)

    return _keep(events, bars, s, kept)


def _drums_one_timekeeper(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """A shaker or tambourine doubling the cymbals sits the section out (alone it keeps the time)."""
    if not any(e.pitch in CYMBAL_TIME for e in events):
        return events
    return [e for e in events if e.pitch not in HAND_TIME]


def _comp_shells(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """A seventh chord (four pitch classes or more) struck as a shell, as a comping guitarist or
    pianist thins it: without its fifth (the lowest note stays). Triads and power chords, and
    styles whose full voicing is their sound (a wall of distorted guitars, a strum), keep their
    voicing; the rhythm stays as written."""
    if s.idiom.comp_style not in SHELL_COMPS:
        return events
    out: Events = []
    low: dict[float, int] = {}
    for e in events:
        low[e.start] = min(low.get(e.start, 128), e.pitch)
    for e in events:
        harmony = _bar_of(e, bars, s.beats_per_bar).chord
        if len(harmony.pcs) >= SHELL_FROM and e.pitch % 12 == (harmony.root + 7) % 12 and e.pitch != low[e.start]:
            continue
        out.append(e)
    return out


def _comp_beats(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """Comping on the eighths, its whole figure where the phrase turns (a style whose off-beats are
    the idiom — a skank, a bossa, an ostinato — keeps them)."""
    if s.idiom.comp_style not in SPACIOUS_COMPS:
        return events
    return _keep(events, bars, s, lambda e, b: _answers(b) or _on(_step(e.start, b), 2))


def _comp_quarters(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """Comping on the beats under the lead, its figure where the lead rests (call and response)."""
    if s.idiom.comp_style not in SPACIOUS_COMPS:
        return events
    return _keep(events, bars, s, lambda e, b: _answers(b) or _on(_step(e.start, b), 4))


def _lead_answered(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """The lead lands on the downbeat of the last bar of each four-bar phrase and rests there (a
    beat of its landing note), leaving the bar to the comping's answer. At the lift it sings
    through, as it breathes only below it (`density.breathes`)."""
    if len(bars) < 4 or bars[0].section_energy >= LIFT_ENERGY:
        return events
    bpb = s.beats_per_bar
    out: Events = []
    for e in events:
        bar = _bar_of(e, bars, bpb)
        if _answers(bar):
            if abs(e.start - bar.start) < TOL:
                out.append(e._replace(duration=min(e.duration, s.pulse)))
            continue
        out.append(e)
    return out


def _pad_held(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """The pad strikes a chord once and holds it: a re-strike of the pitches still sounding goes."""
    out: Events = []
    for e in events:
        if any(o.pitch == e.pitch and o.start < e.start - TOL and o.start + o.duration >= e.start - TOL
               for o in out[-8:]):
            continue
        out.append(e)
    return out


def _percussion_eighths(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    return _keep(events, bars, s, lambda e, b: _on(_step(e.start, b), 2))


def _percussion_rests(events: Events, bars: Sequence[Bar], s: Situation) -> Events:
    """Hand percussion sits out a section below the lift."""
    return [] if bars[0].section_energy < LIFT_ENERGY else events


STEPS: dict[str, tuple[Step, ...]] = {
    "drums": (_drums_hands_enter_late, _drums_one_timekeeper),
    "percussion": (_percussion_eighths, _percussion_rests),
    "chords": (_comp_shells, _comp_beats, _comp_quarters),
    "arp": (_comp_beats,),
    "pad": (_pad_held,),
    "lead": (_lead_answered,),
    "counter_melody": (_lead_answered,),
}
"""How each role gives way, first step first; a role not here (the bass, the sub bass, a texture)
plays as written."""


def _asked(s: Situation, role: str, styles: Sequence[Style] | None) -> frozenset[int]:
    """The bars where someone asked `role` for more than the genre and the mood's words give it
    ("make the pad busier"): there it plays as asked."""
    if not styles:
        return frozenset()
    given = base_style(s, role).density + max(s.mood_density, 0.0) + TOL
    return frozenset(i for i, style in enumerate(styles) if style.density > given)


def within_budget(phrase: Phrase, s: Situation, styles: Sequence[Style] | None = None) -> Phrase:
    """`phrase` kept to its role's share of each section's budget (see the module docstring). A
    loop (the jam) plays as it is directed, a part of a role with no steps as written, and a
    section where `styles` (one a bar) ask the part for more density than the words gave it as
    asked."""
    steps = STEPS.get(phrase.role)
    if s.looping or not steps or not phrase.events:
        return phrase
    bpb = s.beats_per_bar
    asked = _asked(s, phrase.role, styles)
    sections: dict[int, list[Bar]] = {}
    for bar in s.active(phrase.role):
        sections.setdefault(bar.section, []).append(bar)
    for bars in list(sections.values()):
        if any(b.index in asked for b in bars):
            del sections[bars[0].section]
    by_bar: dict[int, Events] = {}
    for e in phrase.events:
        by_bar.setdefault(int((e.start + TOL) // bpb), []).append(e)
    changed = False
    out: Events = []
    below = 0.0  # the part's busiest section below the lift, as it plays it
    for bars in sorted(sections.values(), key=lambda bars: bars[0].section_energy >= LIFT_ENERGY):
        events = [e for b in bars for e in by_bar.pop(b.index, [])]
        room = allowance(phrase.role, s, bars) * SLACK * len(bars)
        lifted = bars[0].section_energy >= LIFT_ENERGY
        for step in steps:
            if len(events) <= room:
                break
            thinner = step(events, bars, s)
            if lifted and len(thinner) < LIFT_KEPT * below * len(bars):  # the chorus still lifts
                break
            changed = changed or len(thinner) != len(events)
            events = thinner
        if not lifted:
            below = max(below, len(events) / len(bars))
        out.extend(events)
    if not changed:
        return phrase
    out.extend(e for rest in by_bar.values() for e in rest)
    out.sort()
    return replace(phrase, events=tuple(out))
