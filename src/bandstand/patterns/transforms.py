"""Pattern transforms of time and structure, each written once with plain arguments.

Every function here takes its arguments as plain values (numbers, functions)
and the pattern last, exactly like the function Strudel passes to
``register``; `bandstand.patterns.library` registers them, which derives the
patternified function form and the method. Semantics follow @strudel/core
1.2.6 (pattern.mjs, euclid.mjs, pick.mjs).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from gmpy2 import mpq

from bandstand.patterns.budget import reserve
from bandstand.patterns.constructors import (
    fastcat,
    pure,
    reify,
    sequence,
    slowcat,
    slowcat_prime,
    stack,
    stepcat,
)
from bandstand.patterns.hap import Hap
from bandstand.patterns.ops import apply_op, keepif_out
from bandstand.patterns.pattern import Pattern, silence, time_lcm
from bandstand.patterns.time import ONE, TimeSpan, to_time
from bandstand.patterns.values import js_truthy, norm_number, parse_numeral

PatFunc = Callable[[Pattern], Pattern]


def js_object(v: Any) -> dict[str, Any]:
    """``Object.assign({}, v)``: objects copy, arrays and strings by index, the rest empty."""
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, (list, str)):
        return {str(i): x for i, x in enumerate(v)}
    return {}


def js_round(x: float) -> int:
    """JavaScript's Math.round (halves go up)."""
    return math.floor(x + 0.5)


def _call(method: str, pat: Pattern, *args: Any) -> Pattern:
    """A registered method by name (the patternified form), e.g. ``pat.late(x)``."""
    result: Pattern = getattr(pat, method)(*args)
    return result


# ---------------------------------------------------------------------- time


def fast(factor: Any, pat: Pattern) -> Pattern:
    return pat._fast(factor)


def slow(factor: Any, pat: Pattern) -> Pattern:
    return pat._slow(factor)


def early(offset: Any, pat: Pattern) -> Pattern:
    return pat._early(offset)


def late(offset: Any, pat: Pattern) -> Pattern:
    return pat._late(offset)


def hurry(r: Any, pat: Pattern) -> Pattern:
    return apply_op("mul", "in", pat._fast(r), pure({"speed": r}))


# Strudel's scheduler starts at this tempo (cycles per second); strudel.cc's REPL defines
# `.cpm(n)` against the scheduler's tempo, so without a setcpm it is fast(n / 60 / 0.5).
DEFAULT_CPS = 0.5


def cpm(c: Any, pat: Pattern) -> Pattern:
    return pat._fast(c / 60 / DEFAULT_CPS)


def compress(b: Any, e: Any, pat: Pattern) -> Pattern:
    return pat._compress(b, e)


def fast_gap(factor: Any, pat: Pattern) -> Pattern:
    return pat._fast_gap(factor)


def focus(b: Any, e: Any, pat: Pattern) -> Pattern:
    return pat._focus(b, e)


def zoom(s: Any, e: Any, pat: Pattern) -> Pattern:
    return pat._zoom(s, e)


def linger(t: Any, pat: Pattern) -> Pattern:
    if t == 0:
        return silence
    tt = to_time(t)
    if tt < 0:
        return pat._zoom(tt + 1, 1)._slow(tt)
    return pat._zoom(0, tt)._slow(tt)


def inside(factor: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return reify(func(pat._slow(factor)))._fast(factor)


def outside(factor: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return reify(func(pat._fast(factor)))._slow(factor)


def rev(pat: Pattern) -> Pattern:
    query = pat.query

    def q(span: TimeSpan, ctl: Any) -> list[Hap]:
        cycle = mpq(math.floor(span.begin))
        nxt = cycle + 1

        def reflect(s: TimeSpan) -> TimeSpan:
            return TimeSpan(cycle + (nxt - s.end), cycle + (nxt - s.begin))

        return [h.with_span(reflect) for h in query(reflect(span), ctl)]

    return Pattern(q).split_queries()


def revv(pat: Pattern) -> Pattern:
    def neg(s: TimeSpan) -> TimeSpan:
        return TimeSpan(-s.end, -s.begin)

    return pat.with_query_span(neg).with_hap_span(neg)


def repeat_cycles(n: Any, pat: Pattern) -> Pattern:
    return pat._repeat_cycles(n)


def ply(factor: Any, pat: Pattern) -> Pattern:
    result = pat.fmap(lambda x: pure(x)._fast(factor)).squeeze_join()
    return result.set_steps(None if pat.steps is None else to_time(factor) * pat.steps)


def apply_n(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    result = pat
    i = 0
    while i < n:
        result = reify(func(result))
        i += 1
    return result


def ply_with(factor: Any, func: PatFunc, pat: Pattern) -> Pattern:
    count = math.ceil(factor) if factor > 0 else 0

    def expand(x: Any) -> Pattern:
        reserve(count * (count + 1) // 2)  # the i-th copy applies func i times
        return slowcat(*[apply_n(i, func, pure(x)) for i in range(count)])._fast(factor)

    result = pat.fmap(expand).squeeze_join()
    return result.set_steps(None if pat.steps is None else to_time(factor) * pat.steps)


def ply_for_each(factor: Any, func: Callable[..., Any], pat: Pattern) -> Pattern:
    """Each event `factor` times: the first as it is, the i-th through `func(pure(x), i)`."""

    def expand(x: Any) -> Pattern:
        rest = [reify(func(pure(x), i)) for i in _list_range(1, factor - 1)]
        return slowcat(pure(x), *rest)._fast(factor)

    result = pat.fmap(expand).squeeze_join()
    return result.set_steps(None if pat.steps is None else to_time(factor) * pat.steps)


def _list_range(lo: Any, hi: Any) -> list[Any]:
    n = math.floor(hi - lo + 1) if hi - lo + 1 > 0 else 0
    reserve(n)
    return [i + lo for i in range(n)]


def _iter(times: Any, pat: Pattern, back: bool) -> Pattern:
    t = to_time(times)
    pats = [
        pat._late(mpq(i) / t) if back else pat._early(mpq(i) / t) for i in _list_range(0, t - 1)
    ]
    return slowcat(*pats)


def iter_(times: Any, pat: Pattern) -> Pattern:
    return _iter(times, pat, False)


def iter_back(times: Any, pat: Pattern) -> Pattern:
    return _iter(times, pat, True)


def every(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    reserve(max(int(n) - 1, 0))
    pats = [pat] * max(int(n) - 1, 0)
    return slowcat_prime(reify(func(pat)), *pats)


def last_of(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    reserve(max(int(n) - 1, 0))
    pats = [pat] * max(int(n) - 1, 0)
    return slowcat_prime(*pats, reify(func(pat)))


def palindrome(pat: Pattern) -> Pattern:
    return last_of(2, rev, pat)


def when(on: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return reify(func(pat)) if js_truthy(on) else pat


def within(a: Any, b: Any, func: PatFunc, pat: Pattern) -> Pattern:
    def pos(h: Hap) -> float:
        t = h.whole.begin  # type: ignore[union-attr]
        return float(t - math.floor(t))

    # Strudel filters with `filter` (withHaps), which keeps the step count
    inside_ = pat.with_haps(lambda haps, _s, _c: [h for h in haps if a <= pos(h) <= b])
    outside_ = pat.with_haps(lambda haps, _s, _c: [h for h in haps if pos(h) < a or pos(h) > b])
    return stack(reify(func(inside_)), outside_)


def _chunk(n: Any, func: PatFunc, pat: Pattern, back: bool = False, fast_: bool = False) -> Pattern:
    count = int(n)
    reserve(count)
    binary = [True] + [False] * (count - 1)
    binary_pat = _iter(n, sequence(*binary), not back)
    if not fast_:
        pat = pat._repeat_cycles(n)
    return _call("when", pat, binary_pat, func)


def chunk(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return _chunk(n, func, pat)


def chunk_back(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return _chunk(n, func, pat, back=True)


def fast_chunk(n: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return _chunk(n, func, pat, fast_=True)


def off(time: Any, func: PatFunc, pat: Pattern) -> Pattern:
    return stack(pat, reify(func(_call("late", pat, time))))


def superimpose(*args: Any) -> Pattern:
    *funcs, pat = args
    return stack(pat, *[reify(f(pat)) for f in funcs])


def layer(*args: Any) -> Pattern:
    *funcs, pat = args
    return stack(*[reify(f(pat)) for f in funcs])


def apply_(func: PatFunc, pat: Pattern) -> Pattern:
    return reify(func(pat))


def brak(pat: Pattern) -> Pattern:
    return _call("when", pat, slowcat(False, True), lambda x: fastcat(x, silence)._late(mpq(1, 4)))


def press_by(r: Any, pat: Pattern) -> Pattern:
    return pat.fmap(lambda x: pure(x)._compress(r, 1)).squeeze_join()


def press(pat: Pattern) -> Pattern:
    return press_by(0.5, pat)


def swing_by(swing: Any, n: Any, pat: Pattern) -> Pattern:
    return inside(n, lambda p: _call("late", p, sequence(0, swing / 2)), pat)


def swing(n: Any, pat: Pattern) -> Pattern:
    return swing_by(1 / 3, n, pat)


def segment(rate: Any, pat: Pattern) -> Pattern:
    return keepif_out(pat, pure(True)._fast(rate)).set_steps(rate)


def invert(pat: Pattern) -> Pattern:
    return pat.fmap(lambda x: not js_truthy(x))


def echo_with(times: Any, time: Any, func: Callable[..., Any], pat: Pattern) -> Pattern:
    t = to_time(time)
    layers = []
    for i in _list_range(0, times - 1):
        layers.append(reify(_call_func(func, _call("late", pat, t * i), i)))
    return stack(*layers)


def _call_func(func: Callable[..., Any], pat: Pattern, i: int) -> Any:
    try:
        return func(pat, i)
    except TypeError:
        return func(pat)


def echo(times: Any, time: Any, feedback: Any, pat: Pattern) -> Pattern:
    return echo_with(
        times, time, lambda p, i: _call("gain", p, norm_number(math.pow(feedback, i))), pat
    )


def stut(times: Any, feedback: Any, time: Any, pat: Pattern) -> Pattern:
    return echo(times, time, feedback, pat)


def jux_by(by: Any, func: PatFunc, pat: Pattern) -> Pattern:
    half = by / 2

    def panned(delta: float) -> Callable[[Any], Any]:
        def f(v: Any) -> Any:
            base = js_object(v)
            return {**base, "pan": norm_number(base.get("pan", 0.5) + delta)}

        return f

    left = pat.with_value(panned(-half))
    right = reify(func(pat.with_value(panned(half))))
    return stack(left, right).set_steps(time_lcm(left.steps, right.steps))


def jux(func: PatFunc, pat: Pattern) -> Pattern:
    return jux_by(1, func, pat)


def bite(npat: Pattern, ipat: Pattern, pat: Pattern) -> Pattern:
    def slicer(i: Any) -> Callable[[Any], Pattern]:
        def with_n(n: Any) -> Pattern:
            a = (to_time(i) / to_time(n)) % 1
            return pat._zoom(a, a + ONE / to_time(n))

        return with_n

    return ipat.fmap(slicer).app_left(npat).squeeze_join()


def ribbon(offset: Any, cycles: Any, pat: Pattern) -> Pattern:
    return apply_op("keepif", "restart", _call("early", pat, offset), pure(1)._slow(cycles))


def chop(n: Any, pat: Pattern) -> Pattern:
    count = int(n)
    reserve(count)
    slices = [{"begin": norm_number(i / n), "end": norm_number((i + 1) / n)} for i in range(count)]

    def merge(a: Any, b: dict[str, Any]) -> Any:
        if isinstance(a, dict) and a.get("begin") is not None and a.get("end") is not None:
            d = a["end"] - a["begin"]
            b = {
                "begin": norm_number(a["begin"] + b["begin"] * d),
                "end": norm_number(a["begin"] + b["end"] * d),
            }
        return {**js_object(a), **b}

    result = pat.squeeze_bind(lambda o: sequence(*[merge(o, s) for s in slices]))
    return result.set_steps(None if pat.steps is None else to_time(n) * pat.steps)


def striate(n: Any, pat: Pattern) -> Pattern:
    count = int(n)
    reserve(count)
    slices = [{"begin": norm_number(i / n), "end": norm_number((i + 1) / n)} for i in range(count)]
    result = apply_op("set", "in", pat, slowcat(*slices))._fast(n)
    return result.set_steps(None if pat.steps is None else to_time(n) * pat.steps)


# ---------------------------------------------------------------------- numbers


def round_(pat: Pattern) -> Pattern:
    return pat.fmap(lambda v: js_round(parse_numeral(v)))


def floor_(pat: Pattern) -> Pattern:
    return pat.fmap(lambda v: math.floor(parse_numeral(v)))


def ceil_(pat: Pattern) -> Pattern:
    return pat.fmap(lambda v: math.ceil(parse_numeral(v)))


def to_bipolar(pat: Pattern) -> Pattern:
    return pat.fmap(lambda x: norm_number(x * 2 - 1))


def from_bipolar(pat: Pattern) -> Pattern:
    return pat.fmap(lambda x: norm_number((x + 1) / 2))


def range_(lo: Any, hi: Any, pat: Pattern) -> Pattern:
    return apply_op("add", "in", apply_op("mul", "in", pat, norm_number(hi - lo)), lo)


def rangex(lo: Any, hi: Any, pat: Pattern) -> Pattern:
    return range_(math.log(lo), math.log(hi), pat).fmap(lambda v: norm_number(math.exp(v)))


def range2(lo: Any, hi: Any, pat: Pattern) -> Pattern:
    return range_(lo, hi, from_bipolar(pat))


# ---------------------------------------------------------------------- structure


def struct(b: Any, pat: Pattern) -> Pattern:
    return keepif_out(pat, b)


def mask(b: Any, pat: Pattern) -> Pattern:
    return apply_op("keepif", "in", pat, b)


def arrange(*sections: Any) -> Pattern:
    total = sum(s[0] for s in sections)
    parts = [[s[0], reify(s[1])._fast(s[0])] for s in sections]
    return stepcat(*parts)._slow(total)


def ratio(pat: Pattern) -> Pattern:
    """[a, b, c] → a / b / c (other values unchanged)."""

    def divide(v: Any) -> Any:
        if not isinstance(v, list) or not v:
            return v
        out = parse_numeral(v[0])
        for x in v[1:]:
            out = out / x if x != 0 else (math.copysign(math.inf, out) if out else math.nan)
        return norm_number(out)

    return pat.fmap(divide)


def _parse_int(x: Any) -> int | None:
    """JavaScript's parseInt for the values patterns carry."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return None if x != x or math.isinf(x) else int(x)
    m = re.match(r"\s*([+-]?\d+)", str(x))
    return int(m.group(1)) if m else None


def bypass(on: Any, pat: Pattern) -> Pattern:
    """Silence the pattern while `on` is a non-zero integer."""
    return silence if _parse_int(on) else pat


def hush(pat: Pattern) -> Pattern:
    return silence


def beat(t: Any, div: Any, pat: Pattern) -> Pattern:
    """Place each event at step `t` of `div` steps."""
    d = to_time(div)
    tt = to_time(t) % d
    b, e = tt / d, (tt + 1) / d
    return pat.fmap(lambda x: pure(x)._compress(b, e)).inner_join()


def slice_(npat: Pattern, ipat: Pattern, opat: Pattern) -> Pattern:
    """Play slice i of n of each sample: sets begin/end (n may be a list of cut points)."""

    def with_n(n: Any) -> Pattern:
        def with_i(i: Any) -> Pattern:
            def with_o(o: Any) -> Pattern:
                base = (
                    o
                    if isinstance(o, dict)
                    else (js_object(o) if isinstance(o, list) else {"s": o})
                )
                if isinstance(n, list):
                    begin = n[int(i)] if 0 <= int(i) < len(n) else None
                    end = n[int(i) + 1] if 0 <= int(i) + 1 < len(n) else None
                else:
                    begin, end = norm_number(i / n), norm_number((i + 1) / n)
                return pure({"begin": begin, "end": end, "_slices": n, **base})

            return opat.outer_bind(with_o)

        return ipat.outer_bind(with_i)

    return npat.inner_bind(with_n).set_steps(ipat.steps)


def splice(npat: Pattern, ipat: Pattern, opat: Pattern) -> Pattern:
    """Like slice, with the speed set so that each slice fills its event (at 1 cycle/s)."""
    sliced = slice_(npat, ipat, opat)

    def fit(haps: list[Hap], span: TimeSpan, ctl: Any) -> list[Hap]:
        cps = ctl.get("_cps") or 1
        out = []
        for h in haps:
            v = h.value
            duration = float(h.whole.end - h.whole.begin) if h.whole is not None else math.nan
            speed = norm_number(cps / v["_slices"] / duration * (v.get("speed") or 1))
            out.append(Hap(h.whole, h.part, {"speed": speed, "unit": "c", **v}, h.context))
        return out

    return Pattern(lambda span, ctl: fit(sliced.query(span, ctl), span, ctl), ipat.steps)
