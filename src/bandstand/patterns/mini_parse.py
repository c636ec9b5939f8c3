"""Mini-notation grammar → AST, a PEG parser mirroring Strudel's krill grammar.

The parser follows krill.pegjs (@strudel/mini 1.2.6) rule by rule, with the
same ordered choices and backtracking, so the same text gives the same tree
and the same random seeds: a per-parse counter from 0, taken by each ``?``
when it is parsed and by each ``|`` or ``.`` group when the group completes.

Limits (documented in `MiniLimits`): the text length, the bracket nesting
depth, and the size of numeric arguments to ``*``, ``/``, ``!``, ``@``,
``%``, euclid and ``..`` ranges, so that no mini-notation string can hang the
engine or exhaust memory. Exceeding a limit is a `PatternParseError` with the
column, like any syntax error.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from bandstand.errors import PatternParseError
from bandstand.patterns.values import js_number

__all__ = ["LIMITS", "Atom", "Element", "MiniLimits", "Op", "Seq", "parse_mini"]


@dataclass(frozen=True, slots=True)
class MiniLimits:
    """Bounds that keep every accepted mini-notation string cheap to query."""

    max_length: int = 10_000  # characters
    max_depth: int = 48  # nested [ ] < > { } and operator arguments
    max_factor: float = 1024  # |x| of a number used by * / ! % (,,) and .. ranges
    max_weight: float = 1 << 20  # |x| of an @ weight: it shares a cycle out, it makes no more events
    max_events: int = 65_536  # static upper bound on events per cycle


LIMITS = MiniLimits()


@dataclass(slots=True)
class Atom:
    source: str
    start: int
    end: int


@dataclass(slots=True)
class Op:
    kind: str  # stretch | replicate | bjorklund | degradeBy | tail | range
    args: dict[str, Any]
    position: int


@dataclass(slots=True)
class Element:
    source: Any  # Atom | Seq
    ops: list[Op] = field(default_factory=list)
    weight: float = 1
    reps: float = 1
    start: int = 0


@dataclass(slots=True)
class Seq:
    source: list[Any]  # Elements (fastcat) or Seqs (stack/rand/feet/polymeter...)
    alignment: str  # fastcat | stack | rand | feet | polymeter | polymeter_slowcat
    seed: int | None = None
    steps_marker: bool = False
    steps_per_cycle: Element | None = None
    start: int = 0


_WS = " \n\r\t\u00a0"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LETTER_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl"})
_STEP_EXTRA = frozenset("0123456789~-#.^_")


def _is_step_char(ch: str) -> bool:
    return (
        ch in _STEP_EXTRA
        or (ch.isalpha() and unicodedata.category(ch) in _LETTER_CATEGORIES)
        or (unicodedata.category(ch) == "Nl")
    )


class _Parser:
    def __init__(self, text: str, limits: MiniLimits) -> None:
        self.s = text
        self.n = len(text)
        self.seed = 0
        self.depth = 0
        self.limits = limits
        self.fail_pos = 0
        self.expected: set[str] = set()

    # ------------------------------------------------------------------ helpers

    def fail(self, pos: int, what: str) -> None:
        if pos > self.fail_pos:
            self.fail_pos, self.expected = pos, {what}
        elif pos == self.fail_pos:
            self.expected.add(what)

    def ws(self, pos: int) -> int:
        s, n = self.s, self.n
        while pos < n and s[pos] in _WS:
            pos += 1
        return pos

    def lit(self, pos: int, token: str) -> int | None:
        if self.s.startswith(token, pos):
            return pos + len(token)
        self.fail(pos, f'"{token}"')
        return None

    def number(self, pos: int) -> tuple[float, int] | None:
        m = _NUMBER.match(self.s, pos)
        if m is None:
            self.fail(pos, "a number")
            return None
        return float(m.group()), m.end()

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise _Limit(pos, f"nesting deeper than {self.limits.max_depth} levels")

    # ------------------------------------------------------------------ rules

    def step(self, pos: int) -> tuple[Atom, int] | None:
        p = self.ws(pos)
        start = p
        s, n = self.s, self.n
        while p < n and _is_step_char(s[p]):
            p += 1
        if p == start:
            self.fail(start, 'a letter, a number, "-", "#", ".", "^", "_"')
            return None
        chars = s[start:p]
        end = p
        p = self.ws(p)
        if chars in (".", "_"):
            self.fail(start, "a step")
            return None
        return Atom(chars, start, end), p

    def bracketed(self, pos: int, open_: str, close: str, inner: str) -> tuple[Seq, int] | None:
        p = self.ws(pos)
        start = p
        q = self.lit(p, open_)
        if q is None:
            return None
        self.enter(p)
        try:
            q = self.ws(q)
            got = self.stack_or_choose(q) if inner == "stack_or_choose" else self.polymeter_stack(q)
            if got is None:
                return None
            node, q = got
            q = self.ws(q)
            q2 = self.lit(q, close)
            if q2 is None:
                return None
        finally:
            self.depth -= 1
        node.start = start
        return node, q2

    def slice(self, pos: int) -> tuple[Any, int] | None:
        got = self.step(pos)
        if got is not None:
            return got
        got2 = self.bracketed(pos, "[", "]", "stack_or_choose")
        if got2 is not None:
            node, p = got2
            return node, self.ws(p)
        got3 = self.polymeter(pos)
        if got3 is not None:
            return got3
        got4 = self.bracketed(pos, "<", ">", "polymeter_stack")
        if got4 is not None:
            node, p = got4
            node.alignment = "polymeter_slowcat"
            return node, self.ws(p)
        return None

    def polymeter(self, pos: int) -> tuple[Seq, int] | None:
        got = self.bracketed(pos, "{", "}", "polymeter_stack")
        if got is None:
            return None
        node, p = got
        if self.s.startswith("%", p):
            sub = self.slice(p + 1)
            if sub is not None:
                node.steps_per_cycle = Element(sub[0], start=p + 1)
                self.check_factor(sub[0], p + 1)
                p = sub[1]
            else:
                self.fail(p + 1, "a step count")
        return node, self.ws(p)

    def check_factor(self, node: Any, pos: int, low: bool = False) -> None:
        """Reject numbers beyond the limits in an operator's argument."""
        limit = self.limits.max_factor
        for atom in _atoms(node):
            from bandstand.patterns.values import js_number

            v = js_number(atom.source)
            if v is None or v != v:
                continue
            if abs(v) > limit or (low and v != 0 and abs(v) < 1 / limit):
                raise _Limit(
                    atom.start, f"{atom.source} is beyond the limit of {limit:g} for this operator"
                )

    def slice_with_ops(self, pos: int) -> tuple[Element, int] | None:
        got = self.slice(pos)
        if got is None:
            return None
        node, p = got
        el = Element(node, start=self.ws(pos))
        while True:
            q = self.slice_op(p, el)
            if q is None:
                break
            p = q
        return el, p

    def slice_op(self, pos: int, el: Element) -> int | None:
        for rule in (
            self.op_weight,
            self.op_bjorklund,
            self.op_stretch,
            self.op_replicate,
            self.op_degrade,
            self.op_tail,
            self.op_range,
        ):
            q = rule(pos, el)
            if q is not None:
                return q
        return None

    def op_weight(self, pos: int, el: Element) -> int | None:
        p = self.ws(pos)
        if p < self.n and self.s[p] in "@_":
            got = self.number(p + 1)
            amount, q = got if got is not None else (2.0, p + 1)
            if abs(amount) > self.limits.max_weight:
                raise _Limit(
                    p + 1, f"weight {amount:g} is beyond the limit of {self.limits.max_weight:g}"
                )
            el.weight = el.weight + amount - 1
            return q
        self.fail(p, '"@"')
        return None

    def op_replicate(self, pos: int, el: Element) -> int | None:
        p = self.ws(pos)
        if p < self.n and self.s[p] == "!":
            got = self.number(p + 1)
            amount, q = got if got is not None else (2.0, p + 1)
            reps = el.reps + amount - 1
            if abs(reps) > self.limits.max_factor:
                raise _Limit(
                    p,
                    f"replicating {reps:g} times is beyond the limit of {self.limits.max_factor:g}",
                )
            el.reps = reps
            el.ops = [op for op in el.ops if op.kind != "replicate"]
            el.ops.append(Op("replicate", {"amount": reps}, p))
            el.weight = reps
            return q
        self.fail(p, '"!"')
        return None

    def op_bjorklund(self, pos: int, el: Element) -> int | None:
        p = self.lit(pos, "(")
        if p is None:
            return None
        self.enter(pos)
        try:
            p = self.ws(p)
            got = self.slice_with_ops(p)
            if got is None:
                return None
            pulse, p = got
            p = self.ws(p)
            c = self.comma(p)
            if c is None:
                return None
            p = self.ws(c)
            got = self.slice_with_ops(p)
            if got is None:
                return None
            steps, p = got
            p = self.ws(p)
            c = self.comma(p)
            if c is not None:
                p = c
            p = self.ws(p)
            rotation = None
            got = self.slice_with_ops(p)
            if got is not None:
                rotation, p = got
            p = self.ws(p)
            q = self.lit(p, ")")
            if q is None:
                return None
        finally:
            self.depth -= 1
        self.check_factor(pulse, pos)
        self.check_factor(steps, pos)
        if rotation is not None:
            self.check_factor(rotation, pos)
        el.ops.append(Op("bjorklund", {"pulse": pulse, "step": steps, "rotation": rotation}, pos))
        return q

    def comma(self, pos: int) -> int | None:
        p = self.ws(pos)
        q = self.lit(p, ",")
        return None if q is None else self.ws(q)

    def op_stretch(self, pos: int, el: Element) -> int | None:
        if pos < self.n and self.s[pos] in "/*":
            kind = "slow" if self.s[pos] == "/" else "fast"
            self.enter(pos)
            try:
                got = self.slice(pos + 1)
            finally:
                self.depth -= 1
            if got is None:
                return None
            self.check_factor(got[0], pos + 1, low=True)
            el.ops.append(
                Op("stretch", {"amount": Element(got[0], start=pos + 1), "type": kind}, pos)
            )
            return got[1]
        self.fail(pos, '"*"')
        return None

    def op_degrade(self, pos: int, el: Element) -> int | None:
        if pos < self.n and self.s[pos] == "?":
            got = self.number(pos + 1)
            amount, q = got if got is not None else (None, pos + 1)
            el.ops.append(Op("degradeBy", {"amount": amount, "seed": self.seed}, pos))
            self.seed += 1
            return q
        self.fail(pos, '"?"')
        return None

    def op_tail(self, pos: int, el: Element) -> int | None:
        if pos < self.n and self.s[pos] == ":":
            self.enter(pos)
            try:
                got = self.slice(pos + 1)
            finally:
                self.depth -= 1
            if got is None:
                return None
            el.ops.append(Op("tail", {"element": Element(got[0], start=pos + 1)}, pos))
            return got[1]
        self.fail(pos, '":"')
        return None

    def op_range(self, pos: int, el: Element) -> int | None:
        if self.s.startswith("..", pos):
            self.enter(pos)
            try:
                got = self.slice(pos + 2)
            finally:
                self.depth -= 1
            if got is None:
                return None
            self.check_factor(got[0], pos + 2)
            self.check_factor(el.source, pos)
            el.ops.append(Op("range", {"element": Element(got[0], start=pos + 2)}, pos))
            return got[1]
        self.fail(pos, '".."')
        return None

    def sequence(self, pos: int) -> tuple[Seq, int] | None:
        p = pos
        marker = False
        if self.s.startswith("^", p):
            marker = True
            p += 1
        items = []
        while True:
            got = self.slice_with_ops(p)
            if got is None:
                break
            items.append(got[0])
            p = got[1]
        if not items:
            return None
        return Seq(items, "fastcat", steps_marker=marker, start=pos), p

    def tail(self, pos: int, sep: str) -> tuple[list[Seq], int] | None:
        items = []
        p = pos
        while True:
            q = self.ws(p)
            q2 = self.lit(q, sep)
            if q2 is None:
                break
            got = self.sequence(self.ws(q2))
            if got is None:
                break
            items.append(got[0])
            p = got[1]
        return (items, p) if items else None

    def stack_or_choose(self, pos: int) -> tuple[Seq, int] | None:
        got = self.sequence(pos)
        if got is None:
            return None
        head, p = got
        for sep, alignment in ((",", "stack"), ("|", "rand"), (".", "feet")):
            t = self.tail(p, sep)
            if t is not None:
                seed = None
                if alignment != "stack":
                    seed = self.seed
                    self.seed += 1
                return Seq([head, *t[0]], alignment, seed=seed, start=pos), t[1]
        return head, p

    def polymeter_stack(self, pos: int) -> tuple[Seq, int] | None:
        got = self.sequence(pos)
        if got is None:
            return None
        head, p = got
        t = self.tail(p, ",")
        items = [head, *t[0]] if t is not None else [head]
        return Seq(items, "polymeter", start=pos), (t[1] if t is not None else p)


class _Limit(Exception):
    def __init__(self, position: int, message: str) -> None:
        super().__init__(message)
        self.position = position
        self.message = message


def _atoms(node: Any) -> list[Atom]:
    if isinstance(node, Atom):
        return [node]
    if isinstance(node, Element):
        return _atoms(node.source)
    if isinstance(node, Seq):
        return [a for child in node.source for a in _atoms(child)]
    return []


def _max_abs(node: Any) -> float:
    values = [js_number(a.source) for a in _atoms(node)]
    finite = [abs(v) for v in values if v is not None and v == v and abs(v) != float("inf")]
    return max(finite, default=1.0)


def _min_abs(node: Any) -> float:
    values = [js_number(a.source) for a in _atoms(node)]
    finite = [abs(v) for v in values if v is not None and v == v and v != 0]
    return min(finite, default=1.0)


def density(node: Any) -> float:
    """A static upper bound on the events per cycle that `node` can produce.

    Factors multiply (``*4`` makes four times the events); a patterned argument
    adds its own events (each of its events can cut the pattern's once more).
    """
    if isinstance(node, Atom):
        return 1.0
    if isinstance(node, Element):
        d = density(node.source)
        for op in node.ops:
            args = op.args
            if op.kind == "stretch":
                amount = args["amount"]
                factor = _max_abs(amount) if args["type"] == "fast" else 1 / _min_abs(amount)
                d = d * max(1.0, factor) + density(amount)
            elif op.kind == "replicate":
                d *= max(1.0, abs(args["amount"]))
            elif op.kind == "bjorklund":
                d = d + _max_abs(args["step"]) + density(args["step"]) + density(args["pulse"])
                if args["rotation"] is not None:
                    d += density(args["rotation"])
            elif op.kind == "tail":
                d += density(args["element"])
            elif op.kind == "range":
                d *= _max_abs(node.source) + _max_abs(args["element"]) + 1
                d += density(args["element"])
        return d
    if isinstance(node, Seq):
        if node.alignment != "polymeter":
            return sum(density(child) for child in node.source)
        steps = node.steps_per_cycle
        if steps is not None:
            target = _max_abs(steps)
        else:
            first = node.source[0]
            target = sum(abs(e.weight) for e in first.source) if isinstance(first, Seq) else 1.0
        total = 0.0
        for layer in node.source:
            weight = sum(abs(e.weight) for e in layer.source) if isinstance(layer, Seq) else 1.0
            total += density(layer) * max(1.0, target / max(weight, 1e-9))
        return total + (density(steps) if steps is not None else 0.0)
    return 1.0


def _describe(text: str, pos: int) -> str:
    if pos >= len(text):
        return "end of input"
    return f'"{text[pos]}"'


def parse_mini(text: str, limits: MiniLimits = LIMITS) -> Seq:
    """Parse mini-notation into its AST (raises PatternParseError with the column)."""
    if len(text) > limits.max_length:
        raise PatternParseError(
            f"mini-notation longer than {limits.max_length} characters", text=text[:80], position=0
        )
    for i, ch in enumerate(text):
        if ch in "\"'":
            raise PatternParseError(
                f"mini-notation: quote character at column {i + 1} (a pattern string cannot contain quotes)",
                text=text,
                position=i,
            )
    parser = _Parser(text, limits)
    try:
        p = parser.ws(0)
        got = parser.stack_or_choose(p)
        if got is not None:
            node, end = got
            end = parser.ws(end)
            if end == len(text):
                bound = density(node)
                if bound > limits.max_events:
                    raise _Limit(
                        0,
                        f"the pattern could produce {bound:.0f} events per cycle (limit {limits.max_events})",
                    )
                return node
            parser.fail(end, "end of input")
    except _Limit as exc:
        raise PatternParseError(
            f"mini-notation: {exc.message} (column {exc.position + 1})",
            text=text,
            position=exc.position,
        ) from None
    except RecursionError:
        raise PatternParseError("mini-notation: nested too deeply", text=text, position=0) from None
    pos = parser.fail_pos
    expected = " or ".join(sorted(parser.expected)) or "more input"
    raise PatternParseError(
        f"mini-notation: unexpected {_describe(text, pos)} at column {pos + 1}; expected {expected}",
        text=text,
        position=pos,
    )
