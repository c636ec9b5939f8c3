"""BEAT's craft: a syncopated groove with fills and dynamics.

The groove is chosen once per key/style change (the drummer's idea) from a
table of kick figures by energy, then varied a little each round: ghost
snares, an open hat, a displaced kick. The last bar of the progression gets a
fill; a crash marks the top of the loop when the energy is high.
"""

from __future__ import annotations

from bandstand.jam.musicians._craft import (
    epoch_rng,
    gain,
    grid,
    group_size,
    hits,
    num,
    rng,
    steps_per_bar,
)
from bandstand.jam.turn import TurnInput

# kick figures on a 16-step bar, from sparse to busy; four-on-the-floor is kept for irony
KICKS: tuple[tuple[int, ...], ...] = (
    (0, 8),
    (0, 7, 10),
    (0, 3, 10),
    (0, 6, 10, 13),
    (0, 3, 6, 10, 14),
)
FOUR_ON_THE_FLOOR = (0, 4, 8, 12)
GHOSTS: tuple[tuple[int, ...], ...] = ((7,), (7, 15), (3, 7, 11), (2, 7, 10, 15))
FILLS: tuple[tuple[str, ...], ...] = (
    ("sd", "sd", "mt", "lt"),
    ("ht", "mt", "lt", "sd"),
    ("sd", "sd", "sd", "sd"),
    ("ht", "ht", "lt", "lt"),
)


def _scale_positions(positions: tuple[int, ...], length: int) -> list[int]:
    return sorted({p * length // 16 for p in positions})


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    """The drum pattern for this turn and what shaped it (for the thoughts)."""
    style = turn.style
    if style.out:
        return "silence", {"out": True}
    energy = turn.context.energy
    length = steps_per_bar(turn)
    group = group_size(turn)
    idea = epoch_rng(turn, seed, "groove")
    level = max(0, min(len(KICKS) - 1, (energy - 1) // 2 + style.density + idea.choice((0, 0, 1)) - 1))
    someone_solos = any(m.solo and not m.out for m in turn.others())
    if style.solo:
        level = len(KICKS) - 1
    elif someone_solos:
        level = max(0, level - 1)  # make room for the soloist
    ironic = energy >= 9 and idea.random() < 0.35
    kick = FOUR_ON_THE_FLOOR if ironic else KICKS[level]
    # one small change per round since the idea was born: the groove evolves, it is not rewritten
    age = max(0, turn.round - style.since)
    tweak = rng(turn, seed, "tweak", min(age, 4))
    ghost_level = max(0, min(len(GHOSTS) - 1, level - 1 + (1 if age >= 2 else 0)))
    use_ghosts = energy >= 4 and style.density >= -1 and (age >= 1 or level >= 2)
    open_hat = energy >= 6 and age >= 2 and not someone_solos
    kick_steps = _scale_positions(kick, length)
    if age >= 3 and not ironic and tweak.random() < 0.5:
        kick_steps = sorted({*kick_steps, (length * 3) // 4 + 3})

    back = [length // 4, 3 * length // 4] if length >= 8 else [length // 2]
    if style.time == 0.5:
        back = [length // 2]
    snare = hits(back, length, "sd")
    beat_kick = hits(kick_steps, length, "bd")
    fill_size = min(4, length // 2)
    fill_tokens = FILLS[idea.randrange(len(FILLS))][:fill_size]
    fill_bar = list(snare)
    for i, tok in enumerate(fill_tokens):
        fill_bar[length - fill_size + i] = tok
    bars = max(1, len(turn.context.chords))
    snare_line = grid(snare, group)
    if bars > 1 and energy >= 3:
        snare_line = "<" + " ".join([f"[{snare_line}]"] * (bars - 1) + [f"[{grid(fill_bar, group)}]"]) + ">"

    hat_div = 4 if energy <= 3 else 8 if energy <= 7 else 16
    hat_div = max(2, min(16, int(hat_div * (2 if style.density > 0 else 1) / (2 if style.density < 0 else 1))))
    if style.time == 2:
        hat_div = min(hat_div, 8)  # double time doubles the hats too: sixteenths at most
    hat_div = hat_div * length // 16 or 1
    # long bars (12/8, 15/4) keep the hats under the engine's density limit
    hat_div = min(hat_div, 24 // (2 if style.time == 2 else 1))
    accents = " ".join(num(v) for v in ((0.55, 0.3) if hat_div % 2 == 0 else (0.45,)))
    layers = [
        f's("{grid(beat_kick, group)}").gain({gain(turn, 0.12)})',
        f's("{snare_line}").gain({gain(turn, 0.02)})',
        f's("hh*{hat_div}").gain("{accents}")' if hat_div > 1 else 's("hh").gain(0.4)',
    ]
    if use_ghosts:
        ghosts = [p * length // 16 for p in GHOSTS[ghost_level] if p * length // 16 not in back]
        if ghosts:
            layers.append(f's("{grid(hits(ghosts, length, "sd"), group)}").gain({gain(turn, -0.45)})')
    if open_hat:
        layers.append(f's("{grid(hits([length // 2 - 2], length, "oh"), group)}").gain({gain(turn, -0.2)})')
    if energy >= 7 and bars > 1:
        layers.append(f's("<cr{" ~" * (bars - 1)}>").gain({gain(turn, -0.1)})')
    code = "stack(" + ", ".join(layers) + ")"
    if style.time == 2:
        code += ".fast(2)"
    if style.swing:
        code += ".swingBy(1/3, 4)"
    return code, {"ironic": ironic, "ghosts": use_ghosts, "level": level, "kicks": len(kick_steps), "age": age}
