"""Pattern constructors: pure values, silence, stacks and concatenations.

`pure` plays a value once per cycle; `stack` plays patterns at once;
`slowcat` plays one per cycle in turn (each keeping its own cycle count);
`fastcat`/`sequence` squeeze them into one cycle; `stepcat` gives each a share
of the cycle proportional to its steps. Lists inside arguments are sequences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from gmpy2 import mpq

from bandstand.patterns.budget import charge
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Controls, Pattern, gap, nothing, silence, time_lcm
from bandstand.patterns.time import ONE, ZERO, TimeSpan, to_time

__all__ = [
    "fastcat",
    "gap",
    "is_pattern",
    "nothing",
    "pure",
    "reify",
    "sequence",
    "sequence_p",
    "silence",
    "slowcat",
    "slowcat_prime",
    "stack",
    "steady",
    "stepcat",
]


def is_pattern(x: Any) -> bool:
    return isinstance(x, Pattern)


def pure(value: Any, location: tuple[int, int] | None = None) -> Pattern:
    """`value` once per cycle, with the cycle as its whole.

    `location` ((start, end) in the source text) goes into each hap's context,
    the same as ``pure(value).with_loc(start, end)`` in one step.
    """
    context = () if location is None else (location,)
    floor = math.floor

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        b, e = span.begin, span.end
        fb = floor(b)
        if b == e or e <= fb + 1:
            s = mpq(fb)
            charge()
            return [Hap(TimeSpan(s, s + 1), span, value, context)]
        out = []
        for sub in span.span_cycles():
            s = mpq(floor(sub.begin))
            out.append(Hap(TimeSpan(s, s + 1), sub, value, context))
        return out

    return Pattern(q, 1, pure=value, pure_loc=location, const=(value, context))


def steady(value: Any) -> Pattern:
    """`value` continuously (no whole)."""
    return Pattern(lambda span, ctl: [Hap(None, span, value)])


def reify(x: Any) -> Pattern:
    """A pattern as is; anything else as `pure(x)` (strings stay plain, as in Strudel)."""
    if isinstance(x, Pattern):
        return x
    return pure(x)


def _seq_arg(x: Any) -> Pattern:
    return sequence(*x) if isinstance(x, list) else reify(x)


def stack(*pats: Any) -> Pattern:
    """Play the patterns at once."""
    ps = [_seq_arg(p) for p in pats]
    queries = [p.query for p in ps]

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        out: list[Hap] = []
        for query in queries:
            out.extend(query(span, ctl))
        return out

    return Pattern(q, time_lcm(*(p.steps for p in ps)))


def slowcat(*pats: Any) -> Pattern:
    """One pattern per cycle, in turn; each keeps its own cycle count."""
    ps = [fastcat(*p) if isinstance(p, list) else reify(p) for p in pats]
    if len(ps) == 1:
        return ps[0]
    n = len(ps)

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        if n == 0:
            return []
        cyc = math.floor(span.begin)
        pat: Pattern = ps[cyc % n]
        offset = mpq(cyc - math.floor(span.begin / n))
        if offset == 0:
            return pat.query(span, ctl)
        out = []
        for h in pat.query(TimeSpan(span.begin - offset, span.end - offset), ctl):
            w = h.whole
            p = h.part
            out.append(
                Hap(
                    None if w is None else TimeSpan(w.begin + offset, w.end + offset),
                    TimeSpan(p.begin + offset, p.end + offset),
                    h.value,
                    h.context,
                )
            )
        return out

    return Pattern(q).split_queries().set_steps(time_lcm(*(p.steps for p in ps)))


def slowcat_prime(*pats: Any) -> Pattern:
    """Like slowcat, but each pattern is queried at the global cycle (no offset)."""
    ps = [reify(p) for p in pats]
    n = len(ps)

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        cyc = math.floor(span.begin)
        if n == 0 or (cyc < 0 and cyc % n):
            return []  # JavaScript's % keeps the sign: negative cycles index nothing
        pat: Pattern = ps[cyc % n]
        return pat.query(span, ctl)

    return Pattern(q).split_queries()


def fastcat(*pats: Any) -> Pattern:
    """The patterns squeezed into one cycle each in turn."""
    if len(pats) > 1 and not any(isinstance(p, list) for p in pats):
        children = [reify(p) for p in pats]
        if all(c.const is not None for c in children):
            return _fastcat_consts([c.const for c in children])  # type: ignore[misc]
    result = slowcat(*pats)
    if len(pats) > 1:
        result = result._fast(len(pats)).set_steps(mpq(len(pats)))
    return result


def _fastcat_consts(consts: list[tuple[Any, tuple[tuple[int, int], ...]]]) -> Pattern:
    """``slowcat(*pures).fast(n)`` computed directly: slot k of the query holds value k mod n."""
    n = len(consts)
    floor = math.floor

    def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
        b, e = span.begin * n, span.end * n
        if b == e:
            pieces = [(b, e)]
        else:
            pieces = []
            while e > b:
                charge()
                nxt = floor(b) + 1
                if e <= nxt:
                    pieces.append((b, e))
                    break
                pieces.append((b, mpq(nxt)))
                b = mpq(nxt)
        out = []
        for sb, se in pieces:
            c = floor(sb)
            value, context = consts[c % n]
            out.append(
                Hap(TimeSpan(mpq(c, n), mpq(c + 1, n)), TimeSpan(sb / n, se / n), value, context)
            )
        return out

    return Pattern(q, n)


def sequence(*pats: Any) -> Pattern:
    return fastcat(*pats)


def stepcat(*timepats: Any) -> Pattern:
    """Concatenate patterns, each taking a share of the cycle proportional to its steps.

    Each argument is a pattern (its steps, default 1) or a `[steps, pattern]` pair.
    """
    if not timepats:
        return nothing
    pairs: list[list[Any]] = []
    for x in timepats:
        if isinstance(x, (list, tuple)):
            pairs.append([None if x[0] is None else to_time(x[0]), x[1]])
        else:
            p = reify(x)
            pairs.append([p.steps if p.steps is not None else ONE, p])
    if len(pairs) == 1:
        only = reify(pairs[0][1])
        return only.with_steps(lambda _t: pairs[0][0])
    total = sum((p[0] for p in pairs), ZERO)
    begin = ZERO
    parts = []
    for time, pat in pairs:
        if time == 0:
            continue
        end = begin + time
        parts.append(reify(pat)._compress(begin / total, end / total))
        begin = end
    return stack(*parts).set_steps(total)


def sequence_p(pats: Sequence[Pattern]) -> Pattern:
    """A pattern of lists, one element from each pattern."""

    def appender(pat: Pattern) -> Callable[[list[Any]], Pattern]:
        return lambda lst: pat.fmap(lambda v: [*lst, v])

    result = pure([])
    for pat in pats:
        result = result.bind(appender(pat))
    return result
