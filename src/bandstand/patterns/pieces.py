"""Putting pieces of patterns together: `into`, `chunkInto`, `chunkBackInto`, `xfade`,
`seqPLoop` and the effect chain `FX`.

`into(pieces, f)` loops the parts of the cycle where `pieces` is true (with `f`
applied) and plays the rest unchanged; `chunkInto(n, f)` does it to one
quarter (one nth) of the cycle after another. `xfade(a, pos, b)` plays two
patterns with their gains crossfaded by `pos` (0: only a, 1: only b).
`seqPLoop([start, stop, pat], …)` places each pattern over its span of a loop as
long as the last stop; `p.FX(fx…)` appends the effects' values to each event's
`FX` list (the order the sound engine applies them in). As in `@strudel/core`
1.2.6.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bandstand.patterns.constructors import fastcat, pure, reify, stack
from bandstand.patterns.hap import Hap
from bandstand.patterns.ops import apply_op
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.presets import list_pattern
from bandstand.patterns.time import ZERO, to_time
from bandstand.patterns.transforms import compress, iter_, iter_back, ribbon
from bandstand.patterns.values import js_truthy


def seq_p_loop(*parts: Any) -> Pattern:
    """Each part `[start, stop, pattern]` (or `[stop, pattern]`, starting where the part
    before stopped) plays over its span of a loop that lasts until the last stop."""
    spans: list[tuple[Any, Any, Any]] = []
    total = ZERO
    for part in parts:
        if not isinstance(part, list) or len(part) not in (2, 3):
            raise ValueError("seqPLoop takes parts such as [0, 2, \"bd(3,8)\"] or [2, \"bd(3,8)\"]")
        start, stop, pat = part if len(part) == 3 else (total, *part)
        spans.append((start, stop, pat))
        total = to_time(stop)
    if total == 0:
        raise ValueError("seqPLoop: the loop has no length (its last part stops at 0)")
    placed = [
        compress(to_time(start) / total, to_time(stop) / total, pure(reify(pat)))
        for start, stop, pat in spans
    ]
    return stack(*placed)._slow(total).inner_join()


def fx(pat: Pattern, *effects: Any) -> Pattern:
    """`pat.FX(fx1, fx2…)`: each event's `FX` list grows by the effects' values, in order."""
    def add(value: Any) -> Any:
        base = dict(value) if isinstance(value, dict) else {}
        return lambda more: {**base, "FX": [*(base.get("FX") or []), *more]}

    return pat.fmap(add).app_left(list_pattern([reify(e) for e in effects]))


def into(pieces: Any, func: Any, pat: Pattern) -> Pattern:
    """Where `pieces` is true, loop that piece of the cycle through `func`; elsewhere `pat`."""
    if isinstance(func, Pattern):  # the registry hands every argument over as a pattern
        func = func.pure_value if func.is_pure else 0
    if func is not None and not callable(func):
        raise ValueError("into takes a function of a pattern, e.g. into(\"1 0\", hurry(2))")
    apply: Callable[[Pattern], Pattern] = func if func is not None else (lambda p: p)

    def piece(h: Hap) -> Hap:
        if h.whole is None:
            raise ValueError("into needs pieces with a structure, such as \"1 0\"")
        whole = h.whole
        return h.with_value(
            lambda v: apply(ribbon(whole.begin, whole.end - whole.begin, pat)) if js_truthy(v) else pat
        )

    return reify(pieces).with_hap(piece).inner_join()


def _first_of(n: Any) -> Pattern:
    count = int(n)
    if count < 1:
        raise ValueError("the number of chunks must be 1 or more")
    return fastcat(True, *([False] * (count - 1)))


def chunk_into(n: Any, func: Callable[[Pattern], Pattern], pat: Pattern) -> Pattern:
    """Loop one nth of the cycle through `func`, a different nth each cycle (forwards)."""
    return into(iter_back(n, _first_of(n)), func, pat)


def chunk_back_into(n: Any, func: Callable[[Pattern], Pattern], pat: Pattern) -> Pattern:
    """Like chunkInto, moving backwards through the chunks."""
    return into(iter_(n, _first_of(n))._early(1), func, pat)


def _fade_gain(p: float) -> float:
    return 1 if p < 0.5 else 1 - (p - 0.5) / 0.5


def xfade(a: Any, pos: Any, b: Any) -> Pattern:
    """Two patterns at once, their gains crossfaded by `pos`."""
    position = reify(pos)
    gain_a = position.fmap(lambda v: {"gain": _fade_gain(v)})
    gain_b = position.fmap(lambda v: {"gain": _fade_gain(1 - v)})
    return stack(apply_op("mul", "in", reify(a), gain_a), apply_op("mul", "in", reify(b), gain_b))
