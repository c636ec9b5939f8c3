"""The expression language: the only way agent text becomes sound.

A lexer, a recursive-descent parser producing a small syntax tree, and an
evaluator that applies only functions and methods the pattern registry
declares. It reads the JavaScript subset musicians write in Strudel's REPL
("…" and `…` are mini-notation, '…' is a plain string) and nothing else: no
`eval`, no attribute access outside the registry. A program may have several
statements (`const`, `$:` blocks, `setcpm(…)`): `run_program` returns its
`Program` (the pattern and the tempo), `evaluate` only the pattern.
"""

from bandstand.patterns.expr.evaluator import evaluate, run_program
from bandstand.patterns.expr.host import Program
from bandstand.patterns.expr.limits import DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse

__all__ = ["DEFAULT_LIMITS", "Limits", "Program", "evaluate", "parse", "run_program"]
