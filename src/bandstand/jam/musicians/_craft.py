"""What the built-in musicians share beside the craft: seeded choices (a round's,
an idea's), energy → dynamics, the metre's steps, and listening to the others'
patterns through the pattern engine.
"""

from __future__ import annotations

import hashlib
import random
import re
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

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


def gain(turn: TurnInput, base: float = 0.0) -> float:
    """Dynamics follow energy: 1 → quiet, 10 → loud."""
    return round(min(1.0, max(0.15, 0.42 + 0.05 * turn.context.energy + base)), 2)


def num(x: float) -> str:
    return f"{x:g}"


EARS: ContextVar[Any] = ContextVar("bandstand_jam_ears", default=None)
"""The `PatternBook` a musician hears the others through while it plays a turn (its
engine's, set by `Musician.play`): the patterns its engine just validated are heard from
the events validation found, without evaluating or querying anything again."""


def listen(code: str | None, cycles: int = 1) -> tuple[tuple[Fraction, dict[str, object]], ...]:
    """The onsets of another member's pattern over its first cycles, as (time, value);
    empty when the code is missing or does not evaluate (listening never fails a turn)."""
    if not code or code.strip() == "silence":
        return ()
    try:
        from bandstand.jam.sound import onsets

        haps = onsets(code, cycles, EARS.get())
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


_CRUSH = re.compile(r"\.crush\((\d+(?:\.\d+)?)\)")


def changes(before: str | None, after: str) -> dict[str, object]:
    """What a member's new pattern changed against its last one, heard through the pattern
    engine, so its words claim only what it did: same, changed, more / fewer events,
    kick_moved (the kicks' steps), crunchier (a lower bit depth)."""
    if before is None:
        return {}
    if before.strip() == after.strip():
        return {"same": True}
    old, new = listen(before, 4), listen(after, 4)
    kicks = [sorted(t for t, v in heard if str(v.get("s", "")).split(":")[0] in {"bd", "kick"}) for heard in (old, new)]
    crush = [min((float(x) for x in _CRUSH.findall(code)), default=None) for code in (before, after)]
    return {
        "changed": True,
        "more": len(new) > len(old),
        "fewer": len(new) < len(old),
        "kick_moved": bool(kicks[1]) and kicks[0] != kicks[1],
        "crunchier": None not in crush and crush[1] < crush[0],  # type: ignore[operator]
    }
