"""The Pattern: a function from a query span to the haps active in it.

A pattern is queried with a `TimeSpan` and a controls mapping (the random
seed lives there) and answers a list of `Hap`s. Everything else is built from
the few combinators here: mapping values, mapping query and hap time,
applicative combination (`app_left/right/both`) and monadic joins
(`inner/outer/squeeze/reset/restart`). Public transforms (fast, every, ...)
are plain functions registered in `bandstand.patterns.registry`; the registrar
(`bandstand.patterns.methods`) makes them reachable as methods (`p.fast(2)`)
through `__getattr__` and `Pattern.method_lookup`. `pure` and the other
constructors are in `bandstand.patterns.constructors`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

from gmpy2 import mpq

from bandstand.errors import BandstandError, PatternError
from bandstand.patterns.budget import DEFAULT_QUERY_BUDGET, QueryBudget, charge, metered
from bandstand.patterns.hap import Hap
from bandstand.patterns.time import ONE, ZERO, Time, TimeSpan, to_time

__all__ = ["EMPTY_CONTROLS", "Controls", "MethodLookup", "Pattern", "gap", "no_haps", "nothing", "silence", "time_lcm"]

Controls = dict[str, Any]
Query = Callable[[TimeSpan, Controls], list[Hap]]
EMPTY_CONTROLS: Controls = {}
_NOT_PURE = object()


def no_haps(span: TimeSpan, ctl: Controls) -> list[Hap]:
    """The query of a gap (`silence`, `nothing`): no haps, ever."""
    return []


def time_lcm(*values: Time | None) -> Time | None:
    """fraction.js's lcm over the defined values (None if there are none)."""
    xs = [v for v in values if v is not None]
    if not xs:
        return None
    result = xs[-1]
    for x in xs[:-1]:
        if result == 0 and x == 0:
            result = ZERO
            continue
        n = result.numerator * x.numerator
        d = math.gcd(int(result.numerator), int(x.numerator)) * math.gcd(
            int(result.denominator), int(x.denominator)
        )
        result = mpq(n, d) if d else ZERO
    return result


MethodLookup = Callable[["Pattern", str], "Callable[..., Any] | None"]
"""``(pattern, name)`` → the bound method ``pattern.name``, or None when there is none."""


class Pattern:
    """A query from a time span to haps. Build with the constructors, never by hand."""

    __slots__ = ("_pure", "_pure_loc", "const", "query", "sampler", "steps", "steps_source", "weight")

    method_lookup: ClassVar[MethodLookup | None] = None
    """How ``p.name`` finds a registered method (``p.fast(2)`` ≡ ``fast(2, p)``): attached once, by
    `bandstand.patterns.methods.attach` when the package is imported. The transforms sit above
    this class and are registered above them, so the class cannot import them."""

    query: Query
    steps: Time | None
    weight: Time | None
    steps_source: bool
    const: tuple[Any, tuple[tuple[int, int], ...]] | None
    sampler: Callable[[Time, Controls], Any] | None
    _pure: Any
    _pure_loc: tuple[int, int] | None

    def __init__(
        self,
        query: Query,
        steps: Any = None,
        *,
        weight: Time | None = None,
        steps_source: bool = False,
        const: tuple[Any, tuple[tuple[int, int], ...]] | None = None,
        sampler: Callable[[Time, Controls], Any] | None = None,
        pure: Any = _NOT_PURE,
        pure_loc: tuple[int, int] | None = None,
    ) -> None:
        # Every attribute is set here and never again (`__setattr__` refuses): a pattern
        # is a value, shared freely (`silence`, registry constants, compile caches).
        charge()  # patterns built while querying (joins build one per event) are work too
        init = object.__setattr__
        init(self, "query", query)
        init(self, "steps", None if steps is None else to_time(steps))
        init(self, "_pure", pure)
        init(self, "_pure_loc", pure_loc)
        init(self, "weight", weight)
        init(self, "steps_source", steps_source)
        # (value, context) when every query answers exactly what pure(value) would
        # (one hap per cycle) with that context: lets operators skip a layer
        init(self, "const", const)
        # f(t, controls) when this is a plain signal (one hap, no whole, value f(span.begin))
        init(self, "sampler", sampler)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Pattern cannot be changed (tried to set {name!r}); build a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Pattern cannot be changed (tried to delete {name!r})")

    def _replace(self, **changes: Any) -> Pattern:
        """A new pattern with the same query and attributes except `changes`."""
        fields = {
            "steps": self.steps,
            "weight": self.weight,
            "steps_source": self.steps_source,
            "const": self.const,
            "sampler": self.sampler,
            "pure": self._pure,
            "pure_loc": self._pure_loc,
        }
        fields.update(changes)
        return Pattern(changes.pop("query", self.query), **{k: v for k, v in fields.items() if k != "query"})

    # ------------------------------------------------------------------ querying

    def query_arc(
        self,
        begin: Any,
        end: Any,
        controls: Controls | None = None,
        *,
        budget: QueryBudget | None = DEFAULT_QUERY_BUDGET,
    ) -> list[Hap]:
        """The haps active between `begin` and `end` (cycles, any exact or float number).

        A value the pattern cannot work with (``"x".add(1)``, a bad scale name)
        raises `PatternError`; Strudel logs the same cases and plays nothing.
        The query runs under `budget` (see `bandstand.patterns.budget`; None: no
        limit of its own): past it, `PatternBudgetExceeded` names the limit.
        """
        span = TimeSpan(to_time(begin), to_time(end))
        try:
            with metered(budget):
                return self.query(span, controls or EMPTY_CONTROLS)
        except BandstandError:
            raise
        except (
            ArithmeticError,
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            RecursionError,
        ) as exc:
            raise PatternError(f"cannot query the pattern: {exc}") from exc

    def first_cycle(self) -> list[Hap]:
        return self.query_arc(0, 1)

    @property
    def is_pure(self) -> bool:
        return self._pure is not _NOT_PURE

    @property
    def pure_value(self) -> Any:
        return self._pure

    def copy(self) -> Pattern:
        """A new pattern object with the same query and attributes."""
        return self._replace()

    def set_steps(self, steps: Any) -> Pattern:
        """A new pattern: this one with `steps` steps per cycle (this one is unchanged)."""
        return self._replace(steps=steps)

    def with_steps(self, func: Callable[[Time], Any]) -> Pattern:
        return Pattern(self.query, None if self.steps is None else func(self.steps))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # Registered transforms are methods: p.fast(2) == fast(2, p).
        if name.startswith("__"):
            raise AttributeError(name)
        lookup = Pattern.method_lookup
        method = lookup(self, name) if lookup is not None else None
        if method is None:
            raise AttributeError(f"Pattern has no method {name!r}")
        return method

    def __repr__(self) -> str:
        try:
            haps = self.first_cycle()
        except BandstandError as exc:
            return f"Pattern(<{exc.message}>)"
        shown = " ".join(h.show() for h in haps[:8])
        more = " …" if len(haps) > 8 else ""
        return f"Pattern({shown}{more})"

    # ------------------------------------------------------------------ values

    def with_value(self, func: Callable[[Any], Any]) -> Pattern:
        query = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            haps = query(span, ctl)
            charge(len(haps))
            return [Hap(h.whole, h.part, func(h.value), h.context) for h in haps]

        sampler = self.sampler
        mapped = None if sampler is None else (lambda t, ctl: func(sampler(t, ctl)))
        const = None
        if self.const is not None:
            value, context = self.const
            try:
                const = (func(value), context)
            except Exception:  # errors belong to query time, as without the shortcut
                const = None
        return Pattern(q, self.steps, sampler=mapped, const=const)

    fmap = with_value

    def with_haps(self, func: Callable[[list[Hap], TimeSpan, Controls], list[Hap]]) -> Pattern:
        query = self.query
        return Pattern(lambda span, ctl: func(query(span, ctl), span, ctl), self.steps)

    def with_hap(self, func: Callable[[Hap], Hap]) -> Pattern:
        query = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            haps = query(span, ctl)
            charge(len(haps))
            return [func(h) for h in haps]

        return Pattern(q, self.steps)

    def filter_haps(self, test: Callable[[Hap], bool]) -> Pattern:
        query = self.query
        return Pattern(lambda span, ctl: [h for h in query(span, ctl) if test(h)])

    def filter_values(self, test: Callable[[Any], bool]) -> Pattern:
        query = self.query
        return Pattern(lambda span, ctl: [h for h in query(span, ctl) if test(h.value)], self.steps)

    def remove_undefineds(self) -> Pattern:
        return self.filter_values(lambda v: v is not None)

    def discrete_only(self) -> Pattern:
        return self.filter_haps(lambda h: h.whole is not None)

    def with_context(self, func: Callable[[tuple[Any, ...]], Any]) -> Pattern:
        result = self.with_hap(lambda h: Hap(h.whole, h.part, h.value, func(h.context)))
        const = None if self.const is None else (self.const[0], func(self.const[1]))
        return result._replace(pure=self._pure, pure_loc=self._pure_loc, const=const)

    def with_loc(self, start: int, end: int) -> Pattern:
        loc = (start, end)
        result = self.with_context(lambda ctx: (*ctx, loc))
        return result._replace(pure_loc=loc) if self.is_pure else result

    def strip_context(self) -> Pattern:
        return self.with_hap(lambda h: Hap(h.whole, h.part, h.value, ()))

    # ------------------------------------------------------------------ time

    def with_query_span(self, func: Callable[[TimeSpan], TimeSpan]) -> Pattern:
        query = self.query
        return Pattern(lambda span, ctl: query(func(span), ctl))

    def with_hap_span(self, func: Callable[[TimeSpan], TimeSpan]) -> Pattern:
        query = self.query
        return Pattern(lambda span, ctl: [h.with_span(func) for h in query(span, ctl)])

    def split_queries(self) -> Pattern:
        """Query each cycle separately."""
        query = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            b, e = span.begin, span.end
            fb = math.floor(b)
            if b == e or e <= fb + 1:
                return query(span, ctl)
            out: list[Hap] = []
            for sub in span.span_cycles():
                out.extend(query(sub, ctl))
            return out

        return Pattern(q)

    def _fast(self, factor: Any) -> Pattern:
        if isinstance(factor, (int, float)) and factor == 0:
            return silence
        f = to_time(factor)
        if f == 0:
            return silence
        query = self.query
        if f < 0:
            # Strudel maps query times through a negative factor, giving reversed spans.
            return Pattern(lambda span, ctl: [], self.steps)

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for h in query(TimeSpan(span.begin * f, span.end * f), ctl):
                w = h.whole
                p = h.part
                out.append(
                    Hap(
                        None if w is None else TimeSpan(w.begin / f, w.end / f),
                        TimeSpan(p.begin / f, p.end / f),
                        h.value,
                        h.context,
                    )
                )
            charge(len(out))
            return out

        return Pattern(q, self.steps)

    def _slow(self, factor: Any) -> Pattern:
        if isinstance(factor, (int, float)) and factor == 0:
            return silence
        f = to_time(factor)
        if f == 0:
            return silence
        return self._fast(ONE / f)

    def _early(self, offset: Any) -> Pattern:
        o = to_time(offset)
        if o == 0:
            return Pattern(self.query, self.steps)
        query = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for h in query(TimeSpan(span.begin + o, span.end + o), ctl):
                w = h.whole
                p = h.part
                out.append(
                    Hap(
                        None if w is None else TimeSpan(w.begin - o, w.end - o),
                        TimeSpan(p.begin - o, p.end - o),
                        h.value,
                        h.context,
                    )
                )
            charge(len(out))
            return out

        sampler = self.sampler
        shifted = None if sampler is None else (lambda t, ctl: sampler(t + o, ctl))
        return Pattern(q, self.steps, sampler=shifted)

    def _late(self, offset: Any) -> Pattern:
        return self._early(-to_time(offset))

    # ------------------------------------------------------------------ applicative

    def app_whole(self, whole_func: Callable[[Any, Any], Any], pat_val: Pattern) -> Pattern:
        pat_func = self

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            hap_vals = pat_val.query(span, ctl)
            out = []
            for hf in pat_func.query(span, ctl):
                charge(len(hap_vals))
                for hv in hap_vals:
                    s = hf.part.intersection(hv.part)
                    if s is None:
                        continue
                    out.append(
                        Hap(
                            whole_func(hf.whole, hv.whole),
                            s,
                            hf.value(hv.value),
                            hv.combine_context(hf),
                        )
                    )
            charge(len(out))
            return out

        return Pattern(q)

    def app_both(self, pat_val: Pattern) -> Pattern:
        def whole_func(a: TimeSpan | None, b: TimeSpan | None) -> TimeSpan | None:
            if a is None or b is None:
                return None
            return a.intersection_e(b)

        return self.app_whole(whole_func, pat_val).set_steps(time_lcm(pat_val.steps, self.steps))

    def app_left(self, pat_val: Pattern) -> Pattern:
        fq, vq = self.query, pat_val.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for hf in fq(span, ctl):
                w = hf.whole
                for hv in vq(hf.part if w is None else w, ctl):
                    part = hf.part.intersection(hv.part)
                    if part is not None:
                        out.append(Hap(w, part, hf.value(hv.value), hv.combine_context(hf)))
            charge(len(out))
            return out

        return Pattern(q, self.steps)

    def app_right(self, pat_val: Pattern) -> Pattern:
        fq, vq = self.query, pat_val.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for hv in vq(span, ctl):
                w = hv.whole
                for hf in fq(hv.part if w is None else w, ctl):
                    part = hf.part.intersection(hv.part)
                    if part is not None:
                        out.append(Hap(w, part, hf.value(hv.value), hv.combine_context(hf)))
            charge(len(out))
            return out

        return Pattern(q, pat_val.steps)

    # ------------------------------------------------------------------ monadic joins

    def bind_whole(
        self, choose_whole: Callable[[Any, Any], Any], func: Callable[[Any], Pattern]
    ) -> Pattern:
        outer = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for a in outer(span, ctl):
                for b in func(a.value).query(a.part, ctl):
                    out.append(
                        Hap(choose_whole(a.whole, b.whole), b.part, b.value, a.context + b.context)
                    )
            charge(len(out))
            return out

        return Pattern(q)

    def bind(self, func: Callable[[Any], Pattern]) -> Pattern:
        def whole_func(a: TimeSpan | None, b: TimeSpan | None) -> TimeSpan | None:
            if a is None or b is None:
                return None
            return a.intersection_e(b)

        return self.bind_whole(whole_func, func)

    def join(self) -> Pattern:
        return self.bind(lambda p: p)

    def outer_bind(self, func: Callable[[Any], Pattern]) -> Pattern:
        return self.bind_whole(lambda a, _b: a, func).set_steps(self.steps)

    def outer_join(self) -> Pattern:
        return self.outer_bind(lambda p: p)

    def inner_bind(self, func: Callable[[Any], Pattern]) -> Pattern:
        return self.bind_whole(lambda _a, b: b, func)

    def inner_join(self) -> Pattern:
        outer = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for a in outer(span, ctl):
                for b in a.value.query(a.part, ctl):
                    out.append(Hap(b.whole, b.part, b.value, a.context + b.context))
            charge(len(out))
            return out

        return Pattern(q)

    def reset_join(self, restart: bool = False) -> Pattern:
        outer = self.discrete_only().query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for oh in outer(span, ctl):
                wb = oh.whole.begin  # type: ignore[union-attr]
                shift = wb if restart else wb - math.floor(wb)
                for ih in oh.value._late(shift).query(span, ctl):
                    whole = None if ih.whole is None else ih.whole.intersection(oh.whole)
                    part = ih.part.intersection(oh.part)
                    if part is not None:
                        out.append(Hap(whole, part, ih.value, oh.combine_context(ih)))
            charge(len(out))
            return out

        return Pattern(q)

    def restart_join(self) -> Pattern:
        return self.reset_join(True)

    def squeeze_join(self) -> Pattern:
        outer = self.discrete_only().query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            out = []
            for oh in outer(span, ctl):
                inner = oh.value._focus_span(oh.whole_or_part())
                ow = oh.whole
                for ih in inner.query(oh.part, ctl):
                    whole = None
                    if ih.whole is not None and ow is not None:
                        whole = ih.whole.intersection(ow)
                        if whole is None:
                            continue
                    part = ih.part.intersection(oh.part)
                    if part is None:
                        continue
                    out.append(Hap(whole, part, ih.value, ih.combine_context(oh)))
            charge(len(out))
            return out

        return Pattern(q)

    def squeeze_bind(self, func: Callable[[Any], Pattern]) -> Pattern:
        return self.fmap(func).squeeze_join()

    def poly_join(self) -> Pattern:
        pp = self
        return pp.fmap(lambda p: p._extend(pp.steps / p.steps)).outer_join()

    def _extend(self, factor: Any) -> Pattern:
        return self._fast(factor)._expand(factor)

    def _expand(self, factor: Any) -> Pattern:
        return self.with_steps(lambda t: t * to_time(factor))

    # ------------------------------------------------------------------ core time transforms

    def _focus(self, b: Any, e: Any) -> Pattern:
        b, e = to_time(b), to_time(e)
        return self._early(mpq(math.floor(b)))._fast(ONE / (e - b))._late(b)

    def _focus_span(self, span: TimeSpan) -> Pattern:
        return self._focus(span.begin, span.end)

    def _fast_gap(self, factor: Any) -> Pattern:
        factor = to_time(factor)
        query = self.query

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            cycle = mpq(math.floor(span.begin))
            bpos = min((span.begin - cycle) * factor, ONE)
            epos = min((span.end - cycle) * factor, ONE)
            if bpos >= 1:
                return []
            out = []
            for h in query(TimeSpan(cycle + bpos, cycle + epos), ctl):
                begin, end = h.part.begin, h.part.end
                hc = mpq(math.floor(begin))
                nb = hc + min((begin - hc) / factor, ONE)
                ne = hc + min((end - hc) / factor, ONE)
                w = h.whole
                whole = (
                    None
                    if w is None
                    else TimeSpan(nb - (begin - w.begin) / factor, ne + (w.end - end) / factor)
                )
                out.append(Hap(whole, TimeSpan(nb, ne), h.value, h.context))
            charge(len(out))
            return out

        return Pattern(q).split_queries()

    def _compress(self, b: Any, e: Any) -> Pattern:
        """Squeeze each cycle into [b, e) of the cycle: ``fastGap(1/(e-b)).late(b)``, fused.

        One query function does the shift, the per-cycle split and the gap
        arithmetic of Strudel's fastGap, with the same exact results, because
        sequences are built from it and it is on every query's hot path.
        """
        b, e = to_time(b), to_time(e)
        if b > e or b > 1 or e > 1 or b < 0 or e < 0 or b == e:
            # b == e: Strudel divides by zero building fastGap; nothing plays
            return silence
        width = e - b  # 1 / factor
        query = self.query
        floor = math.floor
        if self.const is not None:
            return self._compress_const(b, e)
        if query is no_haps:  # a rest in a sequence: nothing to ask, only the pieces to count
            return self._compress_gap(b)

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            qb, qe = span.begin - b, span.end - b
            if qb == qe:
                pieces = [(qb, qe)]
            else:
                cycle = floor(qb)
                if qb < qe <= cycle + 1:  # within one cycle (most queries): one piece
                    charge()
                    if qb - cycle >= width:  # starts after this slot: nothing (exact, no division)
                        return []
                    pieces = [(qb, qe)]
                else:
                    pieces = []
                    nxt = cycle + 1  # floor(qb) + 1; after a whole cycle, one more
                    while qe > qb:
                        charge()
                        if qe <= nxt:
                            pieces.append((qb, qe))
                            break
                        pieces.append((qb, mpq(nxt)))
                        qb = mpq(nxt)
                        nxt += 1
            out = []
            for sb, se in pieces:
                cycle = floor(sb)
                if sb - cycle >= width:  # bpos = (sb - cycle) / width >= 1: after this slot
                    continue
                bpos = (sb - cycle) / width
                epos = (se - cycle) / width
                if epos > 1:
                    epos = ONE
                for h in query(TimeSpan(cycle + bpos, cycle + epos), ctl):
                    part = h.part
                    pb, pe = part.begin, part.end
                    hc = floor(pb)
                    nb = (pb - hc) * width
                    nb = hc + (nb if nb < 1 else ONE)
                    ne = (pe - hc) * width
                    ne = hc + (ne if ne < 1 else ONE)
                    w = h.whole
                    whole = (
                        None
                        if w is None
                        else TimeSpan(
                            nb - (pb - w.begin) * width + b, ne + (w.end - pe) * width + b
                        )
                    )
                    out.append(Hap(whole, TimeSpan(nb + b, ne + b), h.value, h.context))
            charge(len(out))
            return out

        return Pattern(q)

    def _compress_gap(self, b: Time) -> Pattern:
        """`_compress` of a gap: the same pieces counted against the budget, and no haps."""
        floor = math.floor

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            qb, qe = span.begin - b, span.end - b
            while qe > qb:  # one unit of work per piece, as `_compress` cuts them
                charge()
                nxt = floor(qb) + 1
                if qe <= nxt:
                    break
                qb = mpq(nxt)
            return []

        return Pattern(q)

    def _compress_const(self, b: Time, e: Time) -> Pattern:
        """`_compress` of a constant: the slot [c + b, c + e) of each cycle c, worked out directly."""
        assert self.const is not None
        value, context = self.const
        width = e - b
        floor = math.floor

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            qb, qe = span.begin - b, span.end - b
            out: list[Hap] = []
            if qe < qb:
                return out
            while True:
                charge()
                cycle = floor(qb)
                nxt = cycle + 1
                se = qe if qe <= nxt or qb == qe else mpq(nxt)
                if qb - cycle < width:
                    end = se if se - cycle < width else cycle + width
                    out.append(Hap(TimeSpan(cycle + b, cycle + e), TimeSpan(qb + b, end + b), value, context))
                if se == qe:
                    return out
                qb = se

        return Pattern(q)

    def _zoom(self, s: Any, e: Any) -> Pattern:
        s, e = to_time(s), to_time(e)
        if s >= e:
            return nothing
        d = e - s
        steps = None if self.steps is None else self.steps * d
        return (
            self.with_query_span(lambda span: span.with_cycle(lambda t: t * d + s))
            .with_hap_span(lambda span: span.with_cycle(lambda t: (t - s) / d))
            .split_queries()
            .set_steps(steps)
        )

    def _repeat_cycles(self, n: Any) -> Pattern:
        query = self.query
        n = to_time(n)

        def q(span: TimeSpan, ctl: Controls) -> list[Hap]:
            cycle = mpq(math.floor(span.begin))
            source = mpq(math.floor(cycle / n))
            delta = cycle - source
            out = []
            for h in query(TimeSpan(span.begin - delta, span.end - delta), ctl):
                out.append(h.with_span(lambda s: TimeSpan(s.begin + delta, s.end + delta)))
            charge(len(out))
            return out

        return Pattern(q).split_queries().set_steps(self.steps)


def gap(steps: Any) -> Pattern:
    """Nothing, for `steps` steps per cycle."""
    return Pattern(no_haps, steps)


silence = gap(1)
nothing = gap(0)
