"""Variations by id: `/api/v1/variations/{id}` — what a variation proposes, with its
phrases so far as the `meta → phrase* → done` events of its stream (a client
that lost the studio stream reads them here), commit all of it or some phrases
(a new revision), or discard it (twice is fine)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from pydantic import Field

from bandstand.protocol import WireModel
from bandstand.server.errors import ERROR_RESPONSES, STRICT
from bandstand.server.state import studio_service

if TYPE_CHECKING:
    from bandstand.producer.app import Studio

router = APIRouter(prefix="/variations", tags=["variations"], responses=ERROR_RESPONSES)

VariationId = PathParam(description="the variation's id (or a unique prefix of at least 4 characters)",
                        max_length=100)


class Commit(WireModel):
    """Which phrases to keep (all of them when left out)."""

    model_config = STRICT

    accepted_phrase_ids: list[str] | None = Field(default=None, max_length=10_000)


@router.get("/{variation_id}", summary="A variation: meta, phrases and diff, and its stream's events")
def get_variation(variation_id: str = VariationId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.variation(variation_id)


@router.post("/{variation_id}/commit", summary="Accept the variation (or some phrases): a new revision")
def commit(body: Commit | None = None, variation_id: str = VariationId,
           studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.commit(variation_id, body.accepted_phrase_ids if body else None)


@router.post("/{variation_id}/discard", summary="Discard the variation (idempotent; nothing changes)")
def discard(variation_id: str = VariationId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.discard(variation_id)
