"""Responders that team files in the tests name by path (``tests.runtime.team_responders:…``)."""

from __future__ import annotations

import asyncio
import os

from bandstand.agents import TurnRequest
from bandstand.jam.turn import JamReply
from bandstand.producer.teams.team_band import musician


async def stuck_when_told(request: TurnRequest) -> JamReply:
    """The built-in musician — but it never answers while $TEAM_TEST_STUCK names this member
    (the run is then stopped from outside, mid-round)."""
    if os.environ.get("TEAM_TEST_STUCK") == request.name:
        await asyncio.Event().wait()
    return musician(request)
