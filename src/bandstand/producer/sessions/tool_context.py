"""The studio tools' context as the producer runs them: the project's id issuer, the part
generator when there is one, and the craft's bender (how a lead or a bass is bent: `craft.bends`),
which the studio — a layer on the score alone — does not know by itself."""

from __future__ import annotations

from typing import Any

from bandstand.studio.tools.registry import Bender, ToolContext

__all__ = ["BENDER", "tool_context"]


def _bends(notes: list[tuple[float, float, int]], role: str, style: str, end: float) -> list[tuple[float, int]]:
    from bandstand.craft.bends import idiomatic_bends

    return idiomatic_bends(notes, role, style, end=end)


def _bender() -> Bender:
    from bandstand.craft.bends import BEND_ROLES

    return Bender(tuple(BEND_ROLES), _bends)


BENDER: Bender = _bender()


def tool_context(ids: Any, generator: Any = None) -> ToolContext:
    """A studio tool context with `ids`, the part `generator` (if any) and the craft's bender."""
    return ToolContext(ids=ids, generator=generator, bender=BENDER)
