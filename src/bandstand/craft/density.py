"""How much a band plays and where the comping sits: the reference range of notes
per bar (every part together) by drum family, the floor the comping and pad
voicings keep above the bass register, and where the band leaves space (the lead
breathes, the comping answers it, the hats thin below the chorus's lift). One
table, read by the generators and by `benchmarks/songwriting.py`.

Source of the notes-per-bar figures. Notes are counted as a MIDI reader counts
them: every struck pitch (a four-note chord is four notes, a kick under a hat two).
Issue #30's review put pop MIDI at about 20 notes a bar; counted that way that
cannot hold a band: the canonical pop/rock verse alone — eighth-note hats, kick
and snare (13), a bass in quarters to eighths (4–8), a guitar or keys striking a
three- or four-note chord on the strong beats (6–8), a sung line (3–6) — plays
26–35, and a chorus strumming eighths over the same kit 45–55; with intros, breaks
and outros at half that, a song averages about 32. The pop/rock range is
centred there (20–45: a sparse ballad to a chorus-heavy anthem); the other
families keep the first table's proportions (scaled from rock by how many hits
their grids play a bar: a dnb or metal kit twice a ballad's; ambient and film
music far below), all × 1.6. A part-count model, not a corpus measurement: a
pop MIDI corpus counted the same way should replace it when one is at hand."""

from __future__ import annotations

from bandstand.craft.knobs import Raw
from bandstand.craft.situation import CHORD_REGISTER

__all__ = ["COMP_FLOOR", "FILLING_COMPS", "GUITAR_FLOOR", "HUSH_ENERGY", "LAST_PEAK_ENERGY", "LIFT_ENERGY", "NOTES_PER_BAR",
           "RANGE_FAMILY", "SPACIOUS_COMPS", "STEADY_BASSES", "STEADY_COMPS", "above_floor", "answers", "breathes",
           "comp_floor", "doubled", "notes_per_bar_range", "spacious", "steady", "thinned", "timekeeping_every"]

# Comping and pad voicings stay at or above the bottom of the comping register (D3, where
# stage 2 voices its chords): the bass owns what is below, whatever the register knob asks.
COMP_FLOOR = CHORD_REGISTER[0]
# Rock, punk and metal guitars play their power chords, a blues guitar its boogie, low on the neck
# (E2, the open low string).
GUITAR_FLOOR = 40
LOW_STYLES = frozenset({"power_chords", "palm_mute", "boogie"})
# From this section energy (choruses, drops, hooks) the band plays out; below it, it leaves space.
LIFT_ENERGY = 0.75
# Below this bar energy (intros, breaks, outros) the time-keeping drums play quarters.
HUSH_ENERGY = 0.45
# The song's last peak (its section energy lifted above every other chorus's): where a second
# time-keeper (a tambourine over the hats, a shaker over the ride) joins.
LAST_PEAK_ENERGY = 0.93
# Comping styles whose verse can leave space: the off-beat pushes after the first go and the
# voicing drops its octave doublings. Styles whose off-beats are the idiom (skanks, house chops, bossa,
# oom-pah, arpeggios, ostinatos, power chords, chugs) keep them.
SPACIOUS_COMPS = frozenset({"stabs", "sustained", "jazz_comp", "strummed", "gospel_shout", "piano_ballad",
                            "rhodes_comp"})

# Comping styles whose rhythm is a steady pulse the section sets (a metal or punk guitar's chugs: eighths
# in a verse, sixteenths or ringing chords at the lift): the density knob does not add hits to them — a
# heavier mood plays the heavy sections heavier, not a verse in sixteenths.
STEADY_COMPS = frozenset({"palm_mute", "power_chords"})
# Bass figures of the same kind: a metal or punk bass doubling the chugs in eighths, and a funk
# (afrobeat, gospel) line whose syncopations and ghost notes are written out — its rests are the
# groove, and re-striking its notes on the sixteenths between fills them with chatter.
STEADY_BASSES = frozenset({"driving_eighths", "syncopated_funk"})



def steady(density: float, mood_density: float) -> float:
    """The density a steady figure (`STEADY_COMPS`, `STEADY_BASSES`) plays at: what the mood words
    added taken back (an angry verse chugs eighths, not sixteenths), what someone asked of the
    part since ("make the bass busier") kept."""
    return max(min(density, 0.5), density - max(mood_density, 0.0))


# Comping styles that fill the bar with the whole harmony (strums, arpeggiated guitars, held organ
# chords): at the lift the pad leaves the chorus to them (not in electronic idioms, where the pad
# is the drop's sound: trance's supersaw). Under stabs, chops and skanks the pad stays, and under
# power chords, chugs and the film ostinato (root, fifth, octave: no third): it holds the key there.
FILLING_COMPS = frozenset({"strummed", "arpeggiated", "gospel_shout", "piano_ballad", "bossa_comp", "drawbar",
                           "picked", "uke_strum", "banjo_roll", "bellows", "tango_marcato", "harpsichord", "tremolo",
                           "wall_of_sound"})

# drum family → (fewest, most) notes per bar, every part together
NOTES_PER_BAR: dict[str, tuple[float, float]] = {
    "rock_backbeat": (20.0, 45.0), "synthpop": (22.0, 48.0), "punk": (26.0, 54.0), "metal": (29.0, 64.0),
    "four_on_floor": (22.0, 51.0), "two_step": (22.0, 48.0), "breakbeat": (22.0, 51.0), "dnb": (26.0, 58.0),
    "trap": (19.0, 48.0), "boom_bap": (16.0, 42.0), "halftime": (16.0, 42.0), "garage_halftime": (16.0, 42.0),
    "funk": (22.0, 51.0), "afrobeat": (26.0, 54.0), "dembow": (19.0, 48.0), "bossa": (16.0, 45.0),
    "jazz_ride": (19.0, 48.0), "shuffle": (19.0, 45.0), "one_drop": (16.0, 38.0), "waltz": (10.0, 35.0),
    "cinematic": (10.0, 38.0), "ambient": (3.0, 22.0),
}
DEFAULT_RANGE = NOTES_PER_BAR["rock_backbeat"]
# A drum family names a feel (a groove template, a fill, a swing), and for most genres the band
# that plays it: the range follows. Where a genre plays a family's feel with another band, its
# range is that band's: salsa takes the "bossa" family's straight Latin sixteenths and clave, but
# a salsa band is a percussion section (timbales or bongo bell, congas, clave, a kick) over a
# piano montuno in constant eighths and a tumbao — afrobeat's shape (a kit, hand drums and a
# shaker over interlocking guitar, keys and bass), not a bossa nova trio's cross-stick and
# brushes. Chiptune plays a rock backbeat on a game console's synth voices — a pulse-wave bass
# in eighths, an arpeggiator rolling the chords, stabs and a square lead over noise drums —
# synthpop's band, not a rock band's. New age floats without drums as ambient music does, but
# its band is a harpist's (or pianist's) running arpeggios under a flute and a cello — a small
# orchestra's, the film score's range, not a drone's. (genre, the drum family it is played on) →
# the family whose range it takes.
RANGE_FAMILY: dict[tuple[str, str], str] = {("salsa", "bossa"): "afrobeat", ("chiptune", "rock_backbeat"): "synthpop",
                                            ("new age", "ambient"): "cinematic"}


def notes_per_bar_range(drum_family: str, genre: str = "") -> tuple[float, float]:
    """The reference range of notes per bar for a song of `genre` played on `drum_family`
    (pop/rock's when unknown)."""
    family = RANGE_FAMILY.get((genre, drum_family), drum_family)
    return NOTES_PER_BAR.get(family, DEFAULT_RANGE)


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


def answers(bar_in_section: int, bars_in_section: int, section_energy: float) -> bool:
    """Whether the comping answers in this bar (plays its whole figure, pushes and all): where the
    lead lands or rests (`breathes`), call and response; under the singing lead it keeps to the
    strong beats."""
    return breathes(bar_in_section, bars_in_section, section_energy) != ""


def timekeeping_every(section_energy: float, energy: float) -> int:
    """Every how many sixteenths a time-keeping drum voice (hats, ride, shaker, tambourine) plays
    at most in a bar: as written (1) from the lift, eighths (2) in a verse, quarters (4) in bars
    under `HUSH_ENERGY` (intros, breaks, outros) — the hats thin where the band leaves space."""
    if section_energy >= LIFT_ENERGY:
        return 1
    return 4 if energy < HUSH_ENERGY else 2


def thinned(steps: list[int], every: int) -> list[int]:
    """The hits of one time-keeping voice (sixteenth steps, in order) played at most every
    `every` sixteenths, counted from its first hit (an off-beat hat stays off the beat)."""
    if every <= 1 or not steps:
        return list(steps)
    first = steps[0]
    return [s for s in steps if (s - first) % every == 0]


def doubled(section_energy: float) -> bool:
    """Whether a second time-keeping drum voice joins the first in a section of `section_energy`:
    only in the last, loudest peak, as a band adds the tambourine for the final chorus."""
    return section_energy >= LAST_PEAK_ENERGY
