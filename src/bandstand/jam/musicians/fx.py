"""GLITCH's craft: sparse, crushed, delayed texture in the key.

A few high blips on scale degrees (octave 6), a crushed percussive tick, all
through a delay; more events with more energy, but always with space. A
texture artist changes colour, not the harmony: every pitched blip is a scale
degree.
"""

from __future__ import annotations

from bandstand.jam.musicians._craft import degree_line, epoch_rng, gain, num, rng
from bandstand.jam.turn import TurnInput

BLIP_SETS: tuple[tuple[int, ...], ...] = ((0, 4), (2, 6), (4, 7), (0, 2, 4), (6, 4, 2))
TICKS = ("rim", "hh", "cp")


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    style = turn.style
    if style.out:
        return "silence", {"out": True}
    ctx = turn.context
    idea = epoch_rng(turn, seed, "texture")
    age = max(0, turn.round - style.since)
    mood = rng(turn, seed, "mood", min(age, 5))
    blips = BLIP_SETS[idea.randrange(len(BLIP_SETS))]
    density = max(1, min(6, (ctx.energy + 1) // 3 + style.density + (2 if style.solo else 0)))
    slots = sorted(idea.sample(range(16), k=min(density, 8)))
    row = ["~"] * 16
    for i, slot in enumerate(slots):
        row[slot] = str(blips[i % len(blips)])
    beats = []
    for i in range(0, 16, 4):
        cell = row[i : i + 4]
        beats.append("~" if all(c == "~" for c in cell) else "[" + " ".join(cell) + "]")
    pitched = " ".join(beats)
    crush = max(3, 10 - ctx.energy // 2 - (1 if min(age, 5) % 2 else 0))
    delay_time = ("0.375", "0.25", "0.1875")[idea.randrange(3)]
    blip = (
        f'{degree_line(turn, f"<[{pitched}] ~>", 6)}.s("{idea.choice(("sine", "square"))}")'
        f".crush({crush}).delay({num(0.5 + 0.05 * min(age, 4))}).delaytime({delay_time})"
        f".delayfeedback({num(0.45)}).gain({gain(turn, -0.35)}).pan({num(round(mood.uniform(0.2, 0.8), 2))})"
    )
    tick_token = TICKS[idea.randrange(len(TICKS))]
    tick_count = 1 + (ctx.energy >= 6) + (ctx.energy >= 9)
    tick_slots = [(3 + 5 * i + mood.randrange(2)) % 16 for i in range(tick_count)]
    tick_row = ["~"] * 16
    for slot in tick_slots:
        tick_row[slot] = tick_token
    tick_beats = []
    for i in range(0, 16, 4):
        cell = tick_row[i : i + 4]
        tick_beats.append("~" if all(c == "~" for c in cell) else "[" + " ".join(cell) + "]")
    tick = f's("{" ".join(tick_beats)}").crush({crush - 1}).room({num(0.6)}).gain({gain(turn, -0.4)})'
    code = f"stack({blip}, {tick})" if ctx.energy >= 3 or style.solo else blip
    if style.swing:
        code += ".swingBy(1/3, 4)"
    return code, {"events": density + tick_count, "crush": crush}
