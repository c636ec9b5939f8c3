"""Stopping a render part-way: the caller passes `cancelled` (a function that says whether
it should stop) and the render asks it between small steps — every slice a synthesizer plays
(16,384 frames), every chunk a chain or the mixer runs, every chunk the master measures — so
it stops within a few milliseconds of work, on whichever of the synthesis threads asks first.
`RenderCancelled` is how the render stops; it is control flow, not a failure, and nothing of
the render is written."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Check", "RenderCancelled", "checker", "never"]

Check = Callable[[], None]


class RenderCancelled(Exception):
    """The render's caller asked it to stop (control flow: the render wrote nothing)."""


def never() -> None:
    """The check of a render nobody can cancel."""


def checker(cancelled: Callable[[], bool] | None) -> Check:
    """A check that raises `RenderCancelled` once `cancelled()` is true."""
    if cancelled is None:
        return never

    def check() -> None:
        if cancelled():
            raise RenderCancelled("the render was cancelled")

    return check
