"""Arpeggios and picking: one pattern choosing events or patterns from others.

`arp` plays the notes of each chord (events sharing a whole) by index;
`pick`/`inhabit`/`squeeze` use a pattern of indices or names to choose from a
list or table of patterns, joined in Strudel's ways (inner, outer, restart,
reset, squeeze), with or without wrapping the index (`...mod`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bandstand.errors import PatternError
from bandstand.patterns.constructors import reify
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Pattern, silence
from bandstand.patterns.time import TimeSpan
from bandstand.patterns.transforms import js_round

__all__ = ["arp", "arp_with", "pick_join", "squeeze"]


def _collect(pat: Pattern) -> Pattern:
    def group(haps: list[Hap], span: TimeSpan, ctl: Any) -> list[Hap]:
        groups: list[list[Hap]] = []
        for h in haps:
            for g in groups:
                if g[0].whole == h.whole:
                    g.append(h)
                    break
            else:
                groups.append([h])
        return [Hap(g[0].whole, g[0].part, g, ()) for g in groups]

    return pat.with_haps(group)


def arp_with(func: Callable[[list[Hap]], Any], pat: Pattern) -> Pattern:
    joined = _collect(pat).fmap(lambda v: reify(func(v))).inner_join()

    def unwrap(h: Hap) -> Hap:
        chosen = h.value
        if not isinstance(chosen, Hap):  # Strudel fails here too (it reads the hap's value)
            raise PatternError("arpWith: the function must answer one of the haps it is given, e.g. haps => haps[0]")
        return Hap(h.whole, h.part, chosen.value, chosen.context + h.context)

    return joined.with_hap(unwrap)


def arp(indices: Pattern, pat: Pattern) -> Pattern:
    return arp_with(lambda haps: indices.fmap(lambda i: haps[int(i) % len(haps)]), pat)


def _pick(lookup: Any, pat: Pattern, modulo: bool) -> Pattern | None:
    is_list = isinstance(lookup, list)
    n = len(lookup)
    if n == 0:
        return None
    table = [reify(x) for x in lookup] if is_list else {k: reify(v) for k, v in lookup.items()}

    def choose(i: Any) -> Any:
        if is_list:
            k = js_round(i)
            k = (k % n if k >= 0 else -((-k) % n)) if modulo else min(max(k, 0), n - 1)
            return table[k] if 0 <= k < n else silence
        return table.get(str(i) if not isinstance(i, str) else i, silence)  # type: ignore[union-attr]

    return pat.fmap(choose)


def pick_join(how: str, modulo: bool) -> Callable[[Any, Pattern], Pattern]:
    def f(lookup: Any, pat: Pattern) -> Pattern:
        picked = _pick(lookup, pat, modulo)
        if picked is None:
            return silence
        return {
            "inner": picked.inner_join,
            "outer": picked.outer_join,
            "squeeze": picked.squeeze_join,
            "restart": picked.restart_join,
            "reset": picked.reset_join,
        }[how]()

    return f


def squeeze(pat: Any, *xs: Any) -> Pattern:
    items = xs[0] if len(xs) == 1 and isinstance(xs[0], list) else list(xs)
    pats = [reify(x) for x in items]
    if not pats:
        return silence
    n = len(pats)
    return reify(pat).fmap(lambda i: pats[js_round(i) % n]).squeeze_join()


def pick_functions(lookup: Pattern, funcs: Pattern, pat: Pattern) -> Pattern:
    """pickF: apply the function at each index of `lookup` (rounded, kept in range) to the
    pattern, as Strudel's `pat.apply(pick(lookup, funcs))`."""
    table = funcs.pure_value if funcs.is_pure else None
    if not isinstance(table, list) or not all(callable(f) for f in table):
        raise ValueError("pickF takes indices and a list of functions, e.g. pickF(\"<0 1>\", [rev, fast(2)])")
    if not table:
        return silence

    def chosen(i: Any) -> Pattern:
        index = min(max(int(js_round(i)), 0), len(table) - 1)
        result: Pattern = table[index](pat)
        return result

    return lookup.fmap(chosen).inner_join()
