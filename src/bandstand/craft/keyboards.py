"""How named keyboards and guitars comp when the prompt names them, in the comper's bar loop
(`comping.COMPS`): a Rhodes comps in short rootless shells with rests and anticipates the next
chord; a drawbar organ holds its chords, tied over the bar line while they do not change, and
swells them on the expression pedal; a clavinet chops sixteenths; a clean electric guitar picks
its chords one string at a time. So "rhodes" and "organ" in a prompt are two different parts."""

from __future__ import annotations

import random

from bandstand.craft.knobs import Raw
from bandstand.craft.situation import Bar, Situation
from bandstand.score import ControlChange

__all__ = ["KEYBOARD_COMPS", "clav", "drawbar", "picked", "rhodes", "swells", "tied"]

# A comp hit inside a bar: (step, length in steps, velocity, pitches), as `comping.Hit`
Hit = tuple[float, float, int, tuple[int, ...]]
Cells = tuple[tuple[tuple[float, float], ...], ...]


def _cell(cells: Cells, bar: Bar, rng: random.Random) -> tuple[tuple[float, float], ...]:
    """A cell for the bar's energy from cells ordered sparse → busy: the one its energy reaches
    or the one below."""
    level = min(len(cells) - 1, int(bar.energy * len(cells)))
    return cells[max(0, level - rng.randrange(2))]


# Rhodes comping cells (step, length), sparse → busy: short chords with rests between them, the
# way an electric piano answers a singer; a bar picks from the pair its energy reaches.
RHODES_CELLS: Cells = (((0, 3),), ((0, 3), (10, 2)), ((2, 2), (10, 3)), ((0, 2), (6, 3), (12, 2)),
                ((0, 2), (3, 2), (8, 2), (11, 3)))


def rhodes(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Rhodes: rootless voicings (the bass has the root; the fifth goes too in a four-note
    chord) struck short on a syncopated cell with
    rests between; where the chord changes, the last eighth anticipates the next chord in its
    voice-led voicing, so one chord leads into the next instead of being struck on the one."""
    def rootless(v: tuple[int, ...], root: int) -> tuple[int, ...]:
        kept = tuple(p for p in v if p % 12 != root)
        if len(kept) > 3:  # the fifth goes next (the most expendable tone), then the lowest left
            kept = tuple(p for p in kept if p % 12 != (root + 7) % 12)[-3:] or kept[-3:]
        return kept if len(kept) >= 2 else v
    shell = rootless(voicing, bar.chord.root)
    hits: list[Hit] = [(s, ln, 74 if s % 4 == 0 else 66, shell) for s, ln in _cell(RHODES_CELLS, bar, rng)
                       if s < sit.steps]
    if bar.chord_changes and not bar.section_end and sit.steps >= 8 and bar.energy >= 0.4:
        push = sit.steps - 2
        nxt = rootless(bar.next_chord.pitches, bar.next_chord.root)
        hits = [h for h in hits if h[0] + h[1] <= push] + [(push, 2, 70, nxt)]
    return hits


def drawbar(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Drawbar organ: the chord held the whole bar (and tied over while it does not change:
    `tied` merges the held notes), the top voice doubled an octave down inside the
    chord for the drawbars' body; when the band is up, re-pushed on the and of two and held
    through, the way a rock or soul organ leans into the groove."""
    inner = voicing[-1] - 12
    body = tuple(sorted({*voicing, inner})) if len(voicing) >= 3 and inner > voicing[0] else voicing
    if bar.energy < 0.7 or sit.steps < 16:
        return [(0, sit.steps, 82, body)]
    return [(0, 6, 88, body), (6, sit.steps - 6, 84, body)]


# Clavinet chops (sixteenth steps): the funk clav's syncopated, muted two-note stabs.
CLAV_CELLS = tuple(tuple((s, 0.6) for s in cell) for cell in (
    (0, 3, 6, 10), (0, 3, 7, 10, 13), (2, 3, 6, 9, 11, 14), (0, 2, 3, 6, 8, 10, 11, 14)))


def clav(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Clavinet: the chord's top two voices chopped short on a syncopated sixteenth cell (busier
    as the energy rises), each stab damped almost as soon as it sounds."""
    pair = voicing[-2:]
    return [(s, ln, 88 if s % 4 == 0 else 74, pair) for s, ln in _cell(CLAV_CELLS, bar, rng) if s < sit.steps]


def picked(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Clean electric guitar: the chord picked one string at a time and left ringing (a jangle,
    not a strum) — the lowest voice on every beat, the top two voices rocking between, in
    eighths (quarters when it is calm)."""
    low, top = voicing[0], voicing[-2:] if len(voicing) >= 3 else voicing
    step = 2 if bar.energy >= 0.4 else 4
    return [(s, step * 2.0, 84 if s % 4 == 0 else 72, (low,) if s % 4 == 0 else (top[(s // 4) % len(top)],))
            for s in range(0, sit.steps, step)]




def tied(notes: list[Raw], fresh: set[float]) -> list[Raw]:
    """Held notes tied over the bar line: a note struck where the same pitch was held right up
    to it is merged into that note (not where a section starts, nor on the last chord)."""
    out: list[Raw] = []
    held: dict[int, int] = {}  # pitch → index in out of the note holding it
    for start, dur, pitch, vel in notes:
        i = held.get(pitch)
        if i is not None and round(start, 3) not in fresh and abs(out[i][0] + out[i][1] - start) < 0.3:
            t, _, p, v = out[i]
            out[i] = (t, start + dur - t, p, v)
            continue
        held[pitch] = len(out)
        out.append((start, dur, pitch, vel))
    return sorted(out)


def swells(bars: list[Bar], beats_per_bar: float) -> list[ControlChange]:
    """The organ's expression pedal (CC11): every bar opens at the level its energy sets and
    swells by a quarter into its last beat, a section's last bar swelling into the next."""
    ccs: list[ControlChange] = []
    for bar in bars:
        base = round(64 + 40 * bar.energy)
        rise = 24 if bar.section_end else 10
        for i in range(4):
            ccs.append(ControlChange(bar.start + i * beats_per_bar / 4, 11, min(127, base + rise * i // 3)))
    return ccs


KEYBOARD_COMPS = {"rhodes_comp": rhodes, "drawbar": drawbar, "clav_chops": clav, "picked": picked}
HELD = frozenset({"drawbar"})  # styles whose chord is tied over the bar line while it does not change
