"""How much a band plays and where the comping sits: the reference range of notes
per bar (every part together) by drum family, and the floor the comping and pad
voicings keep above the bass register. One table, read by the generators and by
`benchmarks/songwriting.py`.

Source of the notes-per-bar figures: issue #30's review measured pop MIDI at
about 20 notes a bar for a band of drums, bass, chords and lead (our songs then
played ~40). The pop/rock range is centred on that figure; the other families
are scaled from it by how many hits their drum grid plays a bar (a dnb or metal
kit twice a ballad's) — a judgement anchored on one measured figure, not a
corpus measurement of each family."""

from __future__ import annotations

from bandstand.craft.knobs import Raw
from bandstand.craft.situation import CHORD_REGISTER

__all__ = ["COMP_FLOOR", "GUITAR_FLOOR", "LIFT_ENERGY", "NOTES_PER_BAR", "SPACIOUS_COMPS", "above_floor",
           "breathes", "comp_floor", "notes_per_bar_range", "spacious"]

# Comping and pad voicings stay at or above the bottom of the comping register (D3, where
# stage 2 voices its chords): the bass owns what is below, whatever the register knob asks.
COMP_FLOOR = CHORD_REGISTER[0]
# Rock, punk and metal guitars play their power chords low on the neck (E2, the open low string).
GUITAR_FLOOR = 40
LOW_STYLES = frozenset({"power_chords", "palm_mute"})
# From this section energy (choruses, drops, hooks) the band plays out; below it, it leaves space.
LIFT_ENERGY = 0.75
# Comping styles whose verse can leave space: the off-beat pushes after the first go and the
# voicing drops its octave doublings. Styles whose off-beats are the idiom (skanks, house chops, bossa,
# oom-pah, arpeggios, ostinatos, power chords, chugs) keep them.
SPACIOUS_COMPS = frozenset({"stabs", "sustained", "jazz_comp", "strummed", "gospel_shout", "piano_ballad"})

# drum family → (fewest, most) notes per bar, every part together
NOTES_PER_BAR: dict[str, tuple[float, float]] = {
    "rock_backbeat": (12.0, 28.0), "synthpop": (14.0, 30.0), "punk": (16.0, 34.0), "metal": (18.0, 40.0),
    "four_on_floor": (14.0, 32.0), "two_step": (14.0, 30.0), "breakbeat": (14.0, 32.0), "dnb": (16.0, 36.0),
    "trap": (12.0, 30.0), "boom_bap": (10.0, 26.0), "halftime": (10.0, 26.0), "garage_halftime": (10.0, 26.0),
    "funk": (14.0, 32.0), "afrobeat": (16.0, 34.0), "dembow": (12.0, 30.0), "bossa": (10.0, 28.0),
    "jazz_ride": (12.0, 30.0), "shuffle": (12.0, 28.0), "one_drop": (10.0, 24.0), "waltz": (6.0, 22.0),
    "cinematic": (6.0, 24.0), "ambient": (2.0, 14.0),
}
DEFAULT_RANGE = NOTES_PER_BAR["rock_backbeat"]


def notes_per_bar_range(drum_family: str) -> tuple[float, float]:
    """The reference range of notes per bar for a song of `drum_family` (pop/rock's when unknown)."""
    return NOTES_PER_BAR.get(drum_family, DEFAULT_RANGE)


def comp_floor(comp_style: str) -> int:
    """The lowest note a comping part of `comp_style` plays."""
    return GUITAR_FLOOR if comp_style in LOW_STYLES else COMP_FLOOR


def above_floor(notes: list[Raw], floor: int, ceiling: int = 96) -> list[Raw]:
    """`notes` kept at or above `floor`: a chord struck together (same onset) that reaches under
    it moves up by whole octaves as one, keeping its spacing (an open drop-2 voicing stays open),
    unless that would take its top past `ceiling`; then only its low notes are raised (a note
    that then doubles another of the chord is dropped)."""
    groups: dict[float, list[Raw]] = {}
    for n in notes:
        groups.setdefault(round(n[0], 3), []).append(n)
    out: list[Raw] = []
    for chord in groups.values():
        low, high = min(n[2] for n in chord), max(n[2] for n in chord)
        if low >= floor:
            out.extend(chord)
            continue
        lift = 12 * -(-(floor - low) // 12)
        if high + lift <= ceiling:
            out.extend((t, d, p + lift, v) for t, d, p, v in chord)
            continue
        seen: set[int] = set()
        for t, d, p, v in chord:
            while p < floor:
                p += 12
            if p not in seen:
                seen.add(p)
                out.append((t, d, p, v))
    return out


def spacious(comp_style: str, section_energy: float) -> bool:
    """Whether a comping bar of `comp_style` in a section of `section_energy` leaves space."""
    return comp_style in SPACIOUS_COMPS and section_energy < LIFT_ENERGY


def breathes(bar_in_section: int, bars_in_section: int, section_energy: float) -> str:
    """What the lead does in this bar of a section below the lift, as a singer breathes between
    eight-bar periods: "land" (the period's seventh bar lands and holds), "rest" (its eighth bar
    is left to the others: the counter-melody or the comping answers), or "" (sing as planned).
    Sections at or above the lift, and sections shorter than eight bars, sing through."""
    if section_energy >= LIFT_ENERGY or bars_in_section < 8:
        return ""
    at = bar_in_section % 8
    if bar_in_section >= bars_in_section - bars_in_section % 8:  # a tail shorter than a period
        return ""
    return "land" if at == 6 else "rest" if at == 7 else ""
