"""The pattern functions' table, and pattern methods: ``p.fast(2)`` ≡ ``fast(2, p)``.

`REGISTRY` is the `Registry` of every entry of `bandstand.patterns.library` (the one place
pattern functions are looked up: the expression language, the mini-notation's operators, the
validation API, methods). Each transform is written once, as a plain function, in a module
below the `Pattern` class; this module sits above them all and `attach` makes the registered
ones methods by giving `Pattern.method_lookup` the table — the one registrar, called once by
the package `bandstand.patterns` when it is imported (so any `bandstand.patterns.*` import has
the methods), instead of each module patching the class as it loads (Strudel's prototype).
"""

from __future__ import annotations

from bandstand.patterns.library import ENTRIES
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.registry import BoundMethod, PatternFunction, Registry

__all__ = ["REGISTRY", "attach", "bound_method", "get_registry"]

REGISTRY = Registry(ENTRIES)


def get_registry() -> Registry:
    """The table of pattern functions (`REGISTRY`)."""
    return REGISTRY


def bound_method(pat: Pattern, name: str) -> BoundMethod | None:
    """``pat.name`` if `name` is a registered method, else None."""
    entry: PatternFunction | None = REGISTRY.get(name)
    if entry is None or not entry.method or entry.kind == "value":
        return None
    return BoundMethod(pat, entry)


def attach() -> None:
    """Make the registered functions methods of `Pattern` (idempotent)."""
    Pattern.method_lookup = bound_method
