"""Steps ("tactus"): patterns that know how many steps they have per cycle.

Strudel tracks a step count on patterns (a sequence of n elements has n steps,
`fast` keeps it, `stack` takes the lcm...). `take`, `drop`, `pace`,
`polymeter()` and friends use it; their patterned forms join with
`step_join`, which rebuilds each cycle as a `stepcat` of the inner patterns.
"""

from __future__ import annotations

import itertools
from typing import Any

from gmpy2 import mpq

from bandstand.patterns.budget import reserve
from bandstand.patterns.constructors import fastcat, reify, slowcat, stack, stepcat
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Controls, Pattern, nothing, silence, time_lcm
from bandstand.patterns.time import ONE, ZERO, TimeSpan, to_time
from bandstand.patterns.transforms import _call

__all__ = ["drop", "expand", "pace", "polymeter", "step_join", "take"]


def _slices(haps: list[Hap]) -> list[list[Any]]:
    points = sorted({ZERO, ONE, *(h.part.begin for h in haps), *(h.part.end for h in haps)})
    out = []
    for b, e in itertools.pairwise(points):
        span = TimeSpan(b, e)
        pats = []
        for h in haps:
            sub = span.intersection(h.part)
            if sub is None:
                continue
            ctx = h.context
            pats.append(
                h.value.with_hap(lambda x, ctx=ctx: Hap(x.whole, x.part, x.value, x.context + ctx))
            )
        out.append([e - b, stack(*pats)])
    return out


def _retime(timed: list[list[Any]]) -> list[list[Any]]:
    # Strudel's _retime never finds a total (its filter reads the index): undefined steps stay undefined.
    return [[pat.steps, pat] for _dur, pat in timed]


def _stepcat_maybe(pairs: list[list[Any]]) -> Pattern:
    times = [p[0] for p in pairs if p[0] is not None]
    if len(times) != len(pairs):
        if not times:
            return fastcat(*[p[1] for p in pairs])
        avg = sum(times, ZERO) / len(times)
        pairs = [[avg if p[0] is None else p[0], p[1]] for p in pairs]
    return stepcat(*pairs)


def step_join(pp: Pattern) -> Pattern:
    """Join a pattern of patterns cycle by cycle, each inner pattern taking its steps."""

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        cycle = mpq(int(span.begin // 1))
        haps = pp._early(cycle).query(TimeSpan(ZERO, ONE), ctl)
        return _stepcat_maybe(_retime(_slices(haps))).query(span, ctl)

    first = _stepcat_maybe(_retime(_slices(pp.query(TimeSpan(ZERO, ONE), {}))))
    return Pattern(q, first.steps)


def take(i: Any, pat: Pattern) -> Pattern:
    if pat.steps is None or pat.steps <= 0:
        return nothing
    ii = to_time(i)
    if ii == 0:
        return nothing
    flip = ii < 0
    frac = abs(ii) / pat.steps
    if frac <= 0:
        return nothing
    if frac >= 1:
        return pat
    if flip:
        return pat._zoom(ONE - frac, 1)
    return pat._zoom(0, frac)


def drop(i: Any, pat: Pattern) -> Pattern:
    if pat.steps is None:
        return nothing
    ii = to_time(i)
    if ii < 0:
        return _call("take", pat, pat.steps + ii)
    return _call("take", pat, ZERO - (pat.steps - ii))


def pace(target: Any, pat: Pattern) -> Pattern:
    if pat.steps is None:
        return pat
    if pat.steps == 0:
        return nothing
    return pat._fast(to_time(target) / pat.steps).set_steps(target)


def expand(factor: Any, pat: Pattern) -> Pattern:
    return pat._expand(factor)


def contract(factor: Any, pat: Pattern) -> Pattern:
    return pat.with_steps(lambda t: t / to_time(factor))


def extend(factor: Any, pat: Pattern) -> Pattern:
    return _call("fast", pat, factor)._expand(factor)


def replicate(factor: Any, pat: Pattern) -> Pattern:
    return _call("fast", pat._repeat_cycles(factor), factor)._expand(factor)


def polymeter(*args: Any) -> Pattern:
    """Strudel's ``polymeter()`` function: each pattern paced to the lcm of their steps."""
    if args and isinstance(args[0], list):
        return _polymeter_lists(0, *args)
    pats = [reify(a) for a in args]
    pats = [p for p in pats if p.steps is not None]
    if not pats:
        return silence
    steps = time_lcm(*(p.steps for p in pats))
    if steps == 0:
        return nothing
    return stack(*[pace(steps, p) for p in pats]).set_steps(steps)


def _polymeter_lists(steps: Any, *args: Any) -> Pattern:
    def count(x: Any) -> tuple[Pattern, int]:
        if isinstance(x, list):
            if not x:
                return silence, 0
            if len(x) == 1:
                return count(x[0])
            return fastcat(*[count(a)[0] for a in x]), len(x)
        return reify(x), 1

    seqs = [count(a) for a in args]
    if not seqs:
        return silence
    if steps == 0:
        steps = seqs[0][1]
    pats = [p if steps == c else p._fast(mpq(steps, c)) for p, c in seqs if c != 0]
    return stack(*pats)


# ------------------------------------------------------------ shrink, grow, tour, zip


_MAX_PIECES = 100_000  # pieces one shrink, grow, tour or stepalt may build


def shrink_list(amount: Any, pat: Pattern) -> list[Pattern]:
    """The pattern zoomed to drop `amount` more steps each time, from the start (amount > 0)
    or the end (amount < 0); [amount, times] limits how many."""
    if pat.steps is None:
        return [pat]
    amountv, times = amount if isinstance(amount, list) else (amount, pat.steps)
    amountv = to_time(amountv)
    if times == 0:
        return [pat]
    seg = ONE / pat.steps * abs(amountv)
    ranges = []
    i = 0
    while i < times:
        if i >= _MAX_PIECES:
            raise ValueError(f"shrink/grow would make more than {_MAX_PIECES} pieces")
        reserve(1)
        if amountv > 0:
            s = seg * i
            if s > 1:
                break
            ranges.append((s, ONE))
        else:
            e = ONE - seg * i
            if e < 0:
                break
            ranges.append((ZERO, e))
        i += 1
    return [pat._zoom(s, e) for s, e in ranges]


def shrink(amount: Any, pat: Pattern) -> Pattern:
    """The pattern, then less and less of it (Strudel's experimental `shrink`)."""
    if pat.steps is None:
        return nothing
    return stepcat(*shrink_list(amount, pat))


def grow(amount: Any, pat: Pattern) -> Pattern:
    """More and more of the pattern, up to all of it (Strudel's experimental `grow`)."""
    if pat.steps is None:
        return nothing
    if isinstance(amount, list):
        raise ValueError("grow takes a number of steps")
    return stepcat(*reversed(shrink_list(ZERO - to_time(amount), pat)))


def tour(pat: Pattern, *many: Any) -> Pattern:
    """The pattern placed in turn between each of the others, from the end."""
    n = len(many)
    if n * (n + 2) > _MAX_PIECES:
        raise ValueError(f"tour would make more than {_MAX_PIECES} pieces")
    reserve(n * (n + 2))
    parts: list[Any] = []
    for i in range(n):
        parts += [*many[: n - i], pat, *many[n - i :]]
    return stepcat(*parts, pat, *many)


def zip_steps(*pats: Any) -> Pattern:
    """One step of each pattern in turn."""
    stepped = [p for p in (reify(x) for x in pats) if p.steps is not None]
    if not stepped:
        return nothing
    steps = time_lcm(*(p.steps for p in stepped))
    return slowcat(*(p._slow(p.steps) for p in stepped))._fast(steps).set_steps(steps)


def stepalt(*groups: Any) -> Pattern:
    """Step-wise alternation: lists take turns, one element per turn (Strudel's `stepalt`)."""
    lists = [[reify(x) for x in g] if isinstance(g, list) else [reify(g)] for g in groups]
    cycles = int(time_lcm(*(to_time(len(g)) for g in lists)) or 0)
    if cycles * len(lists) > _MAX_PIECES:
        raise ValueError(f"stepalt would make more than {_MAX_PIECES} pieces")
    reserve(cycles * len(lists))
    chosen = [g[c % len(g)] if g else silence for c in range(cycles) for g in lists]
    chosen = [p for p in chosen if p.steps is not None and p.steps > 0]
    return stepcat(*chosen)
