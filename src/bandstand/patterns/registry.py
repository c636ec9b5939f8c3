"""The table of pattern functions, by their Strudel names.

`Registry` is the table's shape; the table itself, built from
`bandstand.patterns.library.ENTRIES`, is `bandstand.patterns.methods.REGISTRY`,
the one place where pattern functions are looked up — by the expression
language, by `Pattern.__getattr__` (methods) and by the validation API. Each transform is written once, as a plain Python function whose last
argument is the pattern (``fast(factor, pat)``); the registrar derives the
rest, like Strudel's ``register``:

Shape of an entry (`PatternFunction`):

- ``name``: the Strudel name (``fast``, ``sometimesBy``, ``note``, ...).
- ``kind``: ``"transform"`` (takes leading args then a pattern; reachable as
  a function and as a method), ``"constructor"`` (variadic or plain function
  returning a pattern: ``stack``, ``cat``, ``pure``, ``irand``, ``choose`` ...;
  ``method=True`` means ``p.stack(q)`` ≡ ``stack(p, q)``), ``"control"``
  (``note``, ``s``, ``gain`` ...: ``note(x)`` makes a control pattern,
  ``p.note(x)`` sets it with structure from ``p``), ``"value"`` (a constant
  pattern: ``sine``, ``rand``, ``silence``; ``value`` holds it; being a
  pattern it has every method, e.g. ``rand.range(1, 5)``), ``"operator"``
  (``add``, ``sub``, ``mul``, ``div``, ``mod``, ``set``, ``keepif``, ``lt`` ...:
  ``add(1, p)`` as a function, ``p.add(1)`` ≡ ``p.add.in(1)`` as a method, and
  the alignment ``variants``).
- ``arity``: for transforms, the number of arguments *including* the
  pattern (``fast`` → 2, ``every`` → 3, ``rev`` → 1).
- ``patternify``: True when the leading arguments are reified — numbers and
  plain strings become ``pure(x)``, patterns stay (the expression language
  turns double-quoted strings into ``mini(...)`` before calling) — and, when
  any of them is not a pure constant, the transform is applied per event of
  the argument pattern (fmap + app_left + inner join), like Strudel.
  False means every argument is reified and handed to ``func`` as a pattern.
- ``function_args``: indices (0-based, among the leading arguments) that
  take a function ``Pattern -> Pattern`` (``x => x.fast(2)`` or a partial
  application such as ``fast(2)``); ``variadic_functions`` for
  ``superimpose``/``layer`` which take any number of them.
- ``join``: how a patterned argument is joined — ``"inner"`` (most) or
  ``"step"`` (``take``, ``drop``, ``extend``... rebuild each cycle by steps).
- ``method``: reachable as ``p.name(...)``.
- ``variants``: methods reached as ``p.name.variant(...)``, e.g. ``add.out``,
  ``add.squeeze``; each is a function ``(pat, *args) -> Pattern``.
- ``aliases`` share one entry (``slow``/``sparsity``, ``s``/``sound``).

Calling:

- ``REGISTRY.call(name, *args)`` — the function form. With fewer arguments
  than ``arity`` it returns a `Partial` (a callable ``Pattern -> Pattern``), so
  ``every(2, fast(2))`` works; with all of them it returns a Pattern.
- ``REGISTRY.call_method(pat, name, *args)`` / ``p.name(*args)`` — the method
  form; for arity-2 transforms several arguments are sequenced
  (``p.fast(1, 2)`` ≡ ``p.fast(seq(1, 2))``), as in Strudel.
- ``REGISTRY.get(name)`` → `PatternFunction` or None; ``REGISTRY.names()``;
  ``REGISTRY.closest(name)`` → the nearest known name (for error messages).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bandstand.patterns.constructors import reify, sequence
from bandstand.patterns.controls import MISSING
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.steps import step_join

__all__ = ["BoundMethod", "Partial", "PatternFunction", "Registry"]

KINDS = ("transform", "constructor", "operator", "control", "value")


@dataclass(frozen=True, slots=True)
class PatternFunction:
    """One registered pattern function (see the module docstring for the fields)."""

    name: str
    kind: str
    func: Callable[..., Any] | None = None
    arity: int = 0
    patternify: bool = True
    function_args: frozenset[int] = frozenset()
    variadic_functions: bool = False
    method: bool = True
    preserve_steps: bool = False
    join: str = "inner"
    variants: Mapping[str, Callable[..., Pattern]] = field(default_factory=dict)
    value: Pattern | None = None
    aliases: tuple[str, ...] = ()
    doc: str = ""

    # ------------------------------------------------------------------ calling

    def apply(self, *args: Any) -> Pattern:
        """The patternified transform with all its arguments (the pattern last)."""
        assert self.func is not None
        func = self.func
        pats = [reify(a) for a in args]
        pat = pats[-1]
        if not self.patternify:
            result = func(*pats)
        elif self.arity == 1:
            result = func(pat)
        else:
            first = pats[:-1]
            if all(p.is_pure for p in first):
                result = func(*[p.pure_value for p in first], pat)
                locs = tuple(p._pure_loc for p in first if p._pure_loc is not None)
                if locs:
                    result = result.with_context(lambda ctx: ctx + locs)
            else:
                n = len(first)

                def curried(*collected: Any) -> Any:
                    if len(collected) == n:
                        return func(*collected, pat)
                    return lambda v: curried(*collected, v)

                acc = first[0].fmap(lambda v: curried(v))
                for p in first[1:]:
                    acc = acc.app_left(p)
                result = acc.inner_join() if self.join == "inner" else step_join(acc)
        if self.preserve_steps:
            result = result.set_steps(pat.steps)
        return result  # type: ignore[no-any-return]

    def __call__(self, *args: Any) -> Any:
        """The function form (curried: fewer arguments give a `Partial`)."""
        if self.kind == "value":
            raise TypeError(f"{self.name} is a pattern, not a function")
        if self.kind == "transform":
            if len(args) < self.arity:
                return Partial(self, args)
            return self.apply(*args[: self.arity]) if len(args) > self.arity else self.apply(*args)
        assert self.func is not None
        return self.func(*args)

    def call_method(self, pat: Pattern, *args: Any) -> Pattern:
        """The method form ``pat.name(*args)``."""
        if self.kind == "transform":
            if self.arity == 2 and len(args) != 1:
                args = (sequence(*args),)
            elif self.arity != len(args) + 1:
                raise TypeError(
                    f".{self.name}() expects {self.arity - 1} inputs but got {len(args)}"
                )
            return self.apply(*args, pat)
        if self.kind == "operator":
            return self.variants["in"](pat, *args)
        if self.kind == "control":
            assert self.func is not None
            return self.func(args[0] if args else MISSING, pat)  # type: ignore[no-any-return]
        if self.kind == "constructor" and self.method:
            assert self.func is not None
            return self.func(pat, *args)  # type: ignore[no-any-return]
        raise TypeError(f"{self.name} is not a method")


@dataclass(frozen=True, slots=True)
class Partial:
    """A transform waiting for its pattern: ``fast(2)`` in ``every(2, fast(2))``."""

    function: PatternFunction
    args: tuple[Any, ...]

    def __call__(self, *more: Any) -> Any:
        return self.function(*self.args, *more)


class BoundMethod:
    """``p.name`` — callable, and with variants as attributes (``p.add.out``)."""

    __slots__ = ("entry", "pat")

    def __init__(self, pat: Pattern, entry: PatternFunction) -> None:
        self.pat = pat
        self.entry = entry

    def __call__(self, *args: Any) -> Pattern:
        return self.entry.call_method(self.pat, *args)

    def __getattr__(self, variant: str) -> Callable[..., Pattern]:
        func = self.entry.variants.get(variant)
        if func is None:
            raise AttributeError(f".{self.entry.name} has no variant {variant!r}")
        pat = self.pat
        return lambda *args: func(pat, *args)


class Registry:
    """A table of `PatternFunction`s by name (aliases included)."""

    def __init__(self, entries: Iterable[PatternFunction]) -> None:
        self._table: dict[str, PatternFunction] = {}
        for entry in entries:
            for name in (entry.name, *entry.aliases):
                known = self._table.get(name)
                if known is not None and not (known.kind != "control" and entry.kind == "control"):
                    raise ValueError(f"pattern function {name!r} registered twice")
                if known is None:
                    # a transform of the same name wins over a control (e.g. `density`)
                    self._table[name] = entry

    def get(self, name: str) -> PatternFunction | None:
        return self._table.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __getitem__(self, name: str) -> PatternFunction:
        return self._table[name]

    def names(self) -> list[str]:
        return sorted(self._table)

    def items(self) -> list[tuple[str, PatternFunction]]:
        return sorted(self._table.items())

    def closest(self, name: str) -> str | None:
        """The known name nearest to `name` (for "did you mean" messages)."""
        lowered = {n.lower(): n for n in self._table}
        if name.lower() in lowered:
            return lowered[name.lower()]
        match = difflib.get_close_matches(name, list(self._table), n=1, cutoff=0.5)
        return match[0] if match else None

    def call(self, name: str, *args: Any) -> Any:
        entry = self._table[name]
        if entry.kind == "value":
            return entry.value
        return entry(*args)

    def call_method(self, pat: Pattern, name: str, *args: Any) -> Pattern:
        return self._table[name].call_method(pat, *args)
