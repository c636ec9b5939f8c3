"""Fitting samples to cycles: `loopAt` and `fit` set `speed` (in `unit` "c") from the tempo.

Both read the player's tempo the way Strudel's scheduler hands it to a query:
`_cps` in the query controls (cycles per second). Without it `loopAt` takes
Strudel's default of 0.5 and `fit` takes 1, as `@strudel/core` 1.2.6 does.
"""

from __future__ import annotations

from typing import Any

from bandstand.patterns.constructors import pure
from bandstand.patterns.hap import Hap
from bandstand.patterns.ops import apply_op
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.time import TimeSpan


def _loop_at(factor: Any, pat: Pattern, cps: Any) -> Pattern:
    speed = (1 / factor) * cps
    return apply_op("set", "in", pat, pure({"speed": speed, "unit": "c"}))._slow(factor)


def loop_at_cps(factor: Any, cps: Any, pat: Pattern) -> Pattern:
    """`loopAt` at a tempo given here rather than the player's."""
    return _loop_at(factor, pat, cps)


def loop_at(factor: Any, pat: Pattern) -> Pattern:
    """Slow the pattern by `factor` and set the speed so a sample spans `factor` cycles."""
    steps = None if pat.steps is None else pat.steps / factor

    def query(span: TimeSpan, ctl: Any) -> list[Hap]:
        cps = ctl.get("_cps") if ctl else None
        cps = 0.5 if cps is None else cps
        return _loop_at(factor, pat, cps).query(span, ctl)

    return Pattern(query, steps)


def fit(pat: Pattern) -> Pattern:
    """Set each event's speed so its sample (or its begin…end slice) fills the event."""

    def fitted(haps: list[Hap], span: TimeSpan, ctl: Any) -> list[Hap]:
        cps = (ctl.get("_cps") if ctl else None) or 1
        out = []
        for h in haps:
            v = h.value
            if not isinstance(v, dict) or h.whole is None:
                raise ValueError("fit works on sample events such as s(...), with a whole")
            slice_duration = v.get("end", 1) - v.get("begin", 0)
            speed = (cps / float(h.whole.end - h.whole.begin)) * slice_duration
            out.append(Hap(h.whole, h.part, {**v, "speed": speed, "unit": "c"}, h.context))
        return out

    return pat.with_haps(fitted)
