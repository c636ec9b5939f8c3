"""Build the expression language's errors with a position people can read.

Every error names a 1-based column (and the line when the code has several);
the error's `text` is the offending line and its `position` the offset in
that line, so `caret()` draws the caret under the right character.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from bandstand.errors import PatternError, PatternParseError, UnknownFunctionError


def locate(source: str, pos: int) -> tuple[int, int, str]:
    """(1-based line, 0-based column, the line's text) of offset `pos` in `source`."""
    pos = max(0, min(pos, len(source)))
    line_start = source.rfind("\n", 0, pos) + 1
    line_end = source.find("\n", pos)
    if line_end < 0:
        line_end = len(source)
    line_no = source.count("\n", 0, pos) + 1
    return line_no, pos - line_start, source[line_start:line_end]


def where(source: str, pos: int) -> str:
    """'column 7' or 'line 2, column 7'."""
    line_no, col, _ = locate(source, pos)
    many = "\n" in source
    return f"line {line_no}, column {col + 1}" if many else f"column {col + 1}"


def parse_error(source: str, pos: int, message: str) -> PatternParseError:
    """A syntax error at offset `pos`."""
    line_no, col, text = locate(source, pos)
    return PatternParseError(
        f"{message} at {where(source, pos)}", text=text, position=col, line=line_no, offset=pos
    )


def eval_error(source: str, pos: int, message: str) -> PatternError:
    """A well-formed expression that cannot be evaluated (wrong argument kinds, …)."""
    line_no, col, text = locate(source, pos)
    return PatternError(
        f"{message} at {where(source, pos)}", text=text, position=col, line=line_no, offset=pos
    )


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to `name`, if any is reasonably close."""
    candidates = list(known)
    lowered = {c.lower(): c for c in candidates}
    if name.lower() in lowered:
        return lowered[name.lower()]
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_error(
    source: str, pos: int, name: str, kind: str, known: Iterable[str]
) -> UnknownFunctionError:
    """An unknown function, method or name, with the closest known one."""
    suggestion = closest(name, known)
    hint = f"; did you mean '{suggestion}'?" if suggestion else ""
    message = f"unknown {kind} '{name}' at {where(source, pos)}{hint}"
    line_no, col, text = locate(source, pos)
    return UnknownFunctionError(
        message, name=name, suggestion=suggestion, text=text, position=col, line=line_no, offset=pos
    )
