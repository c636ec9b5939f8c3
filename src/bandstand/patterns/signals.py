"""Continuous signals and seeded randomness, bit-exact with Strudel.

A signal is sampled at the *begin* of each query span and has no whole.
Randomness is Strudel's "legacy" xorshift generator over time: the value at
time t (plus the seed set by ``.seed(n)``) repeats every 300 cycles, and
``rand(0) == 0``. Random transforms (degrade, sometimes, shuffle, choose, ...)
sample it at the start of each event, exactly as Strudel does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gmpy2 import mpq

from bandstand.patterns.budget import reserve
from bandstand.patterns.constructors import fastcat, pure, reify, sequence_p, stack
from bandstand.patterns.hap import Hap
from bandstand.patterns.ops import apply_op
from bandstand.patterns.pattern import Pattern, silence
from bandstand.patterns.time import TimeSpan, to_time
from bandstand.patterns.transforms import _call, from_bipolar, range_, segment, to_bipolar

_2_29 = 536870912
PatFunc = Callable[[Pattern], Pattern]


# ---------------------------------------------------------------------- the generator


def _xorwise(x: int) -> int:
    """Strudel's xorshift step on 32-bit signed integers (JavaScript's << >> ^)."""
    a = ((((x << 13) + 0x80000000) & 0xFFFFFFFF) - 0x80000000) ^ x
    b = (a >> 17) ^ a
    return ((((b << 5) + 0x80000000) & 0xFFFFFFFF) - 0x80000000) ^ b


def _js_rem(a: float, b: float) -> float:
    return math.fmod(a, b)


def _time_to_int_seed(x: float) -> int:
    y = x / 300
    frac = y - math.trunc(y)
    return _xorwise(math.trunc(frac * _2_29))


def _int_seed_to_rand(x: int) -> float:
    return _js_rem(x, _2_29) / _2_29


def rands_at(t: Any, n: int = 1, seed: Any = None) -> Any:
    """Strudel's getRandsAtTime: one value in [0, 1) for n == 1, else a list of n (signed)."""
    x = float(t) + (0 if seed is None else seed)
    s = _time_to_int_seed(x)
    if n == 1:
        return abs(_int_seed_to_rand(s))
    out = []
    reserve(n)
    for _ in range(n):
        out.append(_int_seed_to_rand(s))
        s = _xorwise(s)
    return out


# ---------------------------------------------------------------------- signals


def signal(func: Callable[[Any, dict[str, Any]], Any]) -> Pattern:
    """A continuous pattern whose value is `func(begin, controls)` for each query."""
    return Pattern(lambda span, ctl: [Hap(None, span, func(span.begin, ctl))], sampler=func)


def _seed(ctl: dict[str, Any]) -> Any:
    return ctl.get("randSeed")


saw = signal(lambda t, c: math.fmod(float(t), 1))
saw2 = to_bipolar(saw)
isaw = signal(lambda t, c: 1 - math.fmod(float(t), 1))
isaw2 = to_bipolar(isaw)
sine2 = signal(lambda t, c: math.sin(math.pi * 2 * float(t)))
sine = from_bipolar(sine2)
cosine = sine._early(mpq(1, 4))
cosine2 = sine2._early(mpq(1, 4))
square = signal(lambda t, c: math.floor(math.fmod(float(t) * 2, 2)))
# The length of the span queried: with structure from another pattern, each event's length in
# cycles (cyclesPer) or events per cycle (per). Strudel's values are Fractions that become
# numbers in any arithmetic; here they are those numbers.
cycles_per = Pattern(lambda span, ctl: [Hap(None, span, float(span.end - span.begin))])
per = Pattern(lambda span, ctl: [Hap(None, span, float(1 / (span.end - span.begin)))])
square2 = to_bipolar(square)
tri = fastcat(saw, isaw)
tri2 = fastcat(saw2, isaw2)
itri = fastcat(isaw, saw)
itri2 = fastcat(isaw2, saw2)
rand = signal(lambda t, c: rands_at(t, 1, _seed(c)))
rand2 = to_bipolar(rand)


def _perlin_at(t: Any, seed: Any) -> float:
    ft = float(t)
    ta = math.floor(ft)
    tb = ta + 1

    def smoother(x: float) -> float:
        return 6.0 * x**5 - 15.0 * x**4 + 10.0 * x**3

    ra = rands_at(ta, 1, seed)
    rb = rands_at(tb, 1, seed)
    return float(ra + smoother(ft - ta) * (rb - ra))


perlin = signal(lambda t, c: _perlin_at(t, _seed(c)))


def _berlin_at(t: Any, seed: Any) -> float:
    ft = float(t)
    prev = math.floor(ft)
    bottom = rands_at(prev, 1, seed)
    height = rands_at(prev + 1, 1, seed)
    top = bottom + height
    return float((bottom + (ft - prev) * (top - bottom)) / 2)


berlin = signal(lambda t, c: _berlin_at(t, _seed(c)))


def binary_n(n: Any, bits: Any = 16) -> Pattern:
    """The bits of `n` (most significant first) as a sequence of 0/1, `bits` steps per cycle."""
    nbits = reify(bits)
    positions = apply_op(
        "add", "in", apply_op("mul", "in", run(nbits), -1), apply_op("sub", "in", nbits, 1)
    )
    shifted = apply_op("brshift", "in", _call("segment", reify(n), nbits), positions)
    return apply_op("band", "in", shifted, pure(1))


def _bit_count(n: Any) -> Pattern:
    """How many bits `n` needs: floor(log2(n)) + 1, as a pattern."""
    return apply_op("add", "in", _call("floor", apply_op("log2", "in", reify(n), 0)), 1)


def binary(n: Any) -> Pattern:
    """The bits of `n`, as many as it needs."""
    return binary_n(n, _bit_count(n))


def _int32(x: Any) -> int:
    """JavaScript's ToInt32: the number truncated, wrapped to a signed 32-bit integer."""
    f = float(x)
    if not math.isfinite(f):
        return 0
    u = int(f) % 2**32
    return u - 2**32 if u >= 2**31 else u


def _bits(value: Any, count: Any) -> list[int]:
    """The lowest `count` bits of `value`, most significant first (JavaScript's `v >> i & 1`)."""
    out: list[int] = []
    i = float(count) - 1
    v = _int32(value)
    while i >= 0:
        out.append((v >> (_int32(i) & 31)) & 1)
        i -= 1
        if len(out) > 64:  # a count beyond a number's bits repeats the shifts: stop there
            break
    return out


def binary_nl(n: Any, bits: Any = 16) -> Pattern:
    """The bits of `n` as one list value per event, `bits` of them (most significant first)."""
    return reify(n).fmap(lambda v: lambda count: _bits(v, count)).app_left(reify(bits))


def binary_l(n: Any) -> Pattern:
    """The bits of `n` as one list value per event, as many as it needs."""
    return binary_nl(n, _bit_count(n))


def run(n: Any) -> Pattern:
    """0 .. n-1, one per step."""
    return _call("segment", _call("round", _call("range", saw, 0, n)), n)


def _brand_by(p: Any) -> Pattern:
    return rand.fmap(lambda x: x < p)


brand = _brand_by(0.5)


def brand_by(p: Any) -> Pattern:
    return reify(p).fmap(_brand_by).inner_join()


def _irand(i: Any) -> Pattern:
    return rand.fmap(lambda x: math.trunc(x * i))


def irand(n: Any) -> Pattern:
    """Random integers 0 .. n-1 (continuous; use with segment or struct)."""
    return reify(n).fmap(_irand).inner_join()


_orders: dict[tuple[Any, int, Any], list[int]] = {}


def _randrun_order(cycle: int, n: int, seed: Any) -> list[int]:
    """The permutation randrun plays in `cycle` (cached: every step of the cycle needs it)."""
    key = (cycle, n, seed if isinstance(seed, (int, float, str, type(None))) else repr(seed))
    order = _orders.get(key)
    if order is None:
        rs = rands_at(mpq(cycle) + mpq(1, 2), n, seed)
        values = rs if isinstance(rs, list) else [rs]
        order = [i for _, i in sorted(((v, i) for i, v in enumerate(values)), key=lambda p: p[0])]
        if len(_orders) > 4096:
            _orders.clear()
        _orders[key] = order
    return order


def _randrun_value(t: Any, ctl: dict[str, Any], n: int) -> Any:
    cycle = math.floor(t)
    order = _randrun_order(cycle, n, _seed(ctl))
    return order[math.floor((t - cycle) * n) % n]


def randrun(n: Any) -> Pattern:
    count = int(n)
    return segment(n, signal(lambda t, c: _randrun_value(t, c, count)))


# ---------------------------------------------------------------------- choosing


def _choose_with(pat: Pattern, xs: list[Any]) -> Pattern | None:
    pats = [reify(x) for x in xs]
    if not pats:
        return None
    n = len(pats)
    return range_(0, n, pat).fmap(lambda i: pats[min(max(math.floor(i), 0), n - 1)])


def choose_with(pat: Pattern, *xs: Any) -> Pattern:
    chosen = _choose_with(reify(pat), list(xs))
    return silence if chosen is None else chosen.outer_join()


def choose_in_with(pat: Pattern, *xs: Any) -> Pattern:
    chosen = _choose_with(reify(pat), list(xs))
    return silence if chosen is None else chosen.inner_join()


def rand_list(n: Any) -> Pattern:
    """A list of n random numbers in [0, 1) at each moment (Strudel's randL)."""

    def rands(t: Any, c: dict[str, Any]) -> Any:
        return lambda count: [abs(x) for x in _rand_list(t, count)]

    return signal(rands).app_left(reify(n))


def _rand_list(t: Any, count: Any) -> list[float]:
    values = rands_at(t, int(count))
    if not isinstance(values, list):
        raise ValueError("randL needs a list of 2 or more")
    return values


def choose_with_list(pat: Any, xs: Any) -> Pattern:
    """Strudel's chooseWith(pat, [x, …]): the list as one argument."""
    if not isinstance(xs, list):
        raise ValueError("chooseWith takes a pattern of 0…1 and a list, e.g. chooseWith(sine, [0, 2, 7])")
    return choose_with(pat, *xs)


def choose_in_with_list(pat: Any, xs: Any) -> Pattern:
    if not isinstance(xs, list):
        raise ValueError("chooseInWith takes a pattern of 0…1 and a list")
    return choose_in_with(pat, *xs)


def choose(*xs: Any) -> Pattern:
    """A random choice among `xs` (continuous: sampled per event of what it is used with)."""
    return choose_with(rand, *xs)


def choose_in(*xs: Any) -> Pattern:
    return choose_in_with(rand, *xs)


def choose_cycles(*xs: Any) -> Pattern:
    """One random pattern of `xs` per cycle."""
    return choose_in_with(segment(1, rand), *xs)


def _wchoose_with(pat: Pattern, *pairs: Any) -> Pattern:
    values = [reify(p[0]) for p in pairs]
    weights = []
    total: Pattern = pure(0)
    for p in pairs:
        total = apply_op("add", "in", total, p[1])
        weights.append(total)
    weightspat = sequence_p(weights)

    def match(r: Any) -> Pattern:
        findpat = apply_op("mul", "in", total, r)

        def pick(ws: list[Any]) -> Callable[[Any], Any]:
            def find(f: Any) -> Any:
                for i, w in enumerate(ws):
                    if w > f:
                        return values[i]
                return None

            return find

        return weightspat.fmap(pick).app_left(findpat)

    return pat.bind(match)


def wchoose(*pairs: Any) -> Pattern:
    return _wchoose_with(rand, *pairs).outer_join()


def wchoose_cycles(*pairs: Any) -> Pattern:
    """One pattern per cycle, chosen with the given weights: ``[[pat, weight], ...]``."""
    return _wchoose_with(segment(1, rand), *pairs).inner_join()


# ---------------------------------------------------------------------- random transforms


def degrade_by_with(with_pat: Pattern, x: Any, pat: Pattern) -> Pattern:
    """Keep the events of `pat` where `with_pat`, sampled at their start, is above `x`."""
    sampler = with_pat.sampler
    if sampler is None:
        return pat.fmap(lambda a: lambda _: a).app_left(with_pat.filter_values(lambda v: v > x))
    query = pat.query

    # the same as the line above for a plain signal, without building its haps
    def q(span: TimeSpan, ctl: dict[str, Any]) -> list[Hap]:
        out = []
        for h in query(span, ctl):
            w = h.whole
            target = h.part if w is None else w
            if sampler(target.begin, ctl) > x:
                part = h.part.intersection(target)
                if part is not None:
                    out.append(Hap(w, part, h.value, h.context))
        return out

    return Pattern(q, pat.steps)


def degrade_by(x: Any, pat: Pattern) -> Pattern:
    return degrade_by_with(rand, x, pat)


def undegrade_by(x: Any, pat: Pattern) -> Pattern:
    return degrade_by_with(rand.fmap(lambda r: 1 - r), x, pat)


def degrade(pat: Pattern) -> Pattern:
    return degrade_by(0.5, pat)


def undegrade(pat: Pattern) -> Pattern:
    return undegrade_by(0.5, pat)


def sometimes_by(x: Any, func: PatFunc, pat: Pattern) -> Pattern:
    def both(v: Any) -> Pattern:
        return stack(degrade_by(v, pat), reify(func(undegrade_by(1 - v, pat))))

    if not isinstance(x, Pattern):
        # Strudel rebuilds this for every cycle of pure(x); it is the same pattern each time
        built = both(x)
        return pure(x).fmap(lambda _v: built).inner_join()
    return x.fmap(both).inner_join()


def _sometimes(amount: float) -> Callable[[PatFunc, Pattern], Pattern]:
    def f(func: PatFunc, pat: Pattern) -> Pattern:
        return sometimes_by(amount, func, pat)

    return f


sometimes = _sometimes(0.5)
often = _sometimes(0.75)
rarely = _sometimes(0.25)
almost_never = _sometimes(0.1)
almost_always = _sometimes(0.9)


def some_cycles_by(x: Any, func: PatFunc, pat: Pattern) -> Pattern:
    def both(v: Any) -> Pattern:
        return stack(
            degrade_by_with(segment(1, rand), v, pat),
            reify(func(degrade_by_with(segment(1, rand.fmap(lambda r: 1 - r)), 1 - v, pat))),
        )

    return reify(x).fmap(both).inner_join()


def some_cycles(func: PatFunc, pat: Pattern) -> Pattern:
    return some_cycles_by(0.5, func, pat)


def never(_func: PatFunc, pat: Pattern) -> Pattern:
    return pat


def always(func: PatFunc, pat: Pattern) -> Pattern:
    return reify(func(pat))


def seed(n: Any, pat: Pattern) -> Pattern:
    """Use `n` as the random seed for everything random inside `pat`."""
    query = pat.query

    def q(span: TimeSpan, ctl: dict[str, Any]) -> list[Hap]:
        return query(span, {**ctl, "randSeed": n})

    return Pattern(q, pat.steps)


def _rearrange_with(ipat: Pattern, n: Any, pat: Pattern) -> Pattern:
    count = int(n)
    reserve(count)
    nn = to_time(n)
    # Strudel builds pats[i].repeatCycles(n).fast(n) for every event; building them once is the same
    pats = [
        pat._zoom(mpq(i) / nn, mpq(i + 1) / nn)._repeat_cycles(n)._fast(n) for i in range(count)
    ]
    return ipat.fmap(lambda i: pats[int(i)]).inner_join()


def shuffle(n: Any, pat: Pattern) -> Pattern:
    """Each cycle, play the n parts of `pat` in a random order (each once)."""
    return _rearrange_with(randrun(n), n, pat)


def scramble(n: Any, pat: Pattern) -> Pattern:
    """Each step, play a randomly chosen part of `pat` (with repeats)."""
    return _rearrange_with(segment(n, _irand(n)), n, pat)
