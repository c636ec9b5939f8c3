"""The studio's transport over HTTP: `POST /api/v1/projects/{id}/transport` (play, stop,
set_playhead, loop), `GET …/transport` (the state) and `GET …/transport/stream` (SSE: the
state now, then each new one — what the studio page's player follows). The use case is
`App.live()`'s transport; these routes translate. A command from another process
(`bandstand transport`, MCP) is seen too: the stream watches the song's saved state. The
stream is left out of /openapi.json (docs/api.md describes it): on a real song it never ends,
so a client generated from the document, or a fuzzer, would wait on it forever.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from fastapi import APIRouter, Depends, Request

from bandstand.producer import App
from bandstand.producer.live.desk import TransportCommand
from bandstand.server.errors import ERROR_RESPONSES
from bandstand.server.routes.projects import ProjectId
from bandstand.server.state import ServerState, server_state, studio_service
from bandstand.server.streams import STREAM_ANSWERS, BoundedStream, frame

if TYPE_CHECKING:
    from bandstand.producer.app import Studio

router = APIRouter(prefix="/projects", tags=["transport"], responses=ERROR_RESPONSES)

POLL_SECONDS = 0.2
PING_SECONDS = 8


@router.post("/{project_id}/transport", summary="Play, stop, set the playhead or loop a section: every page open on "
             "the song follows (GET …/transport/stream)")
def command(body: TransportCommand, project_id: str = ProjectId,
            studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    song = App.of(studio).live().command(project_id, body)
    return {"projectId": song.folder.name, **song.state.model_dump()}


@router.get("/{project_id}/transport", summary="The song's transport: playing, playhead, loop")
def state(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    song = App.of(studio).live().transport(project_id)
    return {"projectId": song.folder.name, **song.state.model_dump()}


@router.get("/{project_id}/transport/stream", summary="SSE `transport` events: the state now, then each change",
            responses=STREAM_ANSWERS, include_in_schema=False)  # endless on a real song: nothing to fuzz
async def stream(request: Request, project_id: str = ProjectId, studio: Studio = Depends(studio_service),
                 server: ServerState = Depends(server_state)) -> BoundedStream:
    song = App.of(studio).live().transport(project_id)
    slots = server.stream_slots

    async def events() -> AsyncIterator[bytes]:
        sent = -1
        while not await request.is_disconnected():
            now = (await to_thread.run_sync(song.again, limiter=slots.limiter)).state
            if now.seq != sent:
                sent = now.seq
                yield frame("transport", {"projectId": song.folder.name, **now.model_dump()})
            await asyncio.sleep(POLL_SECONDS)

    return BoundedStream(events(), slots=slots, client=request.client.host if request.client else "?",
                         ping=PING_SECONDS)
