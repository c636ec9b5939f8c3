"""The pad and the hand percussion: sustained voicings held across repeated
chords (struck once, however busy the mood; re-struck when asked) with expression swells (CC11) that follow the energy, and a
hand-percussion layer (shakers, congas, claves…) per drum family."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from bandstand.craft.density import (
    COMP_FLOOR,
    FILLING_COMPS,
    LIFT_ENERGY,
    above_floor,
    doubled,
    steady,
    thinned,
    timekeeping_every,
)
from bandstand.craft.kit import (
    CABASA,
    CLAVES,
    COWBELL,
    HIGH_BONGO,
    LOW_BONGO,
    LOW_CONGA,
    MUTE_CONGA,
    OPEN_CONGA,
    SHAKER,
    STEP_VELOCITY,
    TAMBOURINE,
)
from bandstand.craft.knobs import Raw, bar_rng, feel_of, reshape, root_position
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation
from bandstand.craft.style import Style
from bandstand.score import ControlChange

PAD_CENTRE = 64
ELECTRONIC_PAD = 0.5  # from this electronic dial on, the pad is the genre's sound and stays in its drops  # the pad sits around E4, above the comping

# Hand percussion per drum family: (note, 16-step pattern).
PERCUSSION: dict[str, tuple[tuple[int, str], ...]] = {
    "afrobeat": ((OPEN_CONGA, "......x.......x."), (LOW_CONGA, "...........o...."), (SHAKER, "ogogogogogogogog")),
    "bossa": ((CABASA, "xoxoxoxoxoxoxoxo"), (CLAVES, "x..x..x...x..x..")),
    "dembow": ((HIGH_BONGO, "..x...x...x...x."), (LOW_BONGO, "...x.......x...."), (SHAKER, "x.x.x.x.x.x.x.x.")),
    "four_on_floor": ((TAMBOURINE, "..x...x...x...x."), (SHAKER, "xoxoxoxoxoxoxoxo")),
    "funk": ((TAMBOURINE, "....x.......x..."), (MUTE_CONGA, "..o...x...o..x..")),
    "jazz_ride": ((SHAKER, "o.o.o.o.o.o.o.o."),),
    "trap": ((SHAKER, "..x...x...x...x."),),
    "one_drop": ((SHAKER, "x.x.x.x.x.x.x.x."), (COWBELL, "........x.......")),
}
DEFAULT_PERCUSSION = ((SHAKER, "xoxoxoxoxoxoxoxo"), (TAMBOURINE, "....x.......x..."))
# Genres whose kit is already a percussion section (a salsa's timbales, congas and clave): the
# percussion part is the one hand the kit lacks, by section — (below the lift, from the lift).
# Salsa's bongocero plays the martillo in the verse and takes up the bongo bell, on the beat,
# for the coro and the montuno; the clave and the congas stay the kit's.
GENRE_PERCUSSION: dict[str, tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]] = {
    "salsa": (((HIGH_BONGO, "X.o.x.o.X.o.x.o."),), ((COWBELL, "X...x...X...x..."),)),
}


def pad_shift(bars: list[Bar]) -> int:
    """One octave shift for the whole pad, so the voice leading of stage 2 survives intact."""
    pitches = sorted(p for b in bars for p in b.chord.pitches)
    if not pitches:
        return 0
    return 12 * round((PAD_CENTRE - pitches[len(pitches) // 2]) / 12)


def play_pad(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "pad") -> Phrase:
    """Held voicings with swells; the pad drops out of the busy sections (at or above the lift,
    where a comping that fills the bar plays too: `FILLING_COMPS`; not in electronic idioms)
    until the last peak, so a verse has its bed and a chorus its drive."""
    bars = [b for b in sit.active(role) if not _drops_out(sit, b)]
    notes: list[Raw] = []
    ccs: list[ControlChange] = []
    spans: list[tuple[float, float, Bar]] = []
    for bar in bars:  # merge held chords
        end = bar.start + sit.beats_per_bar
        if spans and spans[-1][2].chord.symbol == bar.chord.symbol and abs(spans[-1][1] - bar.start) < 1e-6 \
                and bar.bar_in_section != 0 and not bar.final:
            spans[-1] = (spans[-1][0], end, spans[-1][2])
        else:
            spans.append((bar.start, end, bar))
    shift = pad_shift(bars)
    seed = rng.getrandbits(64)
    for start, end, bar in spans:
        length = end - start
        vel = max(1, min(127, round(62 + 30 * bar.energy)))
        pitches = root_position(bar.chord.pitches, bar.chord.root) if bar.final else bar.chord.pitches
        style = styles[bar.index]  # a pad holds its voicing: a busy mood thins it, never re-strikes it
        style = replace(style, density=steady(style.density, sit.mood_density))
        notes.extend(above_floor(reshape([(start, length - 0.05, p + shift, vel) for p in pitches],
                                         style, 36, 96, end), COMP_FLOOR))
        peak = round(70 + 50 * bar.energy)
        floor = round(peak * 0.55)
        points = max(4, int(length * 2))
        crest = bar_rng(seed, bar.index).uniform(0.3, 0.5)  # where the swell peaks, varied per chord
        for i in range(points):  # swell up to the crest, ease back after
            x = i / points
            level = floor + (peak - floor) * (x / crest if x < crest else 1.0 - 0.35 * (x - crest) / (1 - crest))
            ccs.append(ControlChange(start + x * length, 11, max(0, min(127, round(level)))))
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style="sustained_swells", controls=tuple(ccs),
                  feel=feel_of(sit, styles, role, swing=False))


def _drops_out(sit: Situation, bar: Bar) -> bool:
    return (not sit.looping and not bar.final and bar.section_energy >= LIFT_ENERGY
            and not doubled(bar.section_energy) and sit.idiom.comp_style in FILLING_COMPS
            and sit.idiom.electronic < ELECTRONIC_PAD
            and sit.is_active("chords", bar))


def play_percussion(sit: Situation, styles: Sequence[Style], rng: random.Random,
                    role: str = "percussion") -> Phrase:
    family = PERCUSSION.get(sit.idiom.drum_family, DEFAULT_PERCUSSION)
    by_section = GENRE_PERCUSSION.get(sit.idiom.kit)
    raw: list[Raw] = []
    seed = rng.getrandbits(64)
    for bar in sit.active(role):
        r = bar_rng(seed, bar.index)
        every = 1 if sit.looping else timekeeping_every(bar.section_energy, bar.energy)
        layers = family if by_section is None else by_section[bar.section_energy >= LIFT_ENERGY]
        for i, (note, pattern) in enumerate(layers):
            if bar.energy < 0.3 + 0.15 * i or (i and every > 1 and not doubled(bar.section_energy)):
                continue  # below the lift one hand plays, thinned as the hats are
            hits = thinned([k for k in range(sit.steps) if pattern[k % len(pattern)] != "."], every)
            for step in hits:
                ch = pattern[step % len(pattern)]
                if r.random() < 0.92:
                    vel = round(STEP_VELOCITY[ch] * (0.6 + 0.35 * bar.energy))
                    raw.append((bar.start + step * 0.25, 0.2, note, max(1, min(127, vel))))
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in raw), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), is_drum=True, style="hand_percussion", feel=feel_of(sit, styles, role))
