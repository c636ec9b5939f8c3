"""The parts a variation adds: the proposal's tracks its base does not have, as clients read
a project's tracks (JSON, notes included), so an A/B can give a new part its lane and its
sound before it is accepted (a removed part is in the base, and its phrases remove its notes)."""

from __future__ import annotations

from typing import Any

from bandstand.studio.model import Project

__all__ = ["added_tracks"]


def added_tracks(base: Project, proposal: Project | None) -> list[dict[str, Any]]:
    """The proposal's tracks that `base` lacks, in the proposal's order (none without a proposal)."""
    if proposal is None:
        return []
    have = {t.id for t in base.tracks}
    return [t.model_dump(mode="json") for t in proposal.tracks if t.id not in have]
