"""Where a batch's songs run, from ``--on`` (and ``--board``): this machine's pool, a board, or Ray.

    --on local                 a pool of processes here (the default without --board)
    --on board --board URL     board tasks (the default with --board)
    --on ray                   the Ray cluster RAY_ADDRESS names, else a local one for the batch
    --on ray://HOST:PORT       a Ray cluster through Ray Client (needs ray[client] here)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from bandstand.errors import InvalidInput

if TYPE_CHECKING:
    from bandstand.protocol.jsonvalue import JSONObject

__all__ = ["Where", "parse_on", "parse_runtime_env"]


@dataclass(frozen=True, slots=True)
class Where:
    """The engine (`local`, `board` or `ray`) and its address (a board URL, a Ray address or None)."""

    kind: Literal["local", "board", "ray"]
    address: str | None = None


def parse_on(on: str | None, board: str | None) -> Where:
    """`--on` and `--board` as one `Where`; a mismatch is one line saying what goes with what."""
    text = (on or "").strip()
    if not text:
        return Where("board", board) if board else Where("local")
    if text == "local":
        if board:
            raise InvalidInput("--on local runs the songs here; drop --board, or use --on board")
        return Where("local")
    if text == "board":
        if not board:
            raise InvalidInput("--on board needs --board URL (postgresql://… or a SQLite path)")
        return Where("board", board)
    if text == "ray" or text.startswith("ray://"):
        if board:
            raise InvalidInput("--on ray runs the songs on Ray; drop --board (the board is another engine)")
        address = None if text == "ray" else text
        if address is not None and ":" not in address.removeprefix("ray://"):
            raise InvalidInput(f"--on {text}: write ray://HOST:PORT, e.g. --on ray://10.0.0.5:10001")
        return Where("ray", address)
    raise InvalidInput(f"--on {text!r}: use local, board (with --board URL), ray, or ray://HOST:PORT")


def parse_runtime_env(text: str | None) -> JSONObject | None:
    """``--runtime-env`` (a JSON object, Ray's runtime environment) as a dict."""
    if text is None:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--runtime-env: not JSON ({exc.msg} at column {exc.colno}); e.g. "
                           '\'{"py_modules": ["/path/to/src/bandstand"]}\'') from None
    if not isinstance(data, dict):
        raise InvalidInput('--runtime-env: a JSON object, e.g. \'{"py_modules": ["/path/to/src/bandstand"]}\'')
    return data
