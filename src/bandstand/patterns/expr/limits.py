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
    max_count: int = 1_024  # caps every count argument; see COUNT_ARGUMENTS for each function's own


# Functions whose listed arguments (0-based, before the pattern) are counts or step numbers
# that the engine turns into that many patterns or haps when building or querying, with the
# largest count each accepts. Functions that nest their function argument once per count
# (echoWith, plyWith) or rearrange every slice (shuffle) cost the square of it, so their
# bounds are lower. The evaluator checks literal numbers and the numbers inside "…" strings.
_COUNT_LIMITS: tuple[tuple[tuple[str, ...], tuple[int, ...], int], ...] = (
    (
        (
            "echo", "stut", "echoWith", "echowith", "stutWith", "stutwith", "plyWith", "plywith",
            "plyForEach", "plyforeach",
        ),
        (0,),
        32,
    ),
    (("shuffle", "scramble", "scram", "bite"), (0,), 64),
    (("iter", "iterBack", "iterback", "chunk", "chunkBack", "chunkback"), (0,), 256),
    (("fastChunk", "fastchunk", "slowChunk", "slowchunk"), (0,), 256),
    (("ply", "chop", "striate", "segment", "seg", "run"), (0,), 1024),
    (("euclid", "euclidRot", "euclidrot", "euclidLegato", "euclidLegatoRot"), (0, 1, 2), 1024),
    (("euclidish", "eish"), (0, 1), 1024),
)
COUNT_ARGUMENTS: dict[str, tuple[tuple[int, ...], int]] = {
    name: (indices, limit) for names, indices, limit in _COUNT_LIMITS for name in names
}


DEFAULT_LIMITS = Limits()
