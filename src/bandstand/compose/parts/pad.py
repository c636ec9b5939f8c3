"""The pad and the hand percussion: sustained voicings held across repeated
chords with expression swells (CC11) that follow the energy, and a
hand-percussion layer (shakers, congas, claves…) per drum family."""

from __future__ import annotations

import random

from bandstand.compose.parts.context import Bar, PartContext
from bandstand.compose.parts.drum_patterns import (
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
from bandstand.compose.parts.groove import Raw
from bandstand.score import ControlChange, Track

PAD_CENTRE = 64  # the pad sits around E4, above the comping

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


def pad_shift(bars: list[Bar]) -> int:
    """One octave shift for the whole pad, so the voice leading of stage 2 survives intact."""
    pitches = sorted(p for b in bars for p in b.chord.pitches)
    if not pitches:
        return 0
    return 12 * round((PAD_CENTRE - pitches[len(pitches) // 2]) / 12)


def generate_pad(ctx: PartContext, rng: random.Random, program: int) -> tuple[Track, str]:
    bars = ctx.active_bars("pad")
    notes: list[Raw] = []
    ccs: list[ControlChange] = []
    spans: list[tuple[float, float, Bar]] = []
    for bar in bars:  # merge held chords
        end = bar.start + ctx.beats_per_bar
        if spans and spans[-1][2].chord.symbol == bar.chord.symbol and abs(spans[-1][1] - bar.start) < 1e-6 \
                and bar.bar_in_section != 0:
            spans[-1] = (spans[-1][0], end, spans[-1][2])
        else:
            spans.append((bar.start, end, bar))
    shift = pad_shift(bars)
    for start, end, bar in spans:
        length = end - start
        vel = max(1, min(127, round(62 + 30 * bar.energy)))
        notes.extend((start, length - 0.05, p + shift, vel) for p in bar.chord.pitches)
        peak = round(70 + 50 * bar.energy)
        floor = round(peak * 0.55)
        points = max(4, int(length * 2))
        crest = rng.uniform(0.3, 0.5)  # where the swell peaks, varied per chord
        for i in range(points):  # swell up to the crest, ease back after
            x = i / points
            level = floor + (peak - floor) * (x / crest if x < crest else 1.0 - 0.35 * (x - crest) / (1 - crest))
            ccs.append(ControlChange(start + x * length, 11, max(0, min(127, round(level)))))
    played = ctx.humanizer("pad").apply(notes, rng, "pad", swing=False)
    track = Track(name="Pad", role="pad", program=program, notes=played, controls=ccs)
    return track, "sustained_swells"


def generate_percussion(ctx: PartContext, rng: random.Random, program: int) -> tuple[Track, str]:
    layers = PERCUSSION.get(ctx.traits.drum_family, DEFAULT_PERCUSSION)
    raw: list[Raw] = []
    for bar in ctx.active_bars("percussion"):
        for i, (note, pattern) in enumerate(layers):
            if bar.energy < 0.3 + 0.15 * i:
                continue
            for step in range(ctx.steps):
                ch = pattern[step % len(pattern)]
                if ch != "." and rng.random() < 0.92:
                    vel = round(STEP_VELOCITY[ch] * (0.6 + 0.35 * bar.energy))
                    raw.append((bar.start + step * 0.25, 0.2, note, max(1, min(127, vel))))
    notes = ctx.humanizer("percussion").apply(raw, rng, "percussion")
    return Track(name="Percussion", role="percussion", program=program, is_drum=True, notes=notes), "hand_percussion"
