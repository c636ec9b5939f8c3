"""The syntax tree of the expression language.

Each node is a frozen value with the 0-based source offset of the token that
names it (for error messages). A program is a list of statements: `const`/`let`
bindings, labelled blocks (`$: …`, `bass: …`) and expressions; there are no
assignments or loops: only what builds patterns, and the value functions
(`hap => hap.value.s === 'hh'`) that test or map their haps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Num:
    """A number literal (or a constant folded from number arithmetic)."""

    value: int | float
    pos: int


@dataclass(frozen=True, slots=True)
class Str:
    """A string literal. `mini` is true for "…" and `…` (the REPL wraps those in mini())."""

    value: str
    mini: bool
    pos: int


@dataclass(frozen=True, slots=True)
class Bool:
    """`true` or `false`."""

    value: bool
    pos: int


@dataclass(frozen=True, slots=True)
class Name:
    """A bare identifier: a function, a constant, or an arrow function's parameter."""

    name: str
    pos: int


@dataclass(frozen=True, slots=True)
class Array:
    """`[a, b, …]`."""

    items: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Object:
    """`{key: value, …}` with identifier, string or number keys."""

    entries: tuple[tuple[str, Node], ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Member:
    """`target.name` — a method (or a method's variant such as `add.squeeze`)."""

    target: Node
    name: str
    pos: int


@dataclass(frozen=True, slots=True)
class Call:
    """`callee(args…)`."""

    callee: Node
    args: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Arrow:
    """`x => body`, `(x) => body` or `(p, i) => body`: a function of a pattern (and,
    where Strudel passes more, of further values such as an iteration index)."""

    param: str
    body: Node
    pos: int
    more: tuple[str, ...] = ()  # the parameters after the first

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param, *self.more)


@dataclass(frozen=True, slots=True)
class Unary:
    """`-x` or `+x` on a number, `!x` on any value."""

    op: str
    operand: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Binary:
    """`a + b`, `a - b`, `a * b`, `a / b`, `a % b` on numbers (like `1/8` in `.late(1/8)`);
    `a === b`, `a !== b`, `a == b`, `a != b`, `a < b`, `a <= b`, `a > b`, `a >= b`."""

    op: str
    left: Node
    right: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Logical:
    """`a && b`, `a || b`, `a ?? b`: the right side is evaluated only when needed."""

    op: str
    left: Node
    right: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Conditional:
    """`test ? then : otherwise`."""

    test: Node
    then: Node
    otherwise: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Index:
    """`target[index]`: an item of an array, a character of a string, a key of an object."""

    target: Node
    index: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Const:
    """`const name = value` (or `let`): binds `name` for the statements after it."""

    name: str
    value: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Labelled:
    """`label: expr` — a block of the program (`$:`, `_$:`, `bass:`), as Strudel's
    transpiler turns it into `expr.p('label')`."""

    label: str
    expr: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Program:
    """Several statements (or one that is not a plain expression), in order."""

    statements: tuple[Node, ...]
    pos: int


Node: TypeAlias = (
    Num | Str | Bool | Name | Array | Object | Member | Call | Arrow | Unary | Binary
    | Logical | Conditional | Index | Const | Labelled | Program
)
