"""Strudel code for the pages' scratch tab: `POST /api/v1/patterns/play` runs the code on a
fresh Strudel desk (`App.live().scratch`) in the key and tempo asked (checked as
`execute_pattern` checks it) and answers what it plays and `cycles` of it as a song the page's
player loops. A mistake is a 422 of one line naming the place; nothing is kept between calls."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from bandstand.producer import App

router = APIRouter(tags=["patterns"])


class PlayBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=20_000, description="Strudel code: a pattern or a program.")
    cycles: int = Field(4, ge=1, le=64, description="How many cycles the song holds (the page loops it).")
    key: str | None = Field(None, max_length=40, description='The key to check notes against, e.g. "D dorian".')
    tempo: float | None = Field(None, description="Beats per minute when the code sets no tempo (30–300).")


@router.post("/patterns/play")
def play_pattern(body: PlayBody) -> dict[str, Any]:
    """Run Strudel code as strudel.cc does and answer what it plays and `cycles` of it as a song."""
    scratch = App().live().scratch(body.code, cycles=body.cycles, key=body.key, tempo=body.tempo)
    return {"played": scratch.played.model_dump(), "song": scratch.song}
