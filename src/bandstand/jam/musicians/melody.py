"""ARIA's craft: a motif in scale degrees that answers the chords and leaves space.

A four-note motif is born on each key or style change (chord tones on the
strong steps, a neighbour between); each bar starts it on the chord's degree;
the last bar of the loop answers with a varied, shorter phrase and rests. It
thins out when the fx gets busy or someone else solos, and climbs an octave
and fills in when ARIA solos.
"""

from __future__ import annotations

from bandstand.jam._harmony import pitch_class
from bandstand.jam.musicians._craft import degree_line, epoch_rng, events_per_cycle, gain, num, rng
from bandstand.jam.turn import TurnInput

MOTIFS: tuple[tuple[int, ...], ...] = (
    (0, 2, 4, 2),
    (4, 3, 2, 0),
    (0, 4, 3, 2),
    (2, 1, 0, 4),
    (0, 2, 1, 4),
    (4, 2, 3, 1),
)
# rhythms on an 8-step bar: where the motif's notes fall (the rest is space)
RHYTHMS: tuple[tuple[int, ...], ...] = (
    (0, 4),
    (0, 3, 4),
    (0, 2, 3, 6),
    (0, 1, 3, 4, 6),
    (0, 1, 2, 4, 5, 6, 7),
)
SOUNDS = ("triangle", "sine", "square")


def _bar(degrees: list[int], slots: tuple[int, ...]) -> str:
    row = ["~"] * 8
    for slot, degree in zip(slots, degrees, strict=False):
        row[slot] = str(degree)
    # beats of two eighths each, written as [a b] or a lone a / ~
    beats = []
    for i in range(0, 8, 2):
        a, b = row[i], row[i + 1]
        beats.append(a if b == "~" else f"[{a} {b}]")
    return " ".join(beats)


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    style = turn.style
    if style.out:
        return "silence", {"out": True}
    ctx = turn.context
    idea = epoch_rng(turn, seed, "motif")
    motif = list(MOTIFS[idea.randrange(len(MOTIFS))])
    fx = next((m for m in turn.others() if m.role == "fx" and not m.out), None)
    fx_busy = events_per_cycle(fx.pattern if fx else None) > 5
    other_solo = any(m.solo and not m.out for m in turn.others())
    level = (ctx.energy - 1) // 3 + style.density - (1 if fx_busy else 0) - (1 if other_solo else 0)
    if style.solo:
        level = len(RHYTHMS) - 1
    level = max(0, min(len(RHYTHMS) - 1, level))
    age = max(0, turn.round - style.since)
    slots = RHYTHMS[level]
    scale_pcs = [pitch_class(n) for n in ctx.scale]
    bars = []
    for bar in range(len(ctx.chords)):
        root_pc, _ = ctx.chord_pcs(bar)
        start = scale_pcs.index(root_pc) if root_pc in scale_pcs else 0
        start = start - 7 if start > 4 else start  # stay near the tonic
        # the motif, then (in busier rhythms) its echo a third higher
        degrees = [start + motif[i % len(motif)] + 2 * (i // len(motif)) for i in range(max(len(motif), len(slots)))]
        if bar == len(ctx.chords) - 1 and len(ctx.chords) > 1:
            # the answer: the motif turned around, shorter, landing on a chord tone
            degrees = [*[start + d for d in reversed(motif)][:3], start]
            bars.append(_bar(degrees, slots[: max(2, len(slots) - 2)]))
        else:
            if age >= 1 and bar % 2 == 1:
                variation = rng(turn, seed, "variation", min(age, 4)).choice((1, -1, 2))
                last = min(len(slots), len(degrees)) - 1
                degrees = [*degrees[:last], degrees[last] + variation, *degrees[last + 1 :]]
            bars.append(_bar(degrees, slots))
    octave = 5 if style.solo else 4
    line = "<" + " ".join(f"[{b}]" for b in bars) + ">" if len(bars) > 1 else bars[0]
    sound = SOUNDS[idea.randrange(len(SOUNDS))] if not style.solo else "sawtooth"
    cutoff = 1200 + 180 * ctx.energy
    code = (
        f'{degree_line(turn, line, octave)}.s("{sound}")'
        f".lpf({cutoff}).gain({gain(turn, -0.12 if not style.solo else 0.05)}).room({num(0.35)})"
    )
    if style.time == 2:
        code += ".fast(2)"
    elif style.time == 0.5:
        code += ".slow(2)"
    if style.swing:
        code += ".swingBy(1/3, 4)"
    if age >= 2 and ctx.energy >= 5 and not fx_busy:
        code += f".delay({num(0.25)})"
    return code, {"fx_busy": fx_busy, "other_solo": other_solo, "notes": len(slots), "motif": motif}
