"""GROOVE's craft: the progression bar by bar, locked to the kick.

One note per chord (`note("<c2 ab1 eb2 bb1>")`), voiced between c1 and c3 with
smooth motion from bar to bar. The rhythm is the drummer's kick, heard through
the pattern engine; with more energy or density a fifth answers on an off-beat.
Less is more: the line changes only when the harmony or the groove does.
"""

from __future__ import annotations

from bandstand.jam._harmony import name_in_scale, note_to_midi
from bandstand.jam.musicians._craft import (
    epoch_rng,
    gain,
    grid,
    group_size,
    hits,
    kick_steps,
    place,
    steps_per_bar,
)
from bandstand.jam.turn import TurnInput

LOW, HIGH = 24, 48  # c1 … c3
SOUNDS = ("sawtooth", "square", "triangle")


def roots(turn: TurnInput) -> list[str]:
    """The chord roots, spelled from the scale, voiced in c1–c3 with smooth motion."""
    scale = turn.context.scale
    out: list[str] = []
    previous = 36  # c2: the home of the bass
    for bar in range(len(turn.context.chords)):
        root_pc, _ = turn.context.chord_pcs(bar)
        name = name_in_scale(root_pc, scale) or scale[0]
        note = place(name, LOW + 5, HIGH - 5, near=previous)
        out.append(note)
        previous = note_to_midi(note)
    return out


def fifths(turn: TurnInput, voiced: list[str]) -> list[str]:
    """The chord fifth (or third when the fifth is off the scale) above each root, below c3."""
    scale = turn.context.scale
    out = []
    for bar, root in enumerate(voiced):
        root_pc, pcs = turn.context.chord_pcs(bar)
        candidates = [(root_pc + 7) % 12, (root_pc + 3) % 12, (root_pc + 4) % 12, root_pc]
        pc = next(p for p in candidates if p in pcs and name_in_scale(p, scale)) if any(
            p in pcs and name_in_scale(p, scale) for p in candidates
        ) else root_pc
        name = name_in_scale(pc, scale) or root[:-1]
        out.append(place(name, LOW, HIGH, near=note_to_midi(root) + 7))
    return out


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    style = turn.style
    if style.out:
        return "silence", {"out": True}
    energy = turn.context.energy
    length = steps_per_bar(turn)
    group = group_size(turn)
    idea = epoch_rng(turn, seed, "bass")
    drums = next((m for m in turn.others() if m.role == "drums" and not m.out), None)
    kicks = kick_steps(drums.pattern if drums else None, length)
    voiced = roots(turn)
    line = "<" + " ".join(voiced) + ">" if len(voiced) > 1 else voiced[0]
    busy = energy + 2 * style.density + (3 if style.solo else 0)
    if busy <= 2 or (not kicks and busy <= 5):
        rhythm: list[int] = [0]
    elif kicks:
        rhythm = kicks if busy >= 5 else [k for k in kicks if k < length // 2] or [0]
    else:
        rhythm = [0, length // 2 + length // 8] if busy <= 7 else [0, 3 * length // 16, length // 2, 3 * length // 4]
    if style.time == 2:
        rhythm = sorted({*rhythm, *(r + length // 8 for r in rhythm if r + length // 8 < length)})
    elif style.time == 0.5:
        rhythm = [r for r in rhythm if r < length // 2] or [0]
    sound = SOUNDS[idea.randrange(2)] if energy >= 4 else "triangle"
    cutoff = 260 + 70 * energy + 60 * style.density
    parts = [f'note("{line}")']
    if rhythm != [0]:
        parts.append(f'.struct("{grid(hits(rhythm, length), group)}")')
    code = "".join(parts) + f'.s("{sound}").lpf({cutoff}).gain({gain(turn, 0.05)})'
    answers = busy >= 8 and len(rhythm) >= 2
    if answers:
        offbeat = [s for s in (length // 2 - 2, length - 2) if s not in rhythm]
        if offbeat:
            upper = fifths(turn, voiced)
            upper_line = "<" + " ".join(upper) + ">" if len(upper) > 1 else upper[0]
            code = (
                f"stack({code}, note(\"{upper_line}\").struct(\"{grid(hits(offbeat, length), group)}\")"
                f'.s("{sound}").lpf({cutoff}).gain({gain(turn, -0.1)}))'
            )
    if style.swing:
        code += ".swingBy(1/3, 4)"
    return code, {"locked": bool(kicks) and rhythm != [0], "kicks": len(kicks), "notes": len(rhythm), "answers": answers}
