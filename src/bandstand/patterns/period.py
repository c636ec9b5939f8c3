"""The static period: after how many cycles a piece of code plays the same again, read from
its syntax tree alone, so that validation can check every cycle of it, not only the first.

The number found is a multiple of the true period (checking it checks every cycle): a
mini-notation ``<a b c>`` repeats every 3 cycles (nested alternations multiply, side by side
they take the least common multiple; ``@`` weights count), ``/n`` and `slow(n)` multiply by
n's numerator, ``*n`` and `fast(n)` by its denominator, `every(n, …)`, `firstOf` and `lastOf`
contribute n, `iter(n)` and `chunk(n, …)` (whose copies move on once per n cycles) and `cat` of
n patterns multiply by n, and everything else this
table knows (values, controls, shifts, stacks, per-cycle functions, signals such as `sine`)
repeats every cycle. None when the code makes random choices (``?``, ``|``, `sometimes`,
`chooseCycles`, `rand`, …), uses something outside the table, or repeats only after more
than `MAX_PERIOD` cycles: validation then checks a bounded sample of cycles, and the player
caps every cycle anyway (`bandstand.patterns.cycle_cap`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Final

from bandstand.errors import PatternError
from bandstand.patterns.density import _argument_values
from bandstand.patterns.expr import ast
from bandstand.patterns.mini_parse import Atom, Element, Seq, _atoms, parse_mini

__all__ = ["MAX_PERIOD", "mini_period", "static_period"]

MAX_PERIOD: Final = 1 << 32  # cycles; a longer period is as good as none (days of music)

# Functions that keep the period of what they are given (the factors inside their arguments,
# strings and arrow bodies, are counted where they are written); functions that stretch time by
# their first argument (its numerator or its denominator); functions that repeat every n cycles
# for their first argument n. Anything else, random choices included: no static period.
_SAME: Final = frozenset(
    {
        "add", "sub", "mul", "div", "scale", "range", "rangex", "late", "early", "rev", "struct",
        "mask", "stack", "seq", "fastcat", "sequence", "note", "n", "s", "sound", "silence", "sine",
        "cosine", "saw", "square", "tri", "isaw", "itri", "velocity", "mini", "m", "h", "minify",
        "off", "superimpose", "jux", "juxBy", "layer", "euclid", "euclidRot", "euclidLegato",
        "euclidLegatoRot", "always", "never", "chop", "striate", "echo", "stut", "run",
    }
)  # fmt: skip
_BY_NUMERATOR: Final = frozenset({"slow", "sparsity"})
_BY_DENOMINATOR: Final = frozenset({"fast", "density", "hurry", "ply", "segment", "seg"})
_EVERY_N: Final = frozenset({"every", "firstOf", "lastOf", "fastChunk"})
# iter(n) is a slowcat of n shifted copies and chunk(n) repeats each cycle n times: each of the
# copies moves on once per n cycles, so they stretch the period by n rather than join it
_BY_COUNT: Final = frozenset({"iter", "iterBack", "chunk", "chunkBack"})
_CATS: Final = frozenset({"cat", "slowcat"})
_FIXED: Final = {"palindrome": 2}


class _Unbounded(Exception):
    pass


def _lcm(*values: int) -> int:
    out = math.lcm(*values)
    if out > MAX_PERIOD:
        raise _Unbounded
    return out


def _mul(a: int, b: int) -> int:
    if a * b > MAX_PERIOD:
        raise _Unbounded
    return a * b


def _fraction(text: str) -> Fraction | None:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return value


# --------------------------------------------------------------------------- mini-notation


def _atom_values(node: Any) -> list[Fraction]:
    """The numbers a mini-notation argument (of ``*``, ``/``, ``%``) holds; rests skipped;
    _Unbounded for anything that is not a number."""
    out = []
    for atom in _atoms(node):
        if atom.source in {"~", "-"}:
            continue
        value = _fraction(atom.source)
        if value is None:
            raise _Unbounded
        out.append(value)
    return out


def _weight(layer: Any) -> Fraction:
    """The steps of one layer of ``<…>`` or ``{…}``: the sum of its elements' weights."""
    if not isinstance(layer, Seq):
        return Fraction(1)
    total = sum((Fraction(str(getattr(e, "weight", 1))) for e in layer.source), Fraction(0))
    return total if total > 0 else Fraction(1)


def _mini(node: Any) -> int:
    if isinstance(node, Atom) or node is None:
        return 1
    if isinstance(node, Element):
        period = _mini(node.source)
        for op in node.ops:
            args = op.args
            if op.kind == "stretch":
                amount = args["amount"]
                values = [v for v in _atom_values(amount) if v != 0]
                part = [v.denominator if args["type"] == "fast" else abs(v.numerator) for v in values]
                period = _lcm(_mini(amount), _mul(period, _lcm(1, *part)))
            elif op.kind == "bjorklund":
                for key in ("pulse", "step", "rotation"):
                    period = _lcm(period, _mini(args.get(key)))
            elif op.kind in {"tail", "range"}:
                period = _lcm(period, _mini(args["element"]))
            elif op.kind == "degradeBy":
                raise _Unbounded  # a random choice per cycle
        return period
    if isinstance(node, Seq):
        if node.alignment == "rand":
            raise _Unbounded
        periods = [_mini(child) for child in node.source]
        if node.alignment == "polymeter_slowcat":  # each layer slowed by its steps
            periods = [_mul(p, _weight(layer).numerator) for p, layer in zip(periods, node.source, strict=True)]
        elif node.alignment == "polymeter":  # each layer sped up to the target steps per cycle
            steps = node.steps_per_cycle
            targets = _atom_values(steps) if steps is not None else [_weight(node.source[0])]
            periods = [
                _mul(p, _lcm(1, *((t / _weight(layer)).denominator for t in targets if t != 0)))
                for p, layer in zip(periods, node.source, strict=True)
            ]
            if steps is not None:
                periods.append(_mini(steps))
        return _lcm(1, *periods)
    return 1


def mini_period(text: str) -> int | None:
    """The period of one mini-notation string (None: random choices, or longer than `MAX_PERIOD`;
    a string that does not parse repeats every cycle — it never plays)."""
    try:
        tree = parse_mini(text)
    except PatternError:
        return 1
    try:
        return _mini(tree)
    except (_Unbounded, RecursionError):
        return None


# --------------------------------------------------------------------------- code


def _integers(arg: ast.Node | None) -> list[int]:
    values = _argument_values(arg)
    if values is None or any(v != int(v) or v < 1 for v in values if v == v):
        raise _Unbounded
    return [int(v) for v in values]


def _stretch(name: str, arg: ast.Node | None) -> int:
    values = _argument_values(arg)
    if values is None:
        raise _Unbounded
    fractions = [Fraction(v).limit_denominator(1 << 20) for v in values if v == v and math.isfinite(v) and v != 0]
    parts = [f.denominator if name in _BY_DENOMINATOR else abs(f.numerator) for f in fractions]
    return _lcm(1, *parts)


def static_period(nodes: list[ast.Node], registry: Any) -> int | None:
    """A multiple of the period of the code (all its `nodes`), in cycles: the least common
    multiple of every string's and every `every`-like function's period, times every time
    stretch (`slow`, `fast`, `cat`, …); None when some part makes random choices or is not one
    this table knows (see the module docstring)."""
    callees = {id(n.callee) for n in nodes if isinstance(n, ast.Call)}
    leaves, stretch = 1, 1
    try:
        for node in nodes:
            if isinstance(node, ast.Name | ast.Member) and id(node) not in callees:
                entry = registry.get(node.name)  # a function or signal used as a value
                if entry is not None and node.name not in _SAME and entry.kind != "control":
                    raise _Unbounded
            elif isinstance(node, ast.Str):
                found = mini_period(node.value)
                if found is None:
                    raise _Unbounded
                leaves = _lcm(leaves, found)
            elif isinstance(node, ast.Call):
                callee = node.callee
                name = callee.name if isinstance(callee, ast.Name | ast.Member) else None
                entry = registry.get(name) if name else None
                first = node.args[0] if node.args else None
                if name is None or entry is None:
                    raise _Unbounded
                if name in _BY_NUMERATOR or name in _BY_DENOMINATOR:
                    stretch = _mul(stretch, _stretch(name, first))
                elif name in _EVERY_N:
                    leaves = _lcm(leaves, *_integers(first))
                elif name in _BY_COUNT:
                    stretch = _mul(stretch, _lcm(1, *_integers(first)))
                elif name in _CATS:
                    count = sum(len(a.items) if isinstance(a, ast.Array) else 1 for a in node.args)
                    stretch = _mul(stretch, max(1, count))
                elif name in _FIXED:
                    leaves = _lcm(leaves, _FIXED[name])
                elif name not in _SAME and entry.kind != "control":
                    raise _Unbounded
        return _mul(leaves, stretch)
    except _Unbounded:
        return None
