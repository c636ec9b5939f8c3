"""The studio's requests in words: `POST /api/v1/stream` (the studio stream, as
server-sent events), `POST /api/v1/preview` (the plan, nothing run), `GET
/api/v1/streams` (the requests running now), and conversations
(`/api/v1/conversations`). The producer decides everything
(`App.of(studio)`); these routes translate HTTP and SSE.

The stream is read before it starts: a request that cannot run (not understood,
an unknown project) is a 4xx with one line, not a stream. Then every event is
one SSE message (`id: seq`, `data: {json}`), a comment (`: keep-alive`) goes out
when nothing was said for a while, and a client that disconnects cancels the
request's work (it stops at its next step; nothing is left running).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from pydantic import Field
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from bandstand.producer import App
from bandstand.producer.app import WordsRequest
from bandstand.protocol import WireModel
from bandstand.server.errors import ERROR_RESPONSES, STRICT
from bandstand.server.state import studio_service

if TYPE_CHECKING:
    from bandstand.producer.app import Prepared, Studio

router = APIRouter(tags=["studio"], responses=ERROR_RESPONSES)


class StreamRequest(WireModel):
    """A request in words (or a structured prompt), on a project, in a conversation."""

    model_config = STRICT

    prompt: str = Field(min_length=1, max_length=WordsRequest.MAX_LENGTH,
                        description="what to do: 'make the bass busier', 'what key is this in?', or a structured "
                                    "prompt starting with the line BANDSTAND PROMPT")
    project_id: str | None = Field(default=None, max_length=100, description="the project (none: a new one)")
    conversation_id: str | None = Field(default=None, max_length=100, description="the conversation it belongs to")


class NewConversation(WireModel):
    model_config = STRICT

    project_id: str | None = Field(default=None, max_length=100)


class EventStream(Response):
    """The studio stream of one prepared request, as server-sent events (see the module docstring)."""

    media_type = "text/event-stream"

    def __init__(self, studio: Studio, prepared: Prepared) -> None:
        super().__init__(media_type=self.media_type)
        self.studio = studio
        self.prepared = prepared

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        headers = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
                   (b"x-accel-buffering", b"no"), (b"x-bandstand-trace", self.prepared.trace_id.encode())]
        if self.prepared.project_id:
            headers.append((b"x-bandstand-project", self.prepared.project_id.encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})

        def sink(event: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, event)

        run = asyncio.ensure_future(self.studio.stream(self.prepared, sink))
        gone = asyncio.ensure_future(_disconnected(receive))
        left = False
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, gone}, timeout=self.studio.timeouts.idle_comment,
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                if gone in done:
                    left = True
                    break
                if getter in done:
                    event = getter.result()
                    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
                    await send({"type": "http.response.body", "body": f"id: {event['seq']}\ndata: {data}\n\n".encode(),
                                "more_body": True})
                    if event["type"] == "complete":
                        break
                else:
                    await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})
        except OSError:
            left = True
        finally:
            if left or not run.done():
                if left:
                    run.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await run
            gone.cancel()
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


@router.post("/stream", status_code=200,
             summary="Do what a request in words asks: the studio stream (server-sent events)",
             response_class=EventStream,
             responses={200: {"description": "state, then the mode's events, then complete (see "
                                             "/api/v1/protocol/events.json, stream 'studio')",
                              "content": {"text/event-stream": {"schema": {"type": "string"}}}}})
async def stream(body: StreamRequest, studio: Studio = Depends(studio_service)) -> EventStream:
    request = WordsRequest(body.project_id, body.prompt, body.conversation_id)
    prepared = await run_in_threadpool(App.of(studio).prepare, request)  # the one router, as CLI and MCP use
    return EventStream(studio, prepared)


@router.post("/preview", summary="What a request would do — its mode and plan — without doing it")
def preview(body: StreamRequest, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.preview(body.prompt, project_id=body.project_id, conversation_id=body.conversation_id)


@router.get("/streams", summary="The requests running now (trace id, prompt, project, mode)")
def streams(studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return {"streams": list(studio.running.values())}


@router.get("/conversations", summary="The conversations, newest first")
def conversations(studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return {"conversations": studio.conversations.list()}


@router.post("/conversations", status_code=201, summary="Start a conversation (optionally about a project)")
def new_conversation(body: NewConversation | None = None, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    project_id = body.project_id if body else None
    if project_id is not None:
        studio.library.path(project_id)
    return studio.conversations.create(project_id).to_json()


@router.get("/conversations/{conversation_id}", summary="A conversation's turns, oldest first")
def conversation(conversation_id: str = PathParam(max_length=100),
                 studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.conversations.get(conversation_id).to_json()
