"""Shared craft of the built-in musicians: step grids written as compact
mini-notation, notes placed in a register, seeded choices, energy → dynamics,
and listening to the others' patterns through the pattern engine.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from bandstand.jam._harmony import LETTER_PC, pitch_class
from bandstand.jam.turn import TurnInput


def rng(turn: TurnInput, seed: int, *salt: object) -> random.Random:
    """A random source fixed by seed, member, round and salt (never global state)."""
    text = ":".join(str(x) for x in (seed, turn.member, *salt))
    return random.Random(int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big"))


def epoch_rng(turn: TurnInput, seed: int, *salt: object) -> random.Random:
    """A random source that changes only on a key or style change: the member's 'idea'."""
    return rng(turn, seed, turn.context.key, turn.style.since, *salt)


def steps_per_bar(turn: TurnInput) -> int:
    """Sixteenth-note steps in one bar (eighths for x/8 metres)."""
    ctx = turn.context
    return ctx.beats_per_bar * (4 if ctx.beat_unit == 4 else 2)


def group_size(turn: TurnInput) -> int:
    return 4 if turn.context.beat_unit == 4 else 2


def grid(steps: Sequence[str | None], group: int = 4) -> str:
    """A step grid as readable mini-notation: one bracket per beat, `~` for rests,
    a lone first-step hit written bare (`bd [~ ~ ~ bd] ~ [~ ~ sd ~]`)."""
    beats = []
    for i in range(0, len(steps), group):
        cell = [s or "~" for s in steps[i : i + group]]
        if all(c == "~" for c in cell):
            beats.append("~")
        elif all(c == "~" for c in cell[1:]):
            beats.append(cell[0])
        elif len(set(cell)) == 1:
            beats.append(f"{cell[0]}*{len(cell)}")
        else:
            beats.append("[" + " ".join(cell) + "]")
    return " ".join(beats)


def hits(positions: Sequence[int], length: int, token: str = "x") -> list[str | None]:
    row: list[str | None] = [None] * length
    for p in positions:
        if 0 <= p < length:
            row[p] = token
    return row


def place(name: str, low: int, high: int, near: int | None = None) -> str:
    """`name` (a pitch class name) with the octave that lands in [low, high] MIDI,
    nearest to `near` when given (smooth voice leading), else the lowest."""
    pc = pitch_class(name)
    options = [m for m in range(low, high + 1) if m % 12 == pc]
    if not options:
        options = [low + ((pc - low) % 12)]
    midi = min(options, key=lambda m: abs(m - near)) if near is not None else options[0]
    octave = midi // 12 - 1
    # b# / cb cross the octave line: spell with the octave of the letter
    letter_pc = LETTER_PC[name[0]]
    if letter_pc - pc > 6:
        octave += 1
    elif pc - letter_pc > 6:
        octave -= 1
    return f"{name}{octave}"


def gain(turn: TurnInput, base: float = 0.0) -> float:
    """Dynamics follow energy: 1 → quiet, 10 → loud."""
    return round(min(1.0, max(0.15, 0.42 + 0.05 * turn.context.energy + base)), 2)


def num(x: float) -> str:
    return f"{x:g}"


def mode_name(turn: TurnInput) -> str:
    return turn.context.mode


def scale_arg(turn: TurnInput, octave: int) -> str:
    """A Strudel scale name: `C4:minor`, `F#5:major`."""
    tonic = turn.context.tonic
    return f"{tonic[0].upper()}{tonic[1:]}{octave}:{turn.context.mode}"


def listen(code: str | None, cycles: int = 1) -> tuple[tuple[Fraction, dict[str, object]], ...]:
    """The onsets of another member's pattern over its first cycles, as (time, value);
    empty when the code is missing or does not evaluate (listening never fails a turn)."""
    if not code or code.strip() == "silence":
        return ()
    return _listen(code, cycles)


@lru_cache(maxsize=512)
def _listen(code: str, cycles: int) -> tuple[tuple[Fraction, dict[str, object]], ...]:
    try:
        from bandstand.jam.sound import onsets

        haps = onsets(code, cycles)
    except Exception:
        return ()
    return tuple(
        (Fraction(hap.whole.begin), hap.value) for hap in haps if isinstance(hap.value, dict)
    )


def kick_steps(code: str | None, length: int) -> list[int]:
    """The sixteenth steps where another member's pattern plays a kick in its first bar."""
    steps = set()
    for time, value in listen(code):
        if str(value.get("s", "")).split(":")[0] in {"bd", "kick"}:
            steps.add(int(time * length))
    return sorted(steps)


def events_per_cycle(code: str | None, cycles: int = 4) -> float:
    return len(listen(code, cycles)) / cycles


def _knows_scale() -> bool:
    try:
        from bandstand.patterns.registry import get_registry

        return "scale" in get_registry()
    except Exception:
        return False


def degree_note(turn: TurnInput, degree: int, octave: int) -> str:
    """Scale degree (0-based, any integer) as a note name with octave, counted from the tonic."""
    scale = turn.context.scale
    tonic_pc = pitch_class(scale[0])
    steps, index = divmod(degree, len(scale))
    name = scale[index]
    midi = (octave + 1) * 12 + tonic_pc + ((pitch_class(name) - tonic_pc) % 12) + 12 * steps
    return place(name, midi, midi)


def degree_line(turn: TurnInput, line: str, octave: int) -> str:
    """A line of scale degrees in mini-notation as pattern code: `n("…").scale("C4:minor")`
    when the engine has `scale`, else the same degrees spelled as notes (`note("c4 eb4 …")`)."""
    if _knows_scale():
        return f'n("{line}").scale("{scale_arg(turn, octave)}")'
    import re

    spelled = re.sub(r"-?\d+", lambda m: degree_note(turn, int(m.group()), octave), line)
    return f'note("{spelled}")'
