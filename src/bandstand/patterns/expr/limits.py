"""The documented limits of the expression language.

Agent text is untrusted, so every dimension that could make parsing or
evaluation slow or large is bounded, and going past a bound is a
`PatternParseError`/`PatternError` with the limit in its message. The
defaults are far above anything a musician writes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one piece of code."""

    max_source_length: int = 10_000  # characters of code
    max_tokens: int = 4_000  # tokens after skipping spaces and comments
    max_depth: int = 64  # nesting of calls, arrays, parentheses, arrows and chain links
    max_arguments: int = 256  # arguments of one call, items of one array or object
    max_string_length: int = 4_000  # characters in one string literal
    max_number: float = 1_000_000.0  # largest magnitude of a number, literal or computed
    max_calls: int = 2_000  # function and method applications while evaluating


DEFAULT_LIMITS = Limits()
