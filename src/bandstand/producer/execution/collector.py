"""The cyclic garbage collector held off while a use case builds and drops a whole song's worth
of objects (`paused`): reading a revision, regenerating parts, merging, diffing and writing a
variation, accepting, undoing.

Those objects are many (a 512-bar song is ~28,000 notes, and each pydantic note is two objects
the collector tracks) and nearly all acyclic, so reference counting frees them; but while they
live, every full collection walks all of them, and the number of full collections in one
operation grows with the song too: at 512 bars they took 15–30 % of an edit's CPU time and
over half of an accept's, at 128 bars next to nothing. Paused, the operation's cost follows the
song's length; cycles made meanwhile (tracebacks, a few closures) are collected once the last
pause ends. Pauses nest and overlap across threads: the collector runs again when none is left
(unless it was off before).
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["paused", "pausing"]

P = ParamSpec("P")
T = TypeVar("T")


class _Pauses:
    """How many pauses are running, and whether the collector was on when the first began."""

    __slots__ = ("depth", "lock", "resume")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.resume = False


_PAUSES = _Pauses()


@contextmanager
def paused() -> Iterator[None]:
    """The cyclic collector off for the block (see the module docstring)."""
    with _PAUSES.lock:
        if _PAUSES.depth == 0:
            _PAUSES.resume = gc.isenabled()
            gc.disable()
        _PAUSES.depth += 1
    try:
        yield
    finally:
        with _PAUSES.lock:
            _PAUSES.depth -= 1
            if _PAUSES.depth == 0 and _PAUSES.resume:
                gc.enable()


def pausing(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` run inside `paused()`."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with paused():
            return fn(*args, **kwargs)

    return run
