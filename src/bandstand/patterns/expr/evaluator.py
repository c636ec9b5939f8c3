"""Evaluator: syntax tree → Pattern, applying only what the registry declares.

Names resolve to an arrow function's parameter or to a registry entry
(functions, controls, constants such as `sine` or `silence`); `.name(...)`
calls a registered method; `.name.variant(...)` a declared variant such as
`add.squeeze`. "…" and `…` strings become `mini(...)` patterns whose haps point
into the code; '…' strings stay plain text. Numbers combine with + - * / like
JavaScript numbers. Nothing reaches Python attributes: there is no `getattr`
on user-supplied names, only dictionary look-ups in the registry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from bandstand.errors import PatternError, PatternParseError
from bandstand.patterns.expr import ast
from bandstand.patterns.expr._errors import eval_error, parse_error, unknown_error
from bandstand.patterns.expr.limits import COUNT_ARGUMENTS, DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse

if TYPE_CHECKING:
    from bandstand.patterns.pattern import Pattern

_ARITHMETIC: Final[dict[str, Callable[[float, float], float]]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}

Scope = Mapping[str, Any]

# Numbers inside a "…" count argument, checked against the count limits.
_NUMBER_IN_MINI: Final = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
# "… at column 3" / "(column 3)" in mini-notation errors: replaced by the column in the whole code.
_MINI_COLUMN: Final = re.compile(r" ?(?:at column \d+|\(column \d+\))")


def _registry() -> Any:
    from bandstand.patterns.registry import get_registry

    return get_registry()


def _mini(text: str, offset: int, cache: Any) -> Any:
    from bandstand.patterns.mini import mini

    return mini(text, offset=offset, cache=cache)


def _is_pattern(x: Any) -> bool:
    from bandstand.patterns.pattern import Pattern

    return isinstance(x, Pattern)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _norm(x: float) -> int | float:
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


_UNDEFINED: Final = object()  # an arrow function's parameter that was given no argument


def _kind_of(x: Any) -> str:
    if _is_pattern(x):
        return "a pattern"
    if isinstance(x, bool):
        return "a boolean"
    if _is_number(x):
        return "a number"
    if isinstance(x, str):
        return "a plain '…' string"
    if isinstance(x, list):
        return "an array"
    if isinstance(x, dict):
        return "an object"
    return "a function"


class Evaluator:
    """Evaluates one parsed piece of code against the registry (its "…" strings through
    `minis`, the caller's `MiniCache`, when given)."""

    def __init__(self, source: str, registry: Any, limits: Limits, minis: Any = None) -> None:
        self.source = source
        self.registry = registry
        self.limits = limits
        self.minis = minis

    # ------------------------------------------------------------------ dispatch

    def eval(self, node: ast.Node, scope: Scope) -> Any:
        """The value of `node`: a Pattern, number, string, bool, list, dict or function."""
        return _DISPATCH[type(node)](self, node, scope)

    def _num(self, node: ast.Num, scope: Scope) -> int | float:
        return self._number(node.value, node.pos)

    def _str(self, node: ast.Str, scope: Scope) -> Any:
        return self._string(node)

    def _bool(self, node: ast.Bool, scope: Scope) -> bool:
        return node.value

    def _array(self, node: ast.Array, scope: Scope) -> list[Any]:
        return [self.eval(item, scope) for item in node.items]

    def _object(self, node: ast.Object, scope: Scope) -> dict[str, Any]:
        return {key: self.eval(value, scope) for key, value in node.entries}

    def _unary(self, node: ast.Unary, scope: Scope) -> int | float:
        operand = self._numeric(node.operand, scope, node.op)
        return self._number(-operand if node.op == "-" else operand, node.pos)

    def _member(self, node: ast.Member, scope: Scope) -> Any:
        """A bare member (`p.fast` without a call) is never a value."""
        self.eval(node.target, scope)
        self._method(node)
        raise eval_error(
            self.source, node.pos, f"'.{node.name}' must be called, e.g. .{node.name}(...)"
        )

    # ------------------------------------------------------------------ leaves

    def _number(self, value: float, pos: int) -> int | float:
        if not math.isfinite(value) or abs(value) > self.limits.max_number:
            raise eval_error(
                self.source,
                pos,
                f"number {value} is out of range (the limit is ±{self.limits.max_number:g})",
            )
        return _norm(value)

    def _string(self, node: ast.Str) -> Any:
        if not node.mini:
            return node.value
        offset = node.pos + 1  # the first character inside the quotes
        try:
            return _mini(node.value, offset, self.minis)
        except PatternParseError as exc:
            # Point at the same character in the whole code (exact for strings without escapes).
            inner = exc.position if exc.position is not None else -1
            pos = offset + inner if 0 <= inner <= len(node.value) else node.pos
            message = _MINI_COLUMN.sub("", exc.message).removeprefix("mini-notation: ")
            raise parse_error(self.source, pos, f"in mini-notation: {message}") from None

    def _name(self, node: ast.Name, scope: Scope) -> Any:
        if node.name in scope:
            value = scope[node.name]
            if value is _UNDEFINED:
                raise eval_error(
                    self.source,
                    node.pos,
                    f"'{node.name}' is undefined here: the function is called with fewer arguments",
                )
            return value
        entry = self.registry.get(node.name)
        if entry is None:
            raise unknown_error(self.source, node.pos, node.name, "name", self.registry.names())
        if entry.kind == "value":
            return entry.value
        return entry

    def _numeric(self, node: ast.Node, scope: Scope, op: str) -> float:
        value = self.eval(node, scope)
        if not _is_number(value):
            raise eval_error(
                self.source,
                node.pos,
                f"'{op}' works on numbers only, not on {_kind_of(value)}; for patterns use .add(), .sub(), .mul() or .div()",
            )
        return float(value)

    def _binary(self, node: ast.Binary, scope: Scope) -> int | float:
        """`a + b` etc. on numbers, as JavaScript computes them (division by zero refused)."""
        left = self._numeric(node.left, scope, node.op)
        right = self._numeric(node.right, scope, node.op)
        if node.op == "/" and right == 0:
            raise eval_error(self.source, node.pos, "division by zero")
        return self._number(_ARITHMETIC[node.op](left, right), node.pos)

    def _arrow(self, node: ast.Arrow, scope: Scope) -> Callable[..., Any]:
        """A Python function of a pattern (and of what else Strudel passes, such as
        echoWith's iteration index) that evaluates the body with the parameters bound.
        As in JavaScript, extra arguments are dropped and a missing one is undefined
        (using it is an error)."""
        params = node.params

        def function(pat: Any, *more: Any) -> Any:
            inner = dict(scope)
            for name, value in zip(params, (pat, *more), strict=False):
                inner[name] = value
            for name in params[1 + len(more) :]:
                inner[name] = _UNDEFINED
            result = self.eval(node.body, inner)
            if not _is_pattern(result):
                raise eval_error(
                    self.source,
                    node.body.pos,
                    f"the function must return a pattern, not {_kind_of(result)}",
                )
            return result

        return function

    # ------------------------------------------------------------------ calls

    def _call(self, node: ast.Call, scope: Scope) -> Any:
        callee = node.callee
        if isinstance(callee, ast.Member):
            target = callee.target
            if isinstance(target, ast.Member):
                return self._variant_call(node, target, callee.name, scope)
            return self._method_call(node, callee, scope)
        if isinstance(callee, ast.Name) and callee.name not in scope:
            entry = self.registry.get(callee.name)
            if entry is None:
                raise unknown_error(
                    self.source, callee.pos, callee.name, "function", self.registry.names()
                )
            if entry.kind == "value":
                raise eval_error(
                    self.source,
                    callee.pos,
                    f"'{callee.name}' is a pattern, not a function; use it without ( )",
                )
            args = self._args(node, scope, callee.name, entry)
            return self._apply(node.pos, callee.name, lambda: entry(*args))
        function = self.eval(callee, scope)
        if _is_pattern(function) or not callable(function):
            raise eval_error(self.source, node.pos, f"{_kind_of(function)} cannot be called")
        args = self._args(node, scope)
        return self._apply(node.pos, "function", lambda: function(*args))

    def _method(self, member: ast.Member) -> Any:
        """The registry entry of method `member.name`, or UnknownFunctionError."""
        entry = self.registry.get(member.name)
        if entry is None or not entry.method or entry.kind == "value":
            methods = [n for n, e in self.registry.items() if e.method and e.kind != "value"]
            raise unknown_error(self.source, member.pos, member.name, "method", methods)
        return entry

    def _method_call(self, node: ast.Call, callee: ast.Member, scope: Scope) -> Any:
        target = self.eval(callee.target, scope)
        entry = self._method(callee)
        pat = self._receiver(target, callee)
        args = self._args(node, scope, callee.name, entry)
        return self._apply(callee.pos, f".{callee.name}", lambda: entry.call_method(pat, *args))

    def _variant_call(self, node: ast.Call, member: ast.Member, variant: str, scope: Scope) -> Any:
        target = self.eval(member.target, scope)
        entry = self._method(member)
        func = entry.variants.get(variant)
        if func is None:
            callee = node.callee
            assert isinstance(callee, ast.Member)
            known = [f"{member.name}.{v}" for v in entry.variants]
            raise unknown_error(
                self.source, callee.pos, f"{member.name}.{variant}", "method", known
            )
        pat = self._receiver(target, member)
        args = self._args(node, scope)
        return self._apply(member.pos, f".{member.name}.{variant}", lambda: func(pat, *args))

    def _receiver(self, target: Any, member: ast.Member) -> Any:
        if _is_pattern(target):
            return target
        hint = ""
        if isinstance(target, str):
            hint = '; write "…" (double quotes) to make it mini-notation'
        raise eval_error(
            self.source,
            member.pos,
            f"'.{member.name}' needs a pattern before the dot, not {_kind_of(target)}{hint}",
        )

    def _args(
        self, node: ast.Call, scope: Scope, function: str = "", entry: Any = None
    ) -> list[Any]:
        """Evaluate the arguments of a call to `function` (the name as written)."""
        # `s()` is a mistake, but `"bd sd".s()` sets the control from the pattern's values.
        if (
            entry is not None
            and entry.kind == "control"
            and not node.args
            and isinstance(node.callee, ast.Name)
        ):
            raise eval_error(
                self.source, node.pos, f'{function}() needs a value, e.g. {function}("…")'
            )
        values = [self.eval(arg, scope) for arg in node.args]
        canonical = entry.name if entry is not None else function
        indices, limit = COUNT_ARGUMENTS.get(function) or COUNT_ARGUMENTS.get(canonical, ((), 0))
        for i in indices:
            if i < len(values):
                self._check_count(
                    node.args[i], values[i], function, min(limit, self.limits.max_count)
                )
        return values

    def _check_count(self, node: ast.Node, value: Any, function: str, limit: int) -> None:
        """A count argument (repeats, steps, slices) may not exceed the function's limit."""
        found: list[tuple[int, float]] = []
        if _is_number(value):
            found.append((node.pos, abs(float(value))))
        elif isinstance(node, ast.Str) and node.mini:
            found += [
                (node.pos + 1 + m.start(), float(m.group()))
                for m in _NUMBER_IN_MINI.finditer(node.value)
            ]
        for pos, count in found:
            if count > limit:
                raise eval_error(
                    self.source,
                    pos,
                    f"{function}: {count:g} is beyond the limit of {limit} for this count",
                )

    def _apply(self, pos: int, name: str, run: Callable[[], Any]) -> Any:
        """Run one registry call; anything it raises becomes a PatternError at `pos`."""
        try:
            return run()
        except PatternError:
            raise
        except RecursionError:
            raise eval_error(
                self.source, pos, f"{name}: the pattern is nested too deeply"
            ) from None
        except Exception as exc:
            raise eval_error(self.source, pos, f"{name}: {exc}") from None


_DISPATCH: Final[dict[type, Callable[[Evaluator, Any, Scope], Any]]] = {
    ast.Num: Evaluator._num,
    ast.Str: Evaluator._str,
    ast.Bool: Evaluator._bool,
    ast.Name: Evaluator._name,
    ast.Array: Evaluator._array,
    ast.Object: Evaluator._object,
    ast.Member: Evaluator._member,
    ast.Call: Evaluator._call,
    ast.Arrow: Evaluator._arrow,
    ast.Unary: Evaluator._unary,
    ast.Binary: Evaluator._binary,
}


def evaluate(code: str, *, limits: Limits = DEFAULT_LIMITS, minis: Any = None) -> Pattern:
    """Parse and evaluate `code` into a Pattern (PatternError subclasses on failure);
    `minis`: the caller's `MiniCache` for its mini-notation strings (default: none)."""
    from bandstand.patterns.pattern import Pattern

    tree = parse(code, limits)
    evaluator = Evaluator(code, _registry(), limits, minis)
    result = evaluator.eval(tree, {})
    if isinstance(result, Pattern):
        return result
    raise eval_error(code, tree.pos, f"the code must make a pattern, not {_kind_of(result)}")
