"""Reading one client frame: JSON text within a size and a nesting budget.

`json.loads` recurses once per level of nesting, so `[[[[…]]]]` a few
thousand levels deep raises `RecursionError` — which used to drop the socket
without a word. The depth is measured first, in one pass over the text with
its strings left out, and a frame over either budget is the client's mistake
(`InvalidInput`, answered on the socket), like any other frame that is not JSON.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from bandstand.errors import InvalidInput

__all__ = ["MAX_DEPTH", "json_depth", "read_frame"]

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a jam message may have (real ones have 3)."""

# a string, or an unterminated one to the end of the text: one pass, no backtracking (a closing
# quote required would make every quote of `"\"\"\"…` start a scan to the end: quadratic)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_STEP = str.maketrans({"[": "\x01", "{": "\x01", "]": "\x02", "}": "\x02"})
_NOT_BRACKETS = re.compile(r"[^\x01\x02]+")


def json_depth(text: str) -> int:
    """How deeply arrays and objects nest in `text` (0 for a scalar), counting only brackets
    outside strings; text that is not JSON gets some number, and `json.loads` then refuses it."""
    steps = _NOT_BRACKETS.sub("", _STRING.sub('""', text).translate(_STEP))
    return max(accumulate(1 if c == "\x01" else -1 for c in steps), default=0)


def read_frame(text: str, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of one frame, or `InvalidInput` saying which budget it broke."""
    if len(text) > max_bytes:
        raise InvalidInput(f"a jam message may have at most {max_bytes} bytes; this one has {len(text)}")
    if json_depth(text) > max_depth:
        raise InvalidInput(f"a jam message may nest arrays and objects at most {max_depth} deep; this one was refused")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidInput("a jam message must be JSON text, e.g. {\"type\": \"stop_jam\"}") from None
