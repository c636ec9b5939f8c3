"""Texture and fx: the sounds around the music. Fx are sparse high blips on the
chord's tones (a texture artist changes colour, not the harmony). Textures are
the sounds a prompt names that are not instruments —
rain on the roof, the crackle of a dusty record. General MIDI has no samples
for them, so they are played on the drum kit's noise-like voices: rain as
soft drops at random thirty-seconds on cabasa, maracas and shaker (a drizzle of
about eight a bar when calm, a shower as the song swells: a listener hears one
wash of noise, so the drops stay few enough not to outnumber the band), crackle as sparse, very quiet clicks of side stick and wood block.
A texture runs from the first bar to the last and ignores the groove."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bandstand.craft import kit
from bandstand.craft.knobs import bar_rng, feel_of
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Situation
from bandstand.craft.style import Style

__all__ = ["BLIPS", "TEXTURE_VOICES", "play_fx", "play_texture"]

CABASA, MARACAS, SHAKER, SIDE_STICK, WOOD_BLOCK, LOW_WOOD_BLOCK = kit.CABASA, kit.MARACAS, kit.GM_SHAKER, \
    kit.SIDE_STICK, kit.HIGH_WOOD, kit.LOW_WOOD
CLOSED_HAT, CLAP = kit.CLOSED_HAT, kit.CLAP
# texture → (GM drum keys, hits per bar when calm, when full, velocity range)
TEXTURE_VOICES: dict[str, tuple[tuple[int, ...], int, int, tuple[int, int]]] = {
    "rain": ((CABASA, MARACAS, SHAKER), 8, 16, (10, 34)),
    "vinyl": ((SIDE_STICK, WOOD_BLOCK, LOW_WOOD_BLOCK), 3, 6, (5, 16)),
    "ticks": ((SIDE_STICK, CLOSED_HAT, CLAP), 1, 3, (60, 90)),  # an fx player's crushed clicks
}


def play_texture(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "texture") -> Phrase:
    events: list[NoteEvent] = []
    seed = rng.getrandbits(64)
    slots = max(1, round(sit.beats_per_bar * 8))  # thirty-seconds
    for bar in sit.active(role):
        r = bar_rng(seed, bar.index)
        for name in sit.textures or ("vinyl",):
            voices, calm, full, (lo, hi) = TEXTURE_VOICES.get(name, TEXTURE_VOICES["rain"])
            count = round(calm + (full - calm) * bar.energy * (0.5 + styles[bar.index].density))
            for at in sorted(r.sample(range(slots), min(slots, count))):
                events.append(NoteEvent(bar.start + at / 8, 0.1, r.choice(voices), r.randint(lo, hi)))
    events.sort()
    return Phrase(role=role, events=tuple(events), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), is_drum=True, style="+".join(sit.textures) or "vinyl",
                  feel=feel_of(sit, styles, role, swing=False))


# Which chord tones the blips take (indices into the chord's tones, root first), by idea.
BLIPS: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3), (2, 4), (0, 1, 2), (3, 2, 1))
FX_REGISTER = (84, 100)


def play_fx(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "fx") -> Phrase:
    """A few high blips a bar on the chord's tones (scale tones only), at sixteenths the
    idea picks; more of them with the energy and the density, never a wall."""
    events: list[NoteEvent] = []
    seed = rng.getrandbits(64)
    steps = sit.steps
    shape = BLIPS[sit.groove % len(BLIPS)]
    for bar in sit.active(role):
        r = bar_rng(seed, bar.index)
        style = styles[bar.index]
        count = max(1, min(4, round(1 + 3 * bar.energy * 2 * style.density)))
        tones = [pc for pc in bar.chord.pcs if pc in sit.scale] or list(sit.scale)
        lo, hi = FX_REGISTER
        for i, at in enumerate(sorted(r.sample(range(steps), min(steps, count)))):
            pc = tones[shape[i % len(shape)] % len(tones)]
            pitch = lo + (pc - lo) % 12 + 12 * (i % 2)
            events.append(NoteEvent(bar.start + at * 0.25, 0.25, min(pitch, hi), 70 + round(20 * bar.energy)))
    events.sort()
    return Phrase(role=role, events=tuple(events), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style="blips", feel=feel_of(sit, styles, role))
