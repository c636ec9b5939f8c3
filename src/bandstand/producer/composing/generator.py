"""The compose graph as the studio's part generator (`compose.part_generator`), loaded when a
part is first generated: a project opened to list its history, undo, check out or export does
not import the compose graph and the lexicon (about 0.4 s of every such command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bandstand.craft.style import StyleOverride
    from bandstand.studio import Project
    from bandstand.studio.tools import GeneratedPart, PartRequest

__all__ = ["part_generator"]


def part_generator(project: Project, request: PartRequest, *, overrides: Sequence[StyleOverride] = ()) -> GeneratedPart:
    """`bandstand.producer.composing.compose.part_generator`, imported on the first call."""
    from bandstand.producer.composing.compose import part_generator as generate

    return generate(project, request, overrides=overrides)
