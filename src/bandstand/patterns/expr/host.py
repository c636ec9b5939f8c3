"""What Strudel's REPL adds around patterns: tempo, blocks, samples, visuals, Math.

A Strudel program is more than one pattern: `setcpm(…)` sets the tempo,
`$: …` blocks play at once (a stack, in the order they were written),
`samples(…)` registers sounds, `.pianoroll()` draws. `Host` is the state one
program builds while it runs (its tempo, its blocks, its notes); the tables say
what each of these calls does, as `@strudel/core`'s repl and
`@strudel/draw`/`@strudel/webaudio` 1.2.6 do it, minus the sound and the
pictures. Nothing here reaches the network: a `samples()` URL is only named in
a note.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from bandstand.patterns.expr import ast
from bandstand.patterns.transforms import DEFAULT_CPS
from bandstand.patterns.voicing import DICTIONARIES

if TYPE_CHECKING:
    from bandstand.patterns.pattern import Pattern


# Methods that draw (Strudel's @strudel/draw and @strudel/webaudio): the value is what
# they do to the haps. "same": nothing (pianoroll, punchcard, spiral, pitchwheel draw
# from the haps and change no value); "analyze": they set the `analyze` control to the
# scope's id (1 unless the options name another), as scope/tscope/fscope/spectrum do.
# Methods whose function argument tests or maps haps and values rather than patterns
# (by their canonical names): the evaluator builds value functions for them.
VALUE_FUNCTIONS: Final = frozenset({"filterHaps", "filter", "filterValues", "filterWhen", "withValue", "arpWith"})

VISUAL_METHODS: Final[dict[str, str]] = {
    "pianoroll": "same",
    "punchcard": "same",
    "wordfall": "same",
    "spiral": "same",
    "pitchwheel": "same",
    "log": "same",  # log and logValues print to the REPL's console
    "logValues": "same",
    "_pianoroll": "same",
    "_punchcard": "same",
    "_spiral": "same",
    "_pitchwheel": "same",
    "scope": "analyze",
    "tscope": "analyze",
    "fscope": "analyze",
    "spectrum": "analyze",
}

# Methods of Strudel that are refused on purpose, with the reason the error gives.
REFUSED_METHODS: Final[dict[str, str]] = {
    "timeline": "it keeps state between queries (where each timeline began), so what it plays depends on when it is asked",
    "voicings": (
        "Strudel's older .voicings() remembers the last chord between queries, so what it "
        "plays depends on when it is asked; write .voicing() (with .dict('lefthand') for that "
        "dictionary)"
    ),
    "_scope": "the editor's inline scope is not drawn here; .scope() is accepted",
    "_spectrum": "the editor's inline spectrum is not drawn here; .spectrum() is accepted",
    "osc": "bandstand plays its own sound and sends nothing over OSC",
    "lfo": (
        "Strudel 1.2.6's modulators keep state across events (the first event decides what "
        "every later one modulates), so what they play depends on query order"
    ),
    "env": "Strudel 1.2.6's modulators keep state across events, so what they play depends on query order",
    "bmod": "Strudel 1.2.6's modulators keep state across events, so what they play depends on query order",
    "midi": "bandstand plays its own sound and sends nothing to MIDI devices from patterns",
}

# Functions of the program (the REPL's, not the pattern library's), only as statements.
PROGRAM_FUNCTIONS: Final = frozenset(
    {
        "setcpm", "setCpm", "setcps", "setCps", "samples", "all", "each",
        "addVoicings", "registerVoicings", "setVoicingRange", "useRNG",
    }
)  # fmt: skip


def _js_round(x: float) -> float:
    return math.floor(x + 0.5)


def _js_sign(x: float) -> float:
    return 0.0 if x == 0 else math.copysign(1.0, x)


# The pure functions and constants of JavaScript's Math (random is not pure: use rand).
MATH_FUNCTIONS: Final[dict[str, Callable[..., float]]] = {
    "abs": abs,
    "floor": math.floor,
    "ceil": math.ceil,
    "round": _js_round,
    "trunc": math.trunc,
    "sign": _js_sign,
    "sqrt": math.sqrt,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "exp": math.exp,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "pow": lambda a, b: a**b,
    "hypot": math.hypot,
    "min": lambda *xs: min(xs) if xs else math.inf,
    "max": lambda *xs: max(xs) if xs else -math.inf,
}
MATH_CONSTANTS: Final[dict[str, float]] = {
    "PI": math.pi,
    "E": math.e,
    "LN2": math.log(2),
    "LN10": math.log(10),
    "LOG2E": 1 / math.log(2),
    "LOG10E": 1 / math.log(10),
    "SQRT2": math.sqrt(2),
    "SQRT1_2": math.sqrt(0.5),
}


@dataclass(slots=True)
class Host:
    """The state one program builds while it runs (owned by one evaluation)."""

    cps: Fraction | None = None  # set by setcps/setcpm; None: the player's own tempo
    cps_float: float = DEFAULT_CPS  # the same as JavaScript computes it, for `.cpm(n)`
    blocks: dict[str, Any] = field(default_factory=dict)  # `label: …` patterns, in order
    anonymous: int = 0  # `$:` blocks are named `$0`, `$1`, …
    transforms: list[Callable[[Any], Any]] = field(default_factory=list)  # all(f)
    each: Callable[[Any], Any] | None = None  # each(f)
    notes: list[str] = field(default_factory=list)
    # Strudel's voicing registry as this program leaves it (addVoicings adds to it).
    voicings: dict[str, dict[str, tuple[str, ...]]] = field(
        default_factory=lambda: dict(DICTIONARIES)
    )

    def set_cps(self, cps: float, exact: Fraction) -> None:
        self.cps_float = cps
        self.cps = exact

    def block(self, label: str, pattern: Any) -> None:
        """`label: pattern` as Strudel's `pattern.p(label)`: `_x`/`x_` mute it, a `$` in
        the label makes it anonymous, the same label again replaces the block."""
        if label.startswith("_") or label.endswith("_"):
            return
        if "$" in label:
            label = f"{label}{self.anonymous}"
            self.anonymous += 1
        self.blocks[label] = pattern

    def playing(self) -> list[Any]:
        """The blocks that play: the soloed ones (`S…` labels) when any, else all."""
        solo = [p for key, p in self.blocks.items() if len(key) > 1 and key.startswith("S")]
        chosen = solo or list(self.blocks.values())
        if self.each is not None:
            chosen = [self.each(p) for p in chosen]
        return chosen

    def note_samples(self, args: tuple[ast.Node, ...]) -> None:
        """Record a samples() registration from its source; nothing is evaluated or fetched."""
        first = args[0] if args else None
        if isinstance(first, ast.Str):
            what = f"'{first.value}'"
        elif isinstance(first, ast.Object):
            what = "a sample map of " + ", ".join(key for key, _ in first.entries[:6])
        else:
            what = "a sample map"
        self.notes.append(
            f"samples({what}) is not loaded: bandstand plays its own sounds offline and never fetches samples"
        )


@dataclass(frozen=True, slots=True)
class Program:
    """What a Strudel program makes: the pattern that plays, the tempo it set (cycles
    per second, None when it set none) and notes on what was accepted but not honoured."""

    pattern: Pattern
    cps: Fraction | None = None
    notes: tuple[str, ...] = ()

    @property
    def cpm(self) -> Fraction | None:
        """The tempo in cycles per minute (Strudel's setcpm unit)."""
        return None if self.cps is None else self.cps * 60
