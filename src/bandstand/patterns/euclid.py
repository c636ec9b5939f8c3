"""Euclidean rhythms: Strudel's Bjorklund algorithm and the euclid transforms.

``(3, 8)`` gives 1 0 0 1 0 0 1 0; a negative pulse count gives the complement;
a rotation r shifts the rhythm *later* by r steps (Strudel's convention,
the opposite of Tidal's) and |r| ≥ steps does not rotate. The result is the
`struct` of the booleans, so the pattern's values are sampled at each pulse.
`morph` moves one rhythm's onsets part of the way to another's, and
`euclidish` morphs a euclidean rhythm towards evenly spaced pulses.
"""

from __future__ import annotations

from typing import Any

from gmpy2 import mpq

from bandstand.patterns.budget import reserve
from bandstand.patterns.constructors import reify, stepcat
from bandstand.patterns.hap import Hap
from bandstand.patterns.ops import keepif_out
from bandstand.patterns.pattern import Pattern, silence
from bandstand.patterns.time import ONE, TimeSpan, sam, to_time
from bandstand.patterns.transforms import _call
from bandstand.patterns.values import js_truthy

__all__ = [
    "bjork",
    "bjorklund",
    "euclid",
    "euclid_legato",
    "euclid_legato_rot",
    "euclid_rot",
    "euclid_rot_list",
]


def _bjorklund_steps(n: tuple[int, int], x: tuple[list[list[int]], list[list[int]]]) -> Any:
    ons, offs = n
    if min(ons, offs) <= 1:
        return n, x
    xs, ys = x
    reserve(len(xs) + len(ys))  # each step copies the groups: (3, 1000000) is costly
    if ons > offs:
        head, rest = xs[:offs], xs[offs:]
        return _bjorklund_steps(
            (offs, ons - offs), ([a + b for a, b in zip(head, ys, strict=False)], rest)
        )
    head_y, rest_y = ys[:ons], ys[ons:]
    return _bjorklund_steps(
        (ons, offs - ons), ([a + b for a, b in zip(xs, head_y, strict=False)], rest_y)
    )


def bjorklund(ons: Any, steps: Any) -> list[int]:
    """Strudel's Bjorklund: (3, 8) → 1 0 0 1 0 0 1 0; negative `ons` gives the complement."""
    inverted = ons < 0
    absons = int(abs(ons))
    offs = int(steps) - absons
    if offs < 0:
        raise ValueError(f"euclid: {absons} pulses do not fit in {int(steps)} steps")
    _, (a, b) = _bjorklund_steps((absons, offs), ([[1]] * absons, [[0]] * offs))
    result = [v for group in a for v in group] + [v for group in b for v in group]
    return [1 - v for v in result] if inverted else result


def euclid_rot_list(pulses: Any, steps: Any, rotation: Any) -> list[int]:
    b = bjorklund(pulses, steps)
    r = int(rotation) if rotation else 0
    if r:
        k = -r
        return b[k:] + b[:k]
    return b


def euclid(pulses: Any, steps: Any, pat: Pattern) -> Pattern:
    return keepif_out(pat, [euclid_rot_list(pulses, steps, 0)])


def euclid_rot(pulses: Any, steps: Any, rotation: Any, pat: Pattern) -> Pattern:
    return keepif_out(pat, [euclid_rot_list(pulses, steps, rotation)])


def bjork(euc: Any, pat: Pattern) -> Pattern:
    e = euc if isinstance(euc, list) else [euc]
    pulses = e[0]
    steps = e[1] if len(e) > 1 else pulses
    rot = e[2] if len(e) > 2 else 0
    return keepif_out(pat, [euclid_rot_list(pulses, steps, rot)])


def _euclid_legato(pulses: Any, steps: Any, rotation: Any, pat: Pattern) -> Pattern:
    if pulses < 1:
        return silence
    bits = "".join(str(b) for b in euclid_rot_list(pulses, steps, 0))
    gapless = [[len(s) + 1, True] for s in bits.split("1")[1:]]
    return _call("late", keepif_out(pat, stepcat(*gapless)), to_time(rotation) / to_time(steps))


def euclid_legato(pulses: Any, steps: Any, pat: Pattern) -> Pattern:
    return _euclid_legato(pulses, steps, 0, pat)


def euclid_legato_rot(pulses: Any, steps: Any, rotation: Any, pat: Pattern) -> Pattern:
    return _euclid_legato(pulses, steps, rotation, pat)


def _morph(source: list[Any], target: list[Any], by: Any) -> Pattern:
    """One cycle of `source`'s onsets moved `by` (0…1) of the way to `target`'s."""
    if not isinstance(source, list) or not isinstance(target, list) or not source:
        raise ValueError("morph takes two lists of 1s and 0s and an amount, e.g. morph([1,0,1], [1,1,0], 0.5)")
    amount = to_time(by)
    dur = ONE / len(source)

    def positions(items: list[Any]) -> list[Any]:
        return [mpq(i, len(items)) for i, v in enumerate(items) if js_truthy(v)]

    starts, ends = positions(source), positions(target)
    if len(ends) < len(starts):
        raise ValueError("morph: the second rhythm has fewer onsets than the first")
    arcs = []
    for a, b in zip(starts, ends, strict=False):
        begin = amount * to_time(float(b) - float(a)) + a  # JavaScript subtracts these as numbers
        arcs.append(TimeSpan(begin, begin + dur))

    def query(span: TimeSpan, ctl: Any) -> list[Hap]:
        cycle = sam(span.begin)
        within = span.cycle_arc()
        out = []
        for whole in arcs:
            part = whole.intersection(within)
            if part is not None:
                out.append(
                    Hap(
                        TimeSpan(whole.begin + cycle, whole.end + cycle),
                        TimeSpan(part.begin + cycle, part.end + cycle),
                        True,
                    )
                )
        return out

    return Pattern(query).split_queries()


def morph(source: Any, target: Any, by: Any) -> Pattern:
    """A rhythm between two rhythms (lists of 1s and 0s): `by` 0 is the first, 1 the second."""
    return reify(source).inner_bind(
        lambda s: reify(target).inner_bind(lambda t: reify(by).inner_bind(lambda b: _morph(s, t, b)))
    )


def euclidish(pulses: Any, steps: Any, amount: Any, pat: Pattern) -> Pattern:
    """The euclidean rhythm (pulses, steps) morphed by `amount` towards even pulses."""
    rhythm = _morph(bjorklund(pulses, steps), [1] * int(pulses), amount)
    return _call("struct", pat, rhythm).set_steps(to_time(steps))
