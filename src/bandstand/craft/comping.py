"""The keyboard/guitar comper: plays the voicings stage 2 voice-led, in the
genre's comping rhythm (stabs, sustained pads of keys, jazz comping,
reggae skanks, arpeggios, strums, gospel shouts, ballad piano, house chops),
with the sustain pedal (CC64) for pianos and electric pianos."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bandstand.craft.knobs import Raw, bar_rng, feel_of, reshape
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
GOSPEL_CELLS = (((0, 3), (3, 2), (6, 2), (8, 3), (11, 2), (14, 2)), ((0, 6), (6, 2), (8, 4), (12, 4)))
# Strum patterns by energy: half notes when calm, a verse's down-up eighths, a chorus's busy sixteenths.
STRUMS = (
    (0.45, ((0, 8, "d"), (8, 8, "d"))),
    (0.7, ((0, 4, "d"), (6, 2, "u"), (8, 4, "d"), (14, 2, "u"))),
    (9.9, ((0, 3, "d"), (3, 1, "u"), (4, 2, "d"), (6, 2, "u"), (8, 2, "d"), (10, 2, "u"), (12, 2, "d"),
           (14, 2, "u"))),
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
    rootless = voicing[1:] if len(voicing) >= 4 else voicing  # the bass has the root
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
    big = voicing + ((voicing[-1] + 12,) if voicing[-1] + 12 <= 88 else ())
    if bar.energy < 0.4:
        return [(0, sit.steps - 0.5, 80, big)]
    cell = GOSPEL_CELLS[0] if bar.energy >= 0.7 else GOSPEL_CELLS[1]  # the shout when the church is up
    return [(s, ln, 96 if s % 8 == 0 else 84, big) for s, ln in cell]


def _ballad(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    root = voicing[0] - 12 if voicing[0] - 12 >= 36 else voicing[0]
    left = [(0.0, 8.0, 84, (root, root + 7)), (8.0, 8.0, 76, (root + 12,))]
    every = 2 if bar.energy >= 0.7 else 4  # quarter-note arpeggios in a verse, eighths in a chorus
    right = [(float(s), float(every), 72 + (8 if s % 8 == 0 else 0), (voicing[(s // 2) % len(voicing)],))
             for s in range(0, sit.steps, every)]
    return left + right


def _house(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    return [(s, ln, 94, voicing) for s, ln in _scaled(HOUSE_CELLS, bar, rng)]


COMPS: dict[str, Comp] = {
    "stabs": _stabs, "sustained": _sustained, "jazz_comp": _jazz, "offbeat_skank": _skank,
    "arpeggiated": _arp, "strummed": _strum, "gospel_shout": _gospel, "piano_ballad": _ballad,
    "house_chops": _house,
}


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
    for bar in bars:
        style = styles[bar.index]
        voicing = tuple(p + lift for p in bar.chord.pitches)
        played: list[Raw] = []
        for step, length, vel, pitches in comp(sit, bar, voicing, bar_rng(seed, bar.index)):
            if step >= sit.steps:
                continue
            v = max(1, min(127, round(vel * (0.78 + 0.3 * bar.energy))))
            dur = max(0.05, min(length, sit.steps - step) * 0.25)
            for p in pitches:
                played.append((bar.start + step * 0.25, dur, p, v))
        notes.extend(reshape(played, style, 36, 96, bar.start + sit.beats_per_bar))
    notes.sort()
    controls: tuple[ControlChange, ...] = ()
    if name not in ("house_chops", "offbeat_skank", "stabs", "arpeggiated"):
        controls = tuple(pedal(bars, sit.beats_per_bar))
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style=name, controls=controls, feel=feel_of(sit, styles, role, lay_back="chords"))
