"""The pattern engine: a Strudel-compatible pattern language in Python.

Patterns are queries over exact rational time (cycles) answering haps; see
`bandstand.patterns.pattern`. Build them with mini-notation (`mini`), the
constructors below, registered transforms (also methods: `p.fast(2)`), or
from expression text with `evaluate` (the safe expression language); a whole
Strudel program (`setcpm`, `$:` blocks, `const`) with `run_program`, whose
`Program` carries the pattern and the tempo it sets.
"""

from __future__ import annotations

from typing import Any

from bandstand.patterns.budget import QueryBudget
from bandstand.patterns.cache import CompileCache
from bandstand.patterns.constructors import (
    fastcat,
    pure,
    reify,
    sequence,
    slowcat,
    stack,
    steady,
    stepcat,
)
from bandstand.patterns.hap import Hap
from bandstand.patterns.methods import attach

# The function, not the submodule of the same name (imported eagerly so that a
# later `import bandstand.patterns.mini` cannot shadow it on the package).
from bandstand.patterns.mini import mini
from bandstand.patterns.pattern import Pattern, gap, nothing, silence
from bandstand.patterns.time import TimeSpan, to_time

# The one registrar: the registered transforms become methods of `Pattern` (`p.fast(2)`).
# Any import of a `bandstand.patterns` module runs this package first, so every pattern has them.
attach()

__all__ = [
    "CompileCache",
    "Hap",
    "Pattern",
    "Program",
    "QueryBudget",
    "TimeSpan",
    "cat",
    "check_pattern",
    "check_pattern_async",
    "evaluate",
    "fastcat",
    "gap",
    "mini",
    "nothing",
    "pattern_to_song",
    "pure",
    "reify",
    "run_program",
    "seq",
    "sequence",
    "silence",
    "slowcat",
    "stack",
    "steady",
    "stepcat",
    "timecat",
    "to_time",
    "validate_async",
    "validate_pattern",
]

cat = slowcat
seq = sequence
timecat = stepcat

# The expression language, validation and score rendering live in their own
# modules (another engineer's); they are imported on first use.
_LAZY = {
    "evaluate": ("bandstand.patterns.expr", "evaluate"),
    "run_program": ("bandstand.patterns.expr", "run_program"),
    "Program": ("bandstand.patterns.expr", "Program"),
    "validate_pattern": ("bandstand.patterns.validate", "validate_pattern"),
    "validate_async": ("bandstand.patterns.validate", "validate_async"),
    "check_pattern": ("bandstand.patterns.validate", "check_pattern"),
    "check_pattern_async": ("bandstand.patterns.validate", "check_pattern_async"),
    "pattern_to_song": ("bandstand.patterns.to_score", "pattern_to_song"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'bandstand.patterns' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value
