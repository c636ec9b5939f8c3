"""Evaluator: syntax tree → Pattern, applying only what the registry declares.

Names resolve to an arrow function's parameter or to a registry entry
(functions, controls, constants such as `sine` or `silence`); `.name(...)`
calls a registered method; `.name.variant(...)` a declared variant such as
`add.squeeze`. "…" and `…` strings become `mini(...)` patterns whose haps point
into the code; '…' strings stay plain text. Numbers combine with + - * / like
JavaScript numbers. Nothing reaches Python attributes: there is no `getattr`
on user-supplied names, only dictionary look-ups in the registry and in the
host's tables (`host.py`: the REPL's tempo, blocks, samples, visuals, Math).
The functions given to filterHaps, filterValues, filterWhen, withValue and
arpWith are value functions: they see haps and values, and what they may read
of them is the closed list in `js_values`.

A program runs its statements in order: `const` binds a name for what follows,
`label: …` adds a block, `setcpm(…)` and friends change the `Host`; the
pattern that plays is the stack of the blocks when there are any, else the
last statement's value, as Strudel's REPL decides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from bandstand.errors import PatternError, PatternParseError
from bandstand.patterns.expr import ast, js_values
from bandstand.patterns.expr._errors import eval_error, parse_error, unknown_error
from bandstand.patterns.expr.host import (
    MATH_CONSTANTS,
    MATH_FUNCTIONS,
    PROGRAM_FUNCTIONS,
    REFUSED_METHODS,
    VALUE_FUNCTIONS,
    VISUAL_METHODS,
    Host,
    Program,
)
from bandstand.patterns.expr.limits import COUNT_ARGUMENTS, DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse
from bandstand.patterns.methods import get_registry
from bandstand.patterns.mini import mini
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.values import js_truthy
from bandstand.patterns.voicing import voicing_dictionary

if TYPE_CHECKING:
    from bandstand.patterns.pattern import Pattern

_ARITHMETIC: Final[dict[str, Callable[[float, float], float]]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "%": math.fmod,  # JavaScript's remainder keeps the dividend's sign, as fmod does
}
_EQUALITY: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "===": js_values.strict_equal,
    "!==": lambda a, b: not js_values.strict_equal(a, b),
    "==": js_values.loose_equal,
    "!=": lambda a, b: not js_values.loose_equal(a, b),
}

Scope = Mapping[str, Any]

# Numbers inside a "…" count argument, checked against the count limits.
_NUMBER_IN_MINI: Final = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
# "… at column 3" / "(column 3)" in mini-notation errors: replaced by the column in the whole code.
_MINI_COLUMN: Final = re.compile(r" ?(?:at column \d+|\(column \d+\))")


def _registry() -> Any:
    return get_registry()


def _mini(text: str, offset: int, cache: Any) -> Any:
    return mini(text, offset=offset, cache=cache)


def _is_pattern(x: Any) -> bool:
    return isinstance(x, Pattern)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _norm(x: float) -> int | float:
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def _js_norm(x: Any) -> Any:
    """A value function's number as the other numbers (integral ones as int); NaN, the
    infinities and strings as they are."""
    return _norm(x) if isinstance(x, float) and math.isfinite(x) else x


_UNDEFINED: Final = object()  # an arrow function's parameter that was given no argument
# Set in the scope of a value function's body (no name in code can hold a NUL): its numbers
# follow JavaScript all the way (NaN, infinities, `+` joining strings) instead of being refused.
_VALUE_SCOPE: Final = "\0values"


def _kind_of(x: Any) -> str:
    if _is_pattern(x):
        return "a pattern"
    if isinstance(x, str):
        return "a plain '…' string"
    if callable(x):
        return "a function"
    return js_values.kind_of(x)


def _is_value(x: Any) -> bool:
    """What a value function sees that is neither a pattern nor a function: a hap, a span,
    a time, an object, an array, a string, a number, a boolean or undefined (None)."""
    return not _is_pattern(x) and not callable(x)


class Evaluator:
    """Evaluates one parsed piece of code against the registry (its "…" strings through
    `minis`, the caller's `MiniCache`, when given)."""

    def __init__(self, source: str, registry: Any, limits: Limits, minis: Any = None) -> None:
        self.source = source
        self.registry = registry
        self.limits = limits
        self.minis = minis
        self.host = Host()

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

    def _unary(self, node: ast.Unary, scope: Scope) -> Any:
        if node.op == "!":
            return not js_truthy(self.eval(node.operand, scope))
        if _VALUE_SCOPE in scope:
            number = js_values.to_number(self.eval(node.operand, scope))
            return _js_norm(-number if node.op == "-" else number)
        operand = self._numeric(node.operand, scope, node.op)
        return self._number(-operand if node.op == "-" else operand, node.pos)

    def _logical(self, node: ast.Logical, scope: Scope) -> Any:
        """`a && b`, `a || b`, `a ?? b`: the value of one side, as JavaScript answers."""
        left = self.eval(node.left, scope)
        if node.op == "&&":
            return self.eval(node.right, scope) if js_truthy(left) else left
        if node.op == "||":
            return left if js_truthy(left) else self.eval(node.right, scope)
        return self.eval(node.right, scope) if left is None else left

    def _conditional(self, node: ast.Conditional, scope: Scope) -> Any:
        chosen = node.then if js_truthy(self.eval(node.test, scope)) else node.otherwise
        return self.eval(chosen, scope)

    def _index(self, node: ast.Index, scope: Scope) -> Any:
        target = self.eval(node.target, scope)
        key = self.eval(node.index, scope)
        if not _is_value(target):
            raise eval_error(self.source, node.pos, f"{_kind_of(target)} has no items to read with [...]")
        try:
            return js_values.index(target, key)
        except ValueError as exc:
            raise eval_error(self.source, node.pos, str(exc)) from None

    def _member(self, node: ast.Member, scope: Scope) -> Any:
        """A bare member (`p.fast` without a call) is never a value; `Math.PI` is."""
        if self._is_math(node.target, scope):
            if node.name in MATH_CONSTANTS:
                return self._number(MATH_CONSTANTS[node.name], node.pos)
            if node.name not in MATH_FUNCTIONS:
                raise unknown_error(self.source, node.pos, f"Math.{node.name}", "name", MATH_CONSTANTS)
        target = self.eval(node.target, scope)
        if _is_value(target) and not isinstance(target, str):
            try:
                return js_values.member(target, node.name)
            except ValueError as exc:
                raise eval_error(self.source, node.pos, str(exc)) from None
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
        if js_values.is_time(value):  # a hap's time computes as its number, as in JavaScript
            return float(value)
        if not _is_number(value):
            raise eval_error(
                self.source,
                node.pos,
                f"'{op}' works on numbers only, not on {_kind_of(value)}; for patterns use .add(), .sub(), .mul() or .div()",
            )
        return float(value)

    def _binary(self, node: ast.Binary, scope: Scope) -> Any:
        """`a + b` etc. on numbers, as JavaScript computes them (division by zero refused);
        equality and order on values, as JavaScript decides them."""
        if node.op in _EQUALITY:
            return _EQUALITY[node.op](self.eval(node.left, scope), self.eval(node.right, scope))
        if node.op in ("<", "<=", ">", ">="):
            left, right = self.eval(node.left, scope), self.eval(node.right, scope)
            try:
                return js_values.compare(node.op, left, right)
            except ValueError as exc:
                hint = "; for patterns use .lt(), .lte(), .gt() or .gte()" if _is_pattern(left) or _is_pattern(right) else ""
                raise eval_error(self.source, node.pos, f"{exc}{hint}") from None
        if _VALUE_SCOPE in scope:
            try:
                return _js_norm(js_values.arithmetic(node.op, self.eval(node.left, scope), self.eval(node.right, scope)))
            except ValueError as exc:
                raise eval_error(self.source, node.pos, str(exc)) from None
        left = self._numeric(node.left, scope, node.op)
        right = self._numeric(node.right, scope, node.op)
        if node.op in ("/", "%") and right == 0:
            raise eval_error(self.source, node.pos, "division by zero")
        return self._number(_ARITHMETIC[node.op](left, right), node.pos)

    def _arrow(self, node: ast.Arrow, scope: Scope, values: bool = False) -> Callable[..., Any]:
        """A Python function of a pattern (and of what else Strudel passes, such as
        echoWith's iteration index) that evaluates the body with the parameters bound.
        As in JavaScript, extra arguments are dropped and a missing one is undefined
        (using it is an error). With `values`, a function of haps or values (filterHaps,
        withValue…), called at query time: it may answer any value."""
        params = node.params

        def function(pat: Any, *more: Any) -> Any:
            inner = dict(scope)
            for name, value in zip(params, (pat, *more), strict=False):
                inner[name] = value
            for name in params[1 + len(more) :]:
                inner[name] = _UNDEFINED
            if values:
                inner[_VALUE_SCOPE] = True
            result = self.eval(node.body, inner)
            if values:
                return _norm(result) if _is_number(result) else result
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
        if isinstance(callee, ast.Member) and self._is_console(callee, scope):
            self._args(node, scope)  # what it would print is computed (and may fail) as in Strudel
            return None  # console.log prints to the REPL's console: nothing plays
        if isinstance(callee, ast.Member):
            target = callee.target
            if isinstance(target, ast.Member):
                return self._variant_call(node, target, callee.name, scope)
            if self._is_math(target, scope):
                return self._math_call(node, callee, scope)
            return self._method_call(node, callee, scope)
        if isinstance(callee, ast.Name) and callee.name not in scope:
            if callee.name in PROGRAM_FUNCTIONS:
                raise eval_error(
                    self.source,
                    callee.pos,
                    f"{callee.name}(...) belongs to the program: write it as a statement of its own",
                )
            if callee.name == "slider":
                return self._slider(node, scope)
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
        if entry is None and member.name in REFUSED_METHODS:
            raise eval_error(
                self.source, member.pos, f".{member.name}() is refused: {REFUSED_METHODS[member.name]}"
            )
        if entry is None or not entry.method or entry.kind == "value":
            methods = [n for n, e in self.registry.items() if e.method and e.kind != "value"]
            raise unknown_error(self.source, member.pos, member.name, "method", methods)
        return entry

    def _method_call(self, node: ast.Call, callee: ast.Member, scope: Scope) -> Any:
        target = self.eval(callee.target, scope)
        if _is_value(target) and not isinstance(target, str):
            args = self._args(node, scope)
            try:
                return js_values.method(target, callee.name, args)
            except ValueError as exc:
                raise eval_error(self.source, callee.pos, str(exc)) from None
        if callee.name in VISUAL_METHODS:
            return self._visual(node, callee, target, scope)
        if callee.name == "queryArc":
            return self._query_arc(node, callee, target, scope)
        if callee.name == "cpm" and self.host.cps is not None:
            return self._cpm(node, callee, target, scope)
        if callee.name == "voicing" and not node.args:
            from bandstand.patterns.voicing import voicing

            pat = self._receiver(target, callee)
            return self._apply(callee.pos, ".voicing", lambda: voicing(pat, self.host.voicings))
        entry = self._method(callee)
        pat = self._receiver(target, callee)
        args = self._args(node, scope, callee.name, entry)
        return self._apply(callee.pos, f".{callee.name}", lambda: entry.call_method(pat, *args))

    def _is_console(self, callee: ast.Member, scope: Scope) -> bool:
        target = callee.target
        return (
            isinstance(target, ast.Name)
            and target.name == "console"
            and "console" not in scope
            and callee.name in ("log", "info", "warn", "error", "debug")
        )

    def _query_arc(self, node: ast.Call, callee: ast.Member, target: Any, scope: Scope) -> list[Any]:
        """`pattern.queryArc(begin, end)`: its haps in that span, as values (under the query budget)."""
        pat = self._receiver(target, callee)
        args = self._args(node, scope)
        if len(args) != 2 or not all(_is_number(a) for a in args) or not args[0] <= args[1]:
            raise eval_error(self.source, callee.pos, ".queryArc(begin, end) takes two numbers, begin ≤ end")
        haps: list[Any] = self._apply(callee.pos, ".queryArc", lambda: list(pat.query_arc(args[0], args[1])))
        return haps

    def _is_math(self, node: ast.Node, scope: Scope) -> bool:
        return isinstance(node, ast.Name) and node.name == "Math" and "Math" not in scope

    def _math_call(self, node: ast.Call, callee: ast.Member, scope: Scope) -> int | float:
        """`Math.floor(x)` etc.: JavaScript's pure Math functions, on numbers only."""
        function = MATH_FUNCTIONS.get(callee.name)
        if callee.name == "random":
            raise eval_error(
                self.source,
                callee.pos,
                "Math.random is not pure (it would change on every query): use rand or irand",
            )
        if function is None:
            known = [f"Math.{name}" for name in MATH_FUNCTIONS]
            raise unknown_error(
                self.source, callee.pos, f"Math.{callee.name}", "Math function", known
            )
        args = [self._numeric(arg, scope, f"Math.{callee.name}") for arg in node.args]
        try:
            value = float(function(*args))
        except (ValueError, OverflowError, TypeError) as exc:
            raise eval_error(self.source, node.pos, f"Math.{callee.name}: {exc}") from None
        return self._number(value, node.pos)

    def _slider(self, node: ast.Call, scope: Scope) -> Any:
        """`slider(value, min, max, step)`: the REPL's slider plays its value."""
        if not node.args:
            raise eval_error(self.source, node.pos, "slider() needs a value, e.g. slider(0.5, 0, 1)")
        values = [self._numeric(arg, scope, "slider") for arg in node.args]
        return self.registry.call("pure", _norm(values[0]))

    def _visual(self, node: ast.Call, callee: ast.Member, target: Any, scope: Scope) -> Any:
        """A drawing method: no picture here; the haps change only as Strudel's do."""
        pat = self._receiver(target, callee)
        args = self._args(node, scope)
        if VISUAL_METHODS[callee.name] == "same":
            return pat
        options = args[0] if args and isinstance(args[0], dict) else {}
        scope_id = options.get("id", 1)
        return self._apply(
            callee.pos, f".{callee.name}", lambda: self.registry.call_method(pat, "analyze", scope_id)
        )

    def _cpm(self, node: ast.Call, callee: ast.Member, target: Any, scope: Scope) -> Any:
        """`.cpm(n)` after setcpm/setcps: n cycles per minute against the program's tempo."""
        pat = self._receiver(target, callee)
        args = self._args(node, scope)
        if len(args) != 1 or not _is_number(args[0]):
            raise eval_error(
                self.source,
                callee.pos,
                ".cpm(...) takes one number in a program that sets the tempo",
            )
        factor = args[0] / 60 / self.host.cps_float  # as JavaScript computes it
        return self._apply(
            callee.pos, ".cpm", lambda: self.registry.call_method(pat, "fast", _norm(factor))
        )

    # ------------------------------------------------------------------ programs

    def _program(self, node: ast.Program, scope: Scope) -> Any:
        """Run the statements in order; the value is the last statement's."""
        inner = dict(scope)
        value: Any = None
        for statement in node.statements:
            value = self._statement(statement, inner)
        return value

    def _statement(self, node: ast.Node, scope: dict[str, Any]) -> Any:
        if isinstance(node, ast.Const):
            if node.name in scope or node.name == "Math":
                raise eval_error(self.source, node.pos, f"'{node.name}' is declared twice")
            scope[node.name] = self.eval(node.value, scope)
            return None
        if isinstance(node, ast.Program):
            return self._program_in(node, scope)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.callee, ast.Name)
            and node.callee.name in PROGRAM_FUNCTIONS
            and node.callee.name not in scope
        ):
            return self._program_call(node, node.callee.name, scope)
        return self.eval(node, scope)

    def _program_in(self, node: ast.Program, scope: dict[str, Any]) -> Any:
        value: Any = None
        for statement in node.statements:
            value = self._statement(statement, scope)
        return value

    def _const(self, node: ast.Const, scope: Scope) -> Any:
        raise eval_error(self.source, node.pos, "'const' is a statement, not a value")

    def _labelled(self, node: ast.Labelled, scope: Scope) -> Any:
        """`label: pattern` — a block (Strudel's `pattern.p('label')`)."""
        value = self.eval(node.expr, scope)
        if not _is_pattern(value):
            raise eval_error(
                self.source,
                node.expr.pos,
                f"the block '{node.label}:' must be a pattern, not {_kind_of(value)}",
            )
        self.host.block(node.label, value)
        muted = node.label.startswith("_") or node.label.endswith("_")
        return self.registry.get("silence").value if muted else value

    def _program_call(self, node: ast.Call, name: str, scope: Scope) -> Any:
        """setcpm/setcps, samples, all, each, the voicing dictionaries, useRNG: they change
        the program, and are silence."""
        from fractions import Fraction

        silence = self.registry.get("silence").value
        if name == "samples":
            self.host.note_samples(node.args)  # read, never evaluated: nothing is fetched
            return silence
        if name == "useRNG":
            args = self._args(node, scope)
            if args != ["legacy"]:
                raise eval_error(
                    self.source,
                    node.pos,
                    "useRNG: only 'legacy', Strudel's default random numbers, is played here",
                )
            return silence
        if name in ("addVoicings", "registerVoicings", "setVoicingRange"):
            return self._voicing_call(node, name, scope)
        if name in ("all", "each"):
            args = self._args(node, scope)
            if len(args) != 1 or not callable(args[0]) or _is_pattern(args[0]):
                raise eval_error(
                    self.source, node.pos, f"{name}(...) takes one function, e.g. {name}(x => x.fast(2))"
                )
            function = args[0]
            if name == "all":
                self.host.transforms.append(function)
            else:
                self.host.each = function
            return silence
        if len(node.args) != 1:
            raise eval_error(self.source, node.pos, f"{name}(...) takes one number, e.g. setcpm(120/4)")
        value = self.eval(node.args[0], scope)
        if not _is_number(value):
            raise eval_error(
                self.source,
                node.args[0].pos,
                f"{name} takes a number, not {_kind_of(value)}, e.g. {name}(120/4)",
            )
        if value <= 0:
            raise eval_error(self.source, node.args[0].pos, f"{name}: the tempo must be above 0")
        exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
        if name.lower() == "setcpm":
            self.host.set_cps(value / 60, exact / 60)
        else:
            self.host.set_cps(value, exact)
        return silence

    def _voicing_call(self, node: ast.Call, name: str, scope: Scope) -> Any:
        """addVoicings/registerVoicings(name, {symbol: voicings}) add a dictionary;
        setVoicingRange(name, range) only changes what the older voicings() reads."""
        args = self._args(node, scope)
        if name == "setVoicingRange":
            if not args or not isinstance(args[0], str) or args[0] not in self.host.voicings:
                known = ", ".join(sorted(self.host.voicings))
                raise eval_error(
                    self.source, node.pos, f"setVoicingRange: name one of the dictionaries in '…' ({known})"
                )
            return self.registry.get("silence").value
        try:
            table = voicing_dictionary(*args[:2]) if len(args) >= 2 else voicing_dictionary(None, None)
        except ValueError as exc:
            raise eval_error(self.source, node.pos, f"{name}: {exc}") from None
        self.host.voicings[args[0]] = table
        return self.registry.get("silence").value

    def run(self, tree: ast.Node) -> Program:
        """Run a parsed program: its pattern (the blocks' stack or the last value), its tempo."""
        if isinstance(tree, ast.Program):
            last = tree.statements[-1]
            while isinstance(last, ast.Program):
                last = last.statements[-1]
            if isinstance(last, ast.Const):
                raise eval_error(
                    self.source, last.pos, "the program must end with a pattern, not a const"
                )
            value = self._program(tree, {})
        else:
            value = self._statement(tree, {})
        if self.host.blocks:
            playing = self.host.playing()
            value = self.registry.call("stack", *playing) if playing else self.registry.get("silence").value
        for function in self.host.transforms:
            value = self._apply(tree.pos, "all", partial(function, value))
        if not isinstance(value, Pattern):
            raise eval_error(
                self.source, tree.pos, f"the code must make a pattern, not {_kind_of(value)}"
            )
        return Program(value, self.host.cps, tuple(self.host.notes))

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
        of_values = entry is not None and entry.name in VALUE_FUNCTIONS
        values = [
            self._arrow(arg, scope, values=True) if of_values and isinstance(arg, ast.Arrow) else self.eval(arg, scope)
            for arg in node.args
        ]
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
    ast.Logical: Evaluator._logical,
    ast.Conditional: Evaluator._conditional,
    ast.Index: Evaluator._index,
    ast.Const: Evaluator._const,
    ast.Labelled: Evaluator._labelled,
    ast.Program: Evaluator._program,
}


def run_program(code: str, *, limits: Limits = DEFAULT_LIMITS, minis: Any = None) -> Program:
    """Parse and run a Strudel program: the pattern it plays, the tempo it sets and notes
    on what it asked for that is not honoured (PatternError subclasses on failure)."""
    tree = parse(code, limits)
    return Evaluator(code, _registry(), limits, minis).run(tree)


def evaluate(code: str, *, limits: Limits = DEFAULT_LIMITS, minis: Any = None) -> Pattern:
    """Parse and evaluate `code` into a Pattern (PatternError subclasses on failure);
    `minis`: the caller's `MiniCache` for its mini-notation strings (default: none).
    A program's tempo and notes are dropped here: `run_program` keeps them."""
    return run_program(code, limits=limits, minis=minis).pattern
