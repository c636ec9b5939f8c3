"""The keyboard/guitar comper: plays the voicings stage 2 voice-led, in the
genre's comping rhythm (stabs, sustained pads of keys, jazz comping,
reggae skanks, arpeggios, strums, gospel shouts, ballad piano, house chops, a blues
shuffle's boogie, a funk guitar's scratch),
with the sustain pedal (CC64) for pianos and electric pianos."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from bandstand.craft.density import (
    LIFT_ENERGY,
    STEADY_COMPS,
    above_floor,
    answers,
    comp_floor,
    doubled,
    spacious,
    steady,
)
from bandstand.craft.keyboards import HELD, KEYBOARD_COMPS, swells, tied
from bandstand.craft.knobs import Raw, bar_rng, feel_of, reshape, root_position
from bandstand.craft.ornaments import comp_suspension_chance, suspension_lift
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation
from bandstand.craft.style import Style
from bandstand.score import ControlChange

# A comp hit inside a bar: (step, length in steps, velocity, pitches)
Hit = tuple[float, float, int, tuple[int, ...]]
Comp = Callable[[Situation, Bar, tuple[int, ...], random.Random], list[Hit]]

# (step, length) rhythm cells; a style picks one per bar, denser as energy rises.
# Stabs and house chops are ordered sparse → busy: a bar picks from the pair its energy reaches.
STAB_CELLS = (((0, 3), (10, 3)), ((0, 4), (7, 2), (10, 2)), ((0, 3), (6, 2), (10, 3)),
              ((0, 2), (3, 2), (8, 3), (14, 2)), ((0, 2), (3, 2), (6, 2), (10, 2), (14, 2)))
JAZZ_CELLS = (((0, 5), (6, 2)), ((2, 2), (8, 4)), ((6, 2), (14, 2)), ((0, 2), (10, 3)), ((4, 2), (12, 3)), ((6, 3),))
HOUSE_CELLS = (((2, 1), (10, 1)), ((2, 1), (6, 1), (10, 1), (14, 1)), ((2, 1), (5, 1), (10, 1), (13, 1)),
               ((0, 1), (3, 1), (6, 1), (10, 1), (14, 1)), ((2, 1), (3, 1), (6, 1), (10, 1), (11, 1), (14, 1)))
GOSPEL_CELLS = (((0, 3), (3, 2), (6, 2), (8, 3), (11, 2), (13, 1), (14, 2)), ((0, 6), (6, 2), (8, 4), (12, 4)))
# Strum patterns by energy: half notes when calm, a verse's down-up eighths, a chorus's driving
# down, down-up, up-down-up (the eighth-note strum most pop and rock choruses ride).
STRUMS = (
    (0.45, ((0, 8, "d"), (8, 8, "d"))),
    (0.7, ((0, 4, "d"), (6, 2, "u"), (8, 4, "d"), (14, 2, "u"))),
    (9.9, ((0, 4, "d"), (4, 2, "d"), (6, 4, "u"), (10, 2, "u"), (12, 2, "d"), (14, 2, "u"))),
)


def _scaled(cells: tuple[tuple[tuple[int, int], ...], ...], bar: Bar, rng: random.Random) -> tuple[tuple[int, int], ...]:
    """A cell for the bar's energy from cells ordered sparse → busy: the one its energy
    reaches or the one below (a verse comps lightly, a chorus busily)."""
    level = min(len(cells) - 1, int(bar.energy * len(cells)))
    return cells[max(0, level - rng.randrange(2))]


def _stabs(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    if bar.energy < 0.35:
        return [(0, sit.steps - 1, 78, voicing)]
    return [(s, ln, 92 if s == 0 else 82, voicing) for s, ln in _scaled(STAB_CELLS, bar, rng)]


def _sustained(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Held chords, lightly comped the way a Rhodes player sits under a neo-soul song:
    the bar held when calm; a soft re-strike of the upper voices later in the bar
    as the song warms; the chord struck on 1 and 3 with a ghosted push when it is up."""
    steps = sit.steps
    if bar.energy < 0.4 or steps < 16 or len(voicing) < 3:
        return [(0, steps - 0.5, 80, voicing)]
    upper = voicing[-3:] if len(voicing) >= 4 else voicing[-2:]
    if bar.energy < 0.7:
        hits: list[Hit] = [(0, steps - 0.5, 80, voicing)]
        if rng.random() < 0.6:
            at = rng.choice((6, 10, 10, 11))
            hits.append((at, steps - at - 0.5, 58, upper))
        return hits
    hits = [(0, 7.5, 84, voicing), (8, 7.5, 76, voicing)]
    if rng.random() < 0.5:
        at = rng.choice((6, 14))
        hits.append((at, 1.6, 56, upper))
    return hits


def _jazz(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    rootless = tuple(p for p in voicing if p % 12 != bar.chord.root) if len(voicing) >= 4 else voicing  # the bass has it
    cells = JAZZ_CELLS[: 3 + round(bar.energy * 3)]
    hits = {s: ln for s, ln in rng.choice(cells)}
    if bar.energy >= 0.7:  # busier comping when the band is up: a second cell, overlaps dropped
        for s, ln in rng.choice(cells):
            if all(abs(s - t) >= 2 for t in hits):
                hits[s] = ln
    return [(s, ln, rng.randint(62, 86), rootless) for s, ln in sorted(hits.items())]


def _skank(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """The skank on 2 and 4; when the song is up the one-drop doubles it (the 'skank-a'
    on the 16th after) and dancehall chops every off-beat eighth."""
    top = voicing[-3:]
    up = bar.energy >= 0.7
    if sit.idiom.drum_family == "one_drop":
        steps: tuple[int, ...] = (4, 6, 12, 14) if up else (4, 12)
    else:
        steps = (2, 6, 10, 14) if up else (4, 12, 14) if bar.energy >= 0.4 else (4, 12)
    return [(s, 1.2, 88, top) for s in steps if s < sit.steps]


def _arp(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    step = 1 if bar.energy >= 0.7 else 2
    tones = [*voicing, voicing[1] + 12] if len(voicing) > 1 else list(voicing)
    shape = rng.choice(("up", "updown", "down"))
    seq = tones if shape == "up" else tones[::-1] if shape == "down" else tones + tones[-2:0:-1]
    return [(s, step * 0.9, 84 if s % 4 == 0 else 70, (seq[i % len(seq)],))
            for i, s in enumerate(range(0, sit.steps, step))]


def _strum(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    pattern = next(p for top, p in STRUMS if bar.energy < top)
    hits: list[Hit] = []
    for s, ln, direction in pattern:
        if s >= sit.steps:
            continue
        notes = voicing if direction == "d" else tuple(reversed(voicing[-3:]))
        for i, p in enumerate(notes):  # one string after another, ~15 ms apart
            hits.append((s + i * 0.12, ln - i * 0.12, 90 if direction == "d" else 70, (p,)))
    return hits


def _gospel(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    last = doubled(bar.section_energy)  # the last chorus: the octave on top and the shout's sixteenth pickup
    big = voicing + ((voicing[-1] + 12,) if voicing[-1] + 12 <= 88 and (last or bar.energy < 0.7) else ())
    if bar.energy < 0.4:
        return [(0, sit.steps - 0.5, 80, big)]
    cell: tuple[tuple[int, int], ...] = GOSPEL_CELLS[0] if bar.energy >= 0.7 else GOSPEL_CELLS[1]  # the shout when up
    if bar.energy >= 0.7 and not last:
        cell = tuple((s, ln + 1 if s == 11 else ln) for s, ln in cell if s != 13)
    # both hands on one and three; between them the right hand alone stabs the upper voices
    return [(s, ln, 96, big) if s % 8 == 0 else (s, ln, 84, voicing[-3:]) for s, ln in cell]


def _ballad(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    root = voicing[0] - 12 if voicing[0] - 12 >= 36 else voicing[0]
    left = [(0.0, 8.0, 84, (root, root + 7)), (8.0, 8.0, 76, (root + 12,))]
    every = 2 if bar.energy >= 0.7 else 4  # quarter-note arpeggios in a verse, eighths in a chorus
    right = [(float(s), float(every), 72 + (8 if s % 8 == 0 else 0), (voicing[(s // 2) % len(voicing)],))
             for s in range(0, sit.steps, every)]
    return left + right


def _house(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    return [(s, ln, 94, voicing) for s, ln in _scaled(HOUSE_CELLS, bar, rng)]


def _power(bar: Bar) -> tuple[int, ...]:
    """The chord as a guitarist's power chord: root, fifth and octave, low on the neck."""
    root = 40 + (bar.chord.root - 40) % 12
    return (root, root + 7, root + 12)


def _power_chords(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Punk: down-strokes on every eighth — root and fifth, choked, in the verse; root,
    fifth and octave ringing in the chorus; quarters when it is quiet."""
    up = bar.energy >= 0.7
    chord = _power(bar) if up else _power(bar)[:2]
    step = 2 if bar.energy >= 0.4 else 4
    return [(s, 1.8 if up else 1.2, 104 if s % 4 == 0 else 92, chord) for s in range(0, sit.steps, step)]


def _palm_mute(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Metal: palm-muted chugs under the riff (sixteenths once it is up), the chord let ring
    on the one and the three when the chorus opens — ringing, not chugged under (the palm
    comes off the strings for it): the chugs answer in the second beat of each half."""
    chord = _power(bar)
    step = 1 if bar.energy >= 0.75 else 2
    hits: list[Hit] = [(s, 0.7, 100 if s % 4 == 0 else 86, chord[:2]) for s in range(0, sit.steps, step)]
    if bar.section_energy >= 0.85:
        hits = [h for h in hits if h[0] % 8 >= 4] + [(0, 3.5, 118, chord), (8, 3.5, 112, chord)]
    return hits


def _oompah(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Waltz: the 'pah-pah' on beats two and three (the bass has the 'oom'); when the
    dance is up the 'pah's are doubled an octave higher and the three is echoed."""
    upper = voicing[-3:]
    if sit.steps != 12:  # a polka in two: the 'pah' on two and four, on every 'and' as well when it is up
        pahs = range(4, sit.steps, 8) if bar.energy < 0.7 else [*range(2, sit.steps, 4)]
        return [(s, 1.6, 80 if s % 8 == 4 else 70, upper) for s in pahs]
    if bar.energy < 0.7:
        return [(s, 3.0, 78 if s == 4 else 72, upper) for s in (4, 8) if s < sit.steps]
    bright = upper + tuple(p + 12 for p in upper[-1:])
    return [(s, 1.8, 84 if s == 4 else 76, bright) for s in (4, 8, 10) if s < sit.steps]


# The shuffle's second string above the root, beat by beat: fifth, sixth, fifth, sixth; the busy
# bar reaches up to the flat seventh on three.
BOOGIE = ((7, 9, 7, 9), (7, 9, 10, 9))


def _boogie(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Blues rhythm guitar: the shuffle boogie on the two low strings — root and fifth, root and
    sixth, a pair on every (swung) eighth, down-strokes on the beat, once the song is up; pairs
    on the beat only in a verse or when it is quiet."""
    root = _power(bar)[0]
    upper = BOOGIE[int(bar.energy >= 0.7)]
    step = 2 if bar.energy >= 0.6 else 4
    return [(s, step * 0.8, 96 if s % 4 == 0 else 80, (root, root + upper[(s // 4) % 4]))
            for s in range(0, sit.steps, step)]


# Funk rhythm guitar's accented chops (one bar of sixteenths, ``X`` a chord struck); the strokes
# between are muted strings scratched in time.
SCRATCH_CELLS = ("X..x..X...X..x..", "..X..X..X..X.X..", "X...X.x..X..X.x.")


def _scratch(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Funk 'chicken scratch': the right hand never stops — sixteenths once it is up, most of them muted
    (a short, quiet scratch of the strings, heard at the root the grip holds), a few let through
    as chord chops on a grip that keeps the root (`_with_root`). The chorus scratches the
    eighths between its chops; a verse, and a quiet bar, keep the chops alone, with rests
    between (the slap bass and the hats fill the sixteenths there). Under the horns (the lead
    line) the guitar makes room as a funk arranger has it: it scratches the 'and's alone, half as
    many strokes, so the horns' stabs sit in the gaps, and its lighter chops wait for the
    section's second half, where it digs in with the horns towards the next section."""
    top = _with_root(voicing[-3:], bar.chord.root)
    muted = next((p for p in top if p % 12 == bar.chord.root % 12), top[-1])
    cell = SCRATCH_CELLS[rng.randrange(len(SCRATCH_CELLS))]
    horns = "lead" in bar.roles
    light = not horns or 2 * bar.bar_in_section >= bar.bars_in_section  # the lighter chops: not under the horns' first half
    every = (4 if horns else 2) if bar.section_energy >= LIFT_ENERGY else 0
    hits: list[Hit] = []
    for s in range(min(sit.steps, len(cell))):
        if cell[s] == "X" or (cell[s] == "x" and bar.energy >= 0.6 and light):
            hits.append((s, 0.9, 100 if cell[s] == "X" else 88, top))
        elif every and s % every == (2 if horns else 0):
            hits.append((s, 0.35, 46, (muted,)))  # the muted strings: a click more than a chord
    return hits


def _with_root(shape: tuple[int, ...], root: int) -> tuple[int, ...]:
    """A funk guitar's chop shape on the top strings with the chord's root in it: the grip keeps
    its top note and trades its lowest for the root (a grip without the root, chopped sixteen
    times a bar, names another chord: an E minor 7 chopped as G-B-D is heard as G)."""
    if len(shape) < 2 or any(p % 12 == root % 12 for p in shape):
        return shape
    below = shape[0] - (shape[0] - root) % 12  # the root below the grip's lowest note
    inside = below + 12 < shape[-1]  # an octave up it lies within the grip, under its top note
    return tuple(sorted((below + 12 if inside else below, *shape[1:])))


BOSSA_CELLS = ((0, 3, 6, 10, 12), (2, 6, 8, 12, 14))


def _bossa(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Bossa nova guitar: the thumb on one and three, the fingers on the two-bar
    syncopation (only its first strokes when the song is quiet)."""
    thumb = (voicing[0],)
    upper = voicing[1:] if len(voicing) > 2 else voicing
    full = BOSSA_CELLS[bar.bar_in_section % 2]
    cell: tuple[int, ...] = full if bar.energy >= 0.7 else full[:3] if bar.energy >= 0.4 else full[:1]
    return [(0, 7.5, 84, thumb), (8, 7.5, 80, thumb)] + [(s, 1.6, 76, upper) for s in cell if s < sit.steps]


def _ostinato(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Film strings: one figure on root, fifth and octave in every bar, quarters when calm,
    eighths as it builds, sixteenths at the climax, swelling through the section."""
    root = 48 + (bar.chord.root - 48) % 12
    figure = (root, root + 7, root + 12, root + 7)
    step = 4 if bar.energy < 0.4 else 2 if bar.energy < 0.85 else 1
    swell = round(16 * bar.bar_in_section / max(1, bar.bars_in_section - 1))
    return [(s, step * 0.9, 70 + swell + (8 if s % 4 == 0 else 0), (figure[(s // step) % 4],))
            for s in range(0, sit.steps, step)]


COMPS: dict[str, Comp] = {
    "stabs": _stabs, "sustained": _sustained, "jazz_comp": _jazz, "offbeat_skank": _skank,
    "arpeggiated": _arp, "strummed": _strum, "gospel_shout": _gospel, "piano_ballad": _ballad,
    "house_chops": _house, "power_chords": _power_chords, "palm_mute": _palm_mute, "oompah": _oompah,
    "bossa_comp": _bossa, "ostinato": _ostinato, "boogie": _boogie, "chicken_scratch": _scratch, **KEYBOARD_COMPS,
}
UNPEDALLED = frozenset({"house_chops", "offbeat_skank", "stabs", "arpeggiated", "power_chords", "palm_mute",
                        "oompah", "ostinato", "drawbar", "clav_chops", "boogie", "chicken_scratch"})


def revoice(bar: Bar, voicing: tuple[int, ...]) -> tuple[int, ...]:
    """The voicing as this section wants it: the plan's close, voice-led voicing in verses;
    opened up where the song peaks (drop 2 — the second voice from the top down an octave —
    or a triad's middle voice up an octave); turned over (the lowest voice up an octave) in
    bridges and breaks; the last chord in root position, its root at the bottom."""
    if bar.final:
        return root_position(voicing, bar.chord.root)
    if len(voicing) < 3:
        return voicing
    if bar.kind in ("chorus", "drop", "hook") or bar.section_energy >= 0.85:
        spread = sorted(voicing)
        if len(spread) >= 4:  # drop 2: the second voice from the top down an octave
            second = spread.pop(-2)
            return tuple(sorted([second - 12, *spread]))
        middle = spread.pop(1)  # a triad in open position: the middle voice up an octave
        return tuple(sorted([*spread, middle + 12]))
    if bar.kind in ("bridge", "break"):
        turned = sorted(voicing)
        return tuple(sorted([*turned[1:], turned[0] + 12]))
    return voicing


def _leave_space(hits: list[Hit], steps: int, answer: bool) -> list[Hit]:
    """A verse's comping, with room for the melody, each voicing without its octave doublings
    (the chord is all there, once): under the singing lead only the strong beats (one, and
    the half bar in an even metre); where the lead lands or rests the comping answers — the
    hits on the beat and the first push off it."""
    strong = (0.0, steps / 2) if steps % 8 == 0 else (0.0,)
    kept: list[Hit] = []
    pushed = False
    for step, length, vel, pitches in hits:
        on_beat = abs(step - round(step / 4) * 4) < 0.5
        if not answer and not any(abs(step - b) < 0.5 for b in strong):
            continue
        if not on_beat:
            if pushed:
                continue
            pushed = True
        single: dict[int, int] = {}
        for p in pitches:  # the lowest of each pitch class is kept
            single.setdefault(p % 12, p)
        kept.append((step, length, vel, tuple(sorted(single.values()))))
    return kept


def _suspended(sit: Situation, bar: Bar, previous_pcs: tuple[int, ...], hits: list[Hit]) -> list[Hit]:
    """The bar's hits with a prepared 4–3 suspension in the inner voice (on any chord but the
    tonic): the first half plays the fourth the previous chord held in place of the third, the
    second half resolves it (a hit held across the middle is split there)."""
    lift = suspension_lift(bar, previous_pcs, sit.scale)
    third = bar.chord.third
    half = sit.steps / 2
    if lift is None or bar.chord.root == sit.tonic \
            or not any(step >= half or step + length > half + 0.5 for step, length, _, _ in hits):
        # the tonic chord keeps its third (it names the mode: suspended, a vamp loses its key);
        # and with nothing in the second half to resolve it, there is no suspension
        return hits
    out: list[Hit] = []
    for step, length, vel, pitches in hits:
        if step >= half:
            out.append((step, length, vel, pitches))
            continue
        early = tuple(p + lift if p % 12 == third else p for p in pitches)
        if step + length > half + 0.5 and early != pitches:
            out.append((step, half - step, vel, early))
            out.append((half, step + length - half, max(1, vel - 10), pitches))
        else:
            out.append((step, length, vel, early))
    return out


def pedal(bars: list[Bar], beats_per_bar: float) -> list[ControlChange]:
    """Sustain pedal: down just after each chord starts, up just before the next chord."""
    ccs: list[ControlChange] = []
    for bar in bars:
        ccs.append(ControlChange(bar.start + 0.05, 64, 127))
        ccs.append(ControlChange(bar.start + beats_per_bar - 0.06, 64, 0))
    return ccs


def play_chords(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "chords",
                comp_style: str | None = None) -> Phrase:
    name = comp_style or sit.idiom.comp_style
    comp = COMPS.get(name, _sustained)
    notes: list[Raw] = []
    bars = sit.active(role)
    lift = 12 if role == "arp" else 0  # the arpeggiator sparkles an octave above the comping
    seed = rng.getrandbits(64)
    floor = comp_floor(name)
    chance = 0.0 if sit.diatonic_only else comp_suspension_chance(sit.idiom.harmonic)
    previous: Bar | None = None
    for bar in bars:
        style = styles[bar.index]
        voicing = revoice(bar, tuple(p + lift for p in bar.chord.pitches))
        played: list[Raw] = []
        hits = comp(sit, bar, voicing, bar_rng(seed, bar.index))
        if bar.final:  # the last chord, struck once and held
            hits = [(0, sit.steps * 0.95, 92, voicing if role != "arp" else voicing[:1])]
        elif previous is not None and previous.chord.symbol != bar.chord.symbol \
                and bar_rng(seed ^ 0x5EED, bar.index).random() < chance:
            hits = _suspended(sit, bar, previous.chord.pcs, hits)
        previous = bar
        if not bar.final and role != "arp" and spacious(name, bar.section_energy):
            # a jam's loop has no lead periods to answer: its comping keeps the push off the beat
            answer = sit.looping or answers(bar.bar_in_section, bar.bars_in_section, bar.section_energy)
            hits = _leave_space(hits, sit.steps, answer)
        for step, length, vel, pitches in hits:
            if step >= sit.steps:
                continue
            v = max(1, min(127, round(vel * (0.78 + 0.3 * bar.energy))))
            dur = max(0.05, min(length, sit.steps - step) * 0.25)
            for p in pitches:
                played.append((bar.start + step * 0.25, dur, p, v))
        if name in STEADY_COMPS:  # the chugs' rate is the section's, not the mood's (`density.steady`)
            style = replace(style, density=steady(style.density, sit.mood_density))
        notes.extend(above_floor(reshape(played, style, 36, 96, bar.start + sit.beats_per_bar), floor))
    notes.sort()
    controls: tuple[ControlChange, ...] = ()
    if name not in UNPEDALLED:
        controls = tuple(pedal(bars, sit.beats_per_bar))
    if name in HELD:
        notes = tied(notes, {b.start for b in bars if b.bar_in_section == 0 or b.final})
        controls = tuple(swells(bars, sit.beats_per_bar))
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style=name, controls=controls, feel=feel_of(sit, styles, role, lay_back="chords"))
