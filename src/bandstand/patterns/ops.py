"""Value operators between patterns: arithmetic, comparison and set/keep/keepif.

Each operator exists in Strudel's alignments: `in` (structure from the left,
the default), `out` (from the right), `mix` (both), `squeeze`, `squeezeout`,
`reset`, `restart` and `poly`. Control objects combine key by key (right keys
win for `set`); a plain number against a control object leaves it unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from bandstand.patterns.constructors import sequence
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.time import TimeSpan
from bandstand.patterns.values import js_truthy, norm_number, parse_numeral

__all__ = ["ALIGNMENTS", "OPERATORS", "apply_op", "keepif_in", "keepif_out", "set_in"]

BinOp = Callable[[Any, Any], Any]


def _js_add(a: Any, b: Any) -> Any:
    if isinstance(a, str) or isinstance(b, str):
        return f"{_js_str(a)}{_js_str(b)}"
    return norm_number(a + b)


def _js_str(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _js_div(a: Any, b: Any) -> Any:
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * (math.copysign(1, b) if isinstance(b, float) else 1)
    return norm_number(a / b)


def _js_rem(a: Any, b: Any) -> Any:
    if b == 0 or a != a or b != b or math.isinf(a):
        return math.nan
    if math.isinf(b):
        return a
    if isinstance(a, int) and isinstance(b, int):
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    return norm_number(math.fmod(a, b))


def _js_mod(a: Any, b: Any) -> Any:
    return _js_rem(_js_add(_js_rem(a, b), b), b)


def _js_pow(a: Any, b: Any) -> Any:
    try:
        return norm_number(math.pow(a, b))
    except (OverflowError, ValueError):
        return math.nan


def _js_log2(a: Any) -> Any:
    if a == 0:
        return -math.inf
    if a < 0 or a != a:
        return math.nan
    return norm_number(math.log2(a))


def _int32(x: Any) -> int:
    if x != x or math.isinf(x):
        return 0
    v = int(x) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _numeral(f: BinOp) -> BinOp:
    return lambda a, b: f(parse_numeral(a), parse_numeral(b))


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


OPERATORS: dict[str, BinOp] = {
    "set": lambda a, b: b,
    "keep": lambda a, b: a,
    "keepif": lambda a, b: a if js_truthy(b) else None,
    "add": _numeral(_js_add),
    "sub": _numeral(lambda a, b: norm_number(a - b)),
    "mul": _numeral(lambda a, b: norm_number(a * b)),
    "div": _numeral(_js_div),
    "mod": _numeral(_js_mod),
    "pow": _numeral(_js_pow),
    "log2": _numeral(lambda a, b: _js_log2(a)),
    "band": _numeral(lambda a, b: _int32(a) & _int32(b)),
    "bor": _numeral(lambda a, b: _int32(a) | _int32(b)),
    "bxor": _numeral(lambda a, b: _int32(a) ^ _int32(b)),
    "blshift": _numeral(lambda a, b: _int32(_int32(a) << (_int32(b) & 31))),
    "brshift": _numeral(lambda a, b: _int32(a) >> (_int32(b) & 31)),
    "lt": _lt,
    "gt": lambda a, b: bool(a > b),
    "lte": lambda a, b: bool(a <= b),
    "gte": lambda a, b: bool(a >= b),
    "eq": lambda a, b: a == b,
    "eqt": lambda a, b: a == b and type(a) is type(b),
    "ne": lambda a, b: a != b,
    "net": lambda a, b: not (a == b and type(a) is type(b)),
    "and": lambda a, b: b if js_truthy(a) else a,
    "or": lambda a, b: a if js_truthy(a) else b,
    "func": lambda a, b: b(a),
}

ALIGNMENTS = ("in", "out", "mix", "squeeze", "squeezeout", "reset", "restart", "poly")


def _is_obj(x: Any) -> bool:
    return isinstance(x, dict)


def _compose(a: Any, b: Any, op: BinOp) -> Any:
    """Strudel's _composeOp: objects combine key by key, other values directly."""
    if _is_obj(a) or _is_obj(b):
        if not _is_obj(a):
            a = {"value": a}
        if not _is_obj(b):
            b = {"value": b}
        if b.get("value") is not None and len(b) == 1:
            return a
        out = {**a, **b}
        for k in a:
            if k in b:
                out[k] = op(a[k], b[k])
        return out
    return op(a, b)


def _curried(op: BinOp, keepif: bool) -> Callable[[Any], Callable[[Any], Any]]:
    if keepif:
        return lambda a: lambda b: op(a, b)
    return lambda a: lambda b: _compose(a, b, op)


def _uncurried(op: BinOp, keepif: bool) -> BinOp:
    """`_curried(op, keepif)` taking both values at once."""
    if keepif:
        return op
    return lambda a, b: _compose(a, b, op)


def _in_const(pat: Pattern, const: tuple[Any, Any], func: BinOp) -> Pattern:
    """``pat.fmap(curried func).app_left(pure(value))`` in one layer (the common ``.gain(0.5)``
    case), `func` taking both values at once: ``func(a, b)`` is ``curried(a)(b)``."""
    value, vctx = const
    query = pat.query
    floor = math.floor

    def q(span: TimeSpan, ctl: Any) -> list[Hap]:
        out = []
        for h in query(span, ctl):
            w = h.whole
            target = h.part if w is None else w
            b, e = target.begin, target.end
            pieces = [target] if b == e or e <= floor(b) + 1 else target.span_cycles()
            for piece in pieces:
                part = h.part.intersection(piece)
                if part is not None:
                    out.append(Hap(w, part, func(h.value, value), vctx + h.context))
        return out

    return Pattern(q, pat.steps)


def _align(
    pat: Pattern,
    other: Pattern,
    how: str,
    func: Callable[[Any], Callable[[Any], Any]],
    binary: BinOp | None = None,
) -> Pattern:
    if how == "in":
        if other.const is not None and binary is not None:
            return _in_const(pat, other.const, binary)
        return pat.fmap(func).app_left(other)
    if how == "out":
        return pat.fmap(func).app_right(other)
    if how == "mix":
        return pat.fmap(func).app_both(other)
    if how == "squeeze":
        return pat.fmap(lambda a: other.fmap(lambda b: func(a)(b))).squeeze_join()
    if how == "squeezeout":
        return other.fmap(lambda a: pat.fmap(lambda b: func(b)(a))).squeeze_join()
    if how == "reset":
        return other.fmap(lambda b: pat.fmap(lambda a: func(a)(b))).reset_join()
    if how == "restart":
        return other.fmap(lambda b: pat.fmap(lambda a: func(a)(b))).restart_join()
    if how == "poly":
        return pat.fmap(lambda b: other.fmap(lambda a: func(a)(b))).poly_join()
    raise ValueError(f"unknown alignment {how!r}")


def apply_op(what: str, how: str, pat: Pattern, *others: Any) -> Pattern:
    """`pat.<what>.<how>(*others)`, e.g. apply_op("add", "out", p, 12)."""
    other = sequence(*others)
    op = OPERATORS[what]
    keepif = what == "keepif"
    result = _align(pat, other, how, _curried(op, keepif), _uncurried(op, keepif))
    if what == "keepif":
        result = result.remove_undefineds()
    return result


def set_in(pat: Pattern, other: Any) -> Pattern:
    return apply_op("set", "in", pat, other)


def keepif_out(pat: Pattern, other: Any) -> Pattern:
    return apply_op("keepif", "out", pat, other)


def keepif_in(pat: Pattern, other: Any) -> Pattern:
    return apply_op("keepif", "in", pat, other)
