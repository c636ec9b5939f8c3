"""The static density bound: an upper bound on the haps per cycle a piece of code can
compute, read from its syntax tree alone, before anything is queried.

Every mini-notation string counts its atoms times the product of its repeat and
speed numbers (`*`, `!`, `%`, `/x` with x < 1, euclid); every function that
multiplies density (`fast`, `ply`, `hurry`, `segment`, …) multiplies the bound by
the largest value its first argument can take — a literal, an array of literals or
a mini-notation pattern of numbers (``fast("<1 1000000>")`` counts 1000000) — and
chained calls multiply (``fast(1000).fast(1000)`` counts a million). None means
the code uses something this bound does not know (a computed or continuous factor,
a range, a function outside the table); validation then probes and meters instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any, Final

from bandstand.patterns.expr import ast

__all__ = ["static_density", "walk"]


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """Every node of the tree (iteratively: deep trees do not recurse)."""
    stack: list[ast.Node] = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ast.Array):
            stack.extend(current.items)
        elif isinstance(current, ast.Object):
            stack.extend(v for _, v in current.entries)
        elif isinstance(current, ast.Member):
            stack.append(current.target)
        elif isinstance(current, ast.Call):
            stack.append(current.callee)
            stack.extend(current.args)
        elif isinstance(current, ast.Arrow):
            stack.append(current.body)
        elif isinstance(current, ast.Unary):
            stack.append(current.operand)
        elif isinstance(current, ast.Binary):
            stack.extend((current.left, current.right))
        elif isinstance(current, ast.Program):
            stack.extend(current.statements)
        elif isinstance(current, ast.Const):
            stack.append(current.value)
        elif isinstance(current, ast.Labelled):
            stack.append(current.expr)


# Functions that never multiply the haps a pattern computes per cycle (values, controls,
# shifts, filters, per-cycle choices, structure taken from a mini-notation argument that is
# itself counted); functions that do, by at most their first argument or its reciprocal, or
# by a fixed factor. Any other function: no static bound.
_NEUTRAL: Final = frozenset(
    {
        "add", "sub", "mul", "div", "scale", "range", "rangex", "late", "early", "degrade",
        "degradeBy", "undegradeBy", "sometimes", "sometimesBy", "often", "rarely", "almostNever",
        "almostAlways", "always", "never", "someCycles", "someCyclesBy", "every", "firstOf",
        "lastOf", "rev", "palindrome", "iter", "iterBack", "struct", "mask", "stack", "seq",
        "cat", "fastcat", "slowcat", "sequence", "swing", "swingBy", "note", "n", "s", "sound",
        "silence", "sine", "cosine", "saw", "square", "tri", "rand", "irand", "perlin", "velocity",
        "mini", "m", "h", "minify",
    }
)  # fmt: skip
_BY_ARGUMENT: Final = frozenset(
    {"fast", "density", "hurry", "ply", "segment", "seg", "chop", "striate", "echo", "stut"}
)
_BY_RECIPROCAL: Final = frozenset({"slow", "sparsity"})
_MINI_CONSTRUCTORS: Final = frozenset({"mini", "m", "h", "minify"})
_FIXED: Final = {"off": 2, "superimpose": 2, "jux": 2, "juxBy": 2}
_MINI_SAFE: Final = re.compile(r"[\w\s~\[\]<>{},.*!@?:#'|()%/-]*")
_MINI_ATOM: Final = re.compile(r"(?<![*!@?%/:\w.#'-])[A-Za-z0-9#.'-]+")
_MINI_OP: Final = re.compile(r"([*!%/@?])(\d+(?:\.\d+)?(?![\w.]))?")
_MINI_EUCLID: Final = re.compile(r"\(\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\)")
_NUMBER: Final = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])")
_MINI_NUMBERS: Final = re.compile(r"[\d\s.e+<>\[\]{},~*!@%|-]*")


def _mini_numbers(text: str) -> list[float] | None:
    """The numbers a mini-notation pattern of numbers can take (None: not such a pattern)."""
    if ".." in text or not _MINI_NUMBERS.fullmatch(text):
        return None
    numbers = [float(n) for n in _NUMBER.findall(text)]
    return numbers or None


def _mini_density(text: str) -> float | None:
    """An upper bound on the events per cycle of one mini-notation string: its atoms, each
    repeated at most the product of every `*n`, `!n`, `%n`, `/x` (x < 1) and euclid `(…)`
    number in it — a patterned `*<2 3>` counts the largest number in the string; None for
    notation this does not bound (ranges, patterned divisions, patterned euclid, …)."""
    if ".." in text or not _MINI_SAFE.fullmatch(text):
        return None
    largest = max((abs(float(n)) for n in _NUMBER.findall(text)), default=1.0)
    factor = 1.0
    for op, number in _MINI_OP.findall(text):
        if op == "/" and not number:
            return None  # a patterned division may divide by anything the pattern holds
        if op == "!":
            factor *= max(2.0, float(number or 2))
        elif op in "*%":
            factor *= max(1.0, float(number) if number else largest)
        elif op == "/":
            factor *= max(1.0, 1 / float(number)) if float(number) else math.inf
    euclids = _MINI_EUCLID.findall(text)
    if len(euclids) != text.count("("):
        return None
    for numbers in euclids:
        for part in numbers.split(","):
            factor *= max(1.0, abs(float(part)))
    atoms = sum(1 for a in _MINI_ATOM.findall(text) if a not in {"-", "."})
    return max(1, atoms) * factor


def _argument_values(arg: ast.Node | None) -> list[float] | None:
    """The values a multiplier argument can take: a literal, an array of literals, or a
    mini-notation pattern of numbers; None for anything computed or continuous."""
    if isinstance(arg, ast.Num):
        return [float(arg.value)]
    if isinstance(arg, ast.Array) and arg.items and all(isinstance(i, ast.Num) for i in arg.items):
        return [float(i.value) for i in arg.items if isinstance(i, ast.Num)]
    if isinstance(arg, ast.Str):
        return _mini_numbers(arg.value)
    return None


def _multiplier(name: str, arg: ast.Node | None) -> float | None:
    values = _argument_values(arg)
    if values is None:
        return None
    if name in _BY_ARGUMENT:
        return max(1.0, *values)
    if any(v <= 0 for v in values):
        return None  # slow(0) is silence, but a patterned zero makes odd spans: no bound
    return max(1.0, *(1 / v for v in values))


def static_density(nodes: list[ast.Node], registry: Any) -> float | None:
    """An upper bound on the haps per cycle the code (all its `nodes`) can compute: every
    string's bound, times every multiplying function's factor; None when some function,
    argument or notation is not one this bound knows."""
    total, factor = 0.0, 1.0
    callees = {id(n.callee) for n in nodes if isinstance(n, ast.Call)}
    mini_args = {  # plain strings that the mini-notation constructors parse
        id(arg)
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.callee, ast.Name)
        and n.callee.name in _MINI_CONSTRUCTORS
        for arg in n.args
    }
    for node in nodes:
        if isinstance(node, ast.Name | ast.Member) and id(node) not in callees:
            entry = registry.get(node.name)  # a function passed as a value: its factor is unknown
            if entry is not None and node.name not in _NEUTRAL and entry.kind != "control":
                return None
        if isinstance(node, ast.Str):
            found = _mini_density(node.value) if node.mini or id(node) in mini_args else 1.0
            if found is None:
                return None
            total += found
        elif isinstance(node, ast.Num | ast.Name):
            total += 1
        elif isinstance(node, ast.Call):
            callee = node.callee
            name = callee.name if isinstance(callee, ast.Name | ast.Member) else None
            entry = registry.get(name) if name else None
            if name is None or entry is None:
                return None
            if name in _FIXED:
                factor *= _FIXED[name]
            elif name in _BY_ARGUMENT or name in _BY_RECIPROCAL:
                multiplier = _multiplier(name, node.args[0] if node.args else None)
                if multiplier is None:
                    return None
                factor *= multiplier
            elif name not in _NEUTRAL and entry.kind != "control":
                return None
    return total * factor
