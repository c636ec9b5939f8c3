"""What the operators and member look-ups of code do to plain values, as JavaScript does it.

The value functions of a program (`hap => hap.value.s === 'hh'`, `(t) => t < 1`,
`haps => haps[2]`) see haps, spans, times, objects, arrays, strings and numbers.
Here is what they may ask of them: JavaScript's equality (`===` and the looser
`==`), its ordering (`<` … `>=`, NaN compares false), its remainder (`%`, the
dividend's sign) and a closed list of members: a hap's `whole`, `part`, `value`
and `duration` and its `hasOnset()` and `hasTag(name)`, a span's `begin`, `end` and `duration`, a
time's `cyclePos()` and `sam()`, an object's own keys, an array's or a string's
`length` and items. Nothing else is reachable — no Python attribute is ever looked
up by a name the code chose. A time (a `whole.begin`) is a fraction object in
Strudel: it compares and computes as its number, but is never `===` to a number.

Each function raises `ValueError` with a message for the reader; the evaluator
adds where in the code it happened.
"""

from __future__ import annotations

import math
from typing import Any, Final

from bandstand.patterns.filters import has_tag
from bandstand.patterns.hap import Hap
from bandstand.patterns.time import TimeSpan
from bandstand.patterns.values import js_number

__all__ = [
    "FORBIDDEN_KEYS",
    "arithmetic",
    "compare",
    "index",
    "is_time",
    "loose_equal",
    "member",
    "method",
    "strict_equal",
    "to_number",
    "to_string",
]

# Keys never read from an object, whatever it holds (they are JavaScript's way out).
FORBIDDEN_KEYS: Final = frozenset({"__proto__", "constructor", "prototype"})

_HAP_MEMBERS: Final = ("whole", "part", "value", "duration")
_SPAN_MEMBERS: Final = ("begin", "end", "duration")


def is_time(x: Any) -> bool:
    """A time in cycles (an exact rational, Strudel's Fraction)."""
    return type(x).__name__ == "mpq"


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def to_number(x: Any) -> float:
    """JavaScript's ToNumber for the values code sees (NaN where JavaScript gives NaN)."""
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    if _is_number(x):
        return float(x)
    if is_time(x):
        return float(x)
    if isinstance(x, str):
        n = js_number(x)
        return math.nan if n is None else float(n)
    return math.nan


def to_string(x: Any) -> str:
    """JavaScript's String(x) for a primitive or a time (what `+` joins to a string)."""
    if x is None:
        return "undefined"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str):
        return x
    f = to_number(x)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    text = repr(f)
    if "e" in text:  # 1e-07 → 1e-7, 1e+21 stays
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"
    return text


def arithmetic(op: str, a: Any, b: Any) -> Any:
    """`a + b`, `a - b`, `a * b`, `a / b`, `a % b` in a value function, as JavaScript computes
    them: `+` joins when either side is a string, anything else becomes a number (undefined
    gives NaN, division by zero an infinity)."""
    for x in (a, b):
        if not (_primitive(x) or is_time(x)):
            raise ValueError(f"'{op}' works on numbers or strings, not {kind_of(x)}")
    if op == "+" and (isinstance(a, str) or isinstance(b, str)):
        return to_string(a) + to_string(b)
    p, q = to_number(a), to_number(b)
    if op == "+":
        return p + q
    if op == "-":
        return p - q
    if op == "*":
        return p * q if not ((math.isinf(p) and q == 0) or (math.isinf(q) and p == 0)) else math.nan
    if op == "/":
        if q == 0:
            return math.nan if p == 0 or math.isnan(p) else math.copysign(math.inf, p) * math.copysign(1, q)
        return p / q
    if q == 0 or math.isinf(p) or math.isnan(p) or math.isnan(q):
        return math.nan
    return p if math.isinf(q) else math.fmod(p, q)


def strict_equal(a: Any, b: Any) -> bool:
    """`a === b`: same kind and same value; objects (haps, arrays, times…) only to themselves."""
    if _is_number(a) and _is_number(b):
        return float(a) == float(b)  # NaN is not equal to itself
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, bool) and isinstance(b, bool):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    return a is b


def _primitive(x: Any) -> bool:
    return x is None or isinstance(x, bool | str) or _is_number(x)


def loose_equal(a: Any, b: Any) -> bool:
    """`a == b`: undefined equals only itself; a time counts as its number; a string or a
    boolean beside a number is read as a number; objects only equal themselves."""
    if a is None or b is None:
        return a is None and b is None
    if is_time(a) and not is_time(b):
        a = float(a)
    if is_time(b) and not is_time(a):
        b = float(b)
    if _primitive(a) and _primitive(b) and type(a) is not type(b):
        if isinstance(a, str) and isinstance(b, str):
            return a == b
        return to_number(a) == to_number(b)
    return strict_equal(a, b)


def compare(op: str, a: Any, b: Any) -> bool:
    """`a < b` etc.: two strings compare as text, anything else as numbers (NaN: false)."""
    for x in (a, b):
        if not (_primitive(x) or is_time(x)):
            raise ValueError(f"'{op}' compares numbers or strings, not {kind_of(x)}")
    if isinstance(a, str) and isinstance(b, str):
        x, y = a, b
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    p, q = to_number(a), to_number(b)
    if math.isnan(p) or math.isnan(q):
        return False
    return {"<": p < q, "<=": p <= q, ">": p > q, ">=": p >= q}[op]


def kind_of(x: Any) -> str:
    """How a reader would name `x` in an error."""
    if x is None:
        return "undefined"
    if isinstance(x, Hap):
        return "a hap"
    if isinstance(x, TimeSpan):
        return "a time span"
    if is_time(x):
        return "a time"
    if isinstance(x, bool):
        return "a boolean"
    if _is_number(x):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, list):
        return "an array"
    if isinstance(x, dict):
        return "an object"
    return "a pattern or a function"


def member(target: Any, name: str) -> Any:
    """`target.name` on a value (undefined — None — where JavaScript has nothing there)."""
    if target is None:
        raise ValueError(f"cannot read '.{name}' of undefined")
    if name in FORBIDDEN_KEYS:
        raise ValueError(f"'.{name}' is not allowed")
    if isinstance(target, Hap):
        if name not in _HAP_MEMBERS:
            raise ValueError(f"a hap has {', '.join(_HAP_MEMBERS)} here, not '.{name}'")
        if name == "duration":
            if target.whole is None:
                raise ValueError("a continuous hap (from a signal) has no duration")
            return target.whole.end - target.whole.begin
        return getattr(target, name)  # one of the names above
    if isinstance(target, TimeSpan):
        if name not in _SPAN_MEMBERS:
            raise ValueError(f"a time span has {', '.join(_SPAN_MEMBERS)}, not '.{name}'")
        return target.end - target.begin if name == "duration" else getattr(target, name)
    if isinstance(target, dict):
        return target.get(name)
    if isinstance(target, list | str) and name == "length":
        return len(target)
    return None


def index(target: Any, key: Any) -> Any:
    """`target[key]`: an array's or a string's item, an object's key (else undefined)."""
    if target is None:
        raise ValueError("cannot read an item of undefined")
    if isinstance(target, list | str):
        if _is_number(key) and float(key).is_integer() and 0 <= key < len(target):
            return target[int(key)]
        return None
    if isinstance(target, dict):
        text = key if isinstance(key, str) else _key_text(key)
        if text in FORBIDDEN_KEYS:
            raise ValueError(f"the key '{text}' is not allowed")
        return target.get(text)
    if isinstance(target, Hap | TimeSpan) and isinstance(key, str):
        return member(target, key)
    return None


def _key_text(key: Any) -> str:
    if _is_number(key) and float(key).is_integer():
        return str(int(key))
    return str(key)


def method(target: Any, name: str, args: list[Any]) -> Any:
    """`target.name(...)` on a value: a hap's `hasOnset()`, a time's `cyclePos()` / `sam()`."""
    if isinstance(target, Hap) and name == "hasOnset" and not args:
        return target.has_onset()
    if isinstance(target, Hap) and name == "hasTag" and len(args) == 1:
        return has_tag(target, args[0])
    if is_time(target) and name in ("cyclePos", "sam") and not args:
        sam = math.floor(target)
        return target - sam if name == "cyclePos" else type(target)(sam)
    raise ValueError(f"'.{name}()' is not a method of {kind_of(target)} here")
