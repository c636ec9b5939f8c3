"""Projects: `/api/v1/projects` — list them, compose a new one from a prompt (at once, or
with the compose graph's progress over SSE), read one at any revision, apply tool calls
(a person's direct edits), undo, redo, its history and its variations, and export it.
A project is a session folder in the server's output folder (`bandstand serve
--out DIR`); its id is the folder's name. A GET only reads (a page on another
port can make a browser send one blindly, cookie and all): a composed song is
imported as a project by `POST …/open`, never by a GET. The routes translate;
the use cases are `App`'s and its studio's (`App.of(studio)`, its projects `App.library`).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from anyio import to_thread
from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from pydantic import Field
from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask

from bandstand.producer import App
from bandstand.protocol import COMPOSE, Emitter, WireModel
from bandstand.server.errors import ERROR_RESPONSES, STRICT
from bandstand.server.state import studio_service

if TYPE_CHECKING:
    from bandstand.producer.app import Studio

router = APIRouter(prefix="/projects", tags=["projects"], responses=ERROR_RESPONSES)

ProjectId = PathParam(description="the project's id: its session folder's name (session-20260101-abc123)",
                      max_length=100)
EXPORT_TYPES: dict[str, tuple[str, str]] = {
    "mid": ("audio/midi", "full-arrangement.mid"), "wav": ("audio/wav", "full-arrangement.wav"),
    "stems": ("application/zip", "stems.zip"), "png": ("image/png", "pianoroll.png"),
    "musicxml": ("application/vnd.recordare.musicxml+xml", "lead-sheet.musicxml"),
    "strudel": ("text/javascript", "full-arrangement.strudel.js"),
}
"""Export format → what the answer is (media type, file name)."""


class NewProject(WireModel):
    """A song to compose: the prompt, and optionally the seed, its length and its parts."""

    model_config = STRICT

    prompt: str = Field(min_length=1, max_length=2000)
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    bars: int | None = Field(default=None, ge=4, le=512)
    parts: list[str] | None = Field(default=None, max_length=12)
    takes: int | None = Field(default=None, ge=1, le=8, description="takes of each part; the best is kept")
    quality: str | None = Field(default=None, max_length=20,
                                description="a preset of takes instead of `takes`: fast, balanced or best")


class Undo(WireModel):
    model_config = STRICT

    steps: int = Field(default=1, ge=1, le=1000)


@router.get("", summary="Every project in the server's output folder, newest change first")
def list_projects(studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return {"projects": [s.wire() for s in App.of(studio).sessions()]}


@router.post("", status_code=201, summary="Compose a new project from a prompt (its revision 1)")
def create_project(body: NewProject, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.compose_project(body.prompt, seed=body.seed, bars=body.bars, parts=body.parts, takes=body.takes,
                                  quality=body.quality)


@router.post("/import", status_code=201, summary="Import a MIDI file (the request body) as a new project",
             openapi_extra={"requestBody": {"required": True, "content": {"application/octet-stream": {
                 "schema": {"type": "string", "format": "binary"}}}}})
async def import_project(request: Request,
                         name: str = Query(default="", max_length=200, description="the song's title [the file's]"),
                         filename: str = Query(default="upload.mid", max_length=200,
                                               description="the file's name, for messages and the default title"),
                         studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    data = await request.body()  # within the server's body limit (413 past it)
    return await to_thread.run_sync(lambda: studio.import_midi(data, filename=filename, name=name))


@router.post("/stream", summary="Compose a new project from a prompt, with the compose graph's progress (SSE)",
             response_class=EventSourceResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "the compose stream's events (pipeline_started … pipeline_finished); "
                                             "the project is ready when the stream ends"}})
async def create_project_stream(body: NewProject, request: Request,
                                studio: Studio = Depends(studio_service)) -> EventSourceResponse:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    emitter = Emitter(COMPOSE)

    def send(event: dict[str, Any]) -> None:  # from the compose worker's threads
        loop.call_soon_threadsafe(queue.put_nowait, event)

    emitter.subscribe(send)
    work = asyncio.ensure_future(to_thread.run_sync(lambda: studio.compose_project(
        body.prompt, seed=body.seed, bars=body.bars, parts=body.parts, takes=body.takes, quality=body.quality,
        on_event=emitter.emit)))
    first = asyncio.ensure_future(queue.get())
    await asyncio.wait({work, first}, return_when=asyncio.FIRST_COMPLETED)
    if not first.done():  # refused before anything started: the one-line error, as POST /projects
        first.cancel()
        work.result()

    async def events() -> AsyncIterator[dict[str, str]]:
        yield {"event": "compose", "data": json.dumps(first.result())}
        while True:
            next_event = asyncio.ensure_future(queue.get())
            await asyncio.wait({work, next_event}, return_when=asyncio.FIRST_COMPLETED)
            if next_event.done():
                yield {"event": "compose", "data": json.dumps(next_event.result())}
                continue
            next_event.cancel()
            break
        if work.exception() is not None:
            emitter.close(str(work.exception()))  # the stream still ends with pipeline_finished
        while not queue.empty():
            yield {"event": "compose", "data": json.dumps(queue.get_nowait())}

    return EventSourceResponse(events(), ping=8)


@router.get("/{project_id}", summary="The project at HEAD, or at ?revision=N (tracks, regions, notes, mix)")
def get_project(project_id: str = ProjectId, revision: int | None = Query(default=None, ge=1, le=1_000_000),
                notes: bool = Query(default=True, description="false: note counts instead of the notes"),
                view: bool = Query(default=False, description="true: also the chord symbols, instruments and "
                                                              "drum names an arrangement view shows"),
                studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.project(project_id, revision, notes=notes, view=view)


class ToolCalls(WireModel):
    """Tool calls to apply at HEAD, all or nothing, as one revision (`/protocol/tools.json` lists the tools)."""

    model_config = STRICT

    calls: list[dict[str, Any]] = Field(min_length=1, max_length=100,
                                        description='[{"name": "update_notes", "args": {…}}, …]')
    request: str = Field(default="", max_length=500, description="what the person did, in words (the history shows it)")


@router.post("/{project_id}/open", summary="Open a song for changes: a composed session becomes revision 1 (the "
             "first time), files a crash left behind are repaired. GETs never do this: they only read")
def open_project(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.open(project_id)


@router.post("/{project_id}/tools", summary="Apply tool calls at HEAD as one revision (a person's direct edits)")
def apply_tools(body: ToolCalls, project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.apply_tools(project_id, body.calls, request=body.request)


@router.get("/{project_id}/history", summary="Every change, oldest first, marked undone when undone")
def history(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.history(project_id)


@router.get("/{project_id}/variations", summary="The project's variations, oldest first (without phrases' notes)")
def variations(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.variations(project_id)


@router.post("/{project_id}/undo", summary="Move HEAD back (steps: 1 by default); nothing is deleted")
def undo(body: Undo | None = None, project_id: str = ProjectId,
         studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.undo(project_id, body.steps if body else 1)


@router.post("/{project_id}/redo", summary="Bring back the change undone last")
def redo(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return studio.library.redo(project_id)


@router.get("/{project_id}/export",
            summary="The project at HEAD as MIDI, WAV, stems (zip), piano roll, MusicXML or a Strudel program",
            response_class=FileResponse,
            responses={200: {"content": {t: {} for t, _ in EXPORT_TYPES.values()},
                             "description": "the file"}})
def export(project_id: str = ProjectId,
           format: Literal["mid", "wav", "stems", "png", "musicxml", "strudel"] = Query(description="what to export"),
           studio: Studio = Depends(studio_service)) -> FileResponse:
    folder = Path(tempfile.mkdtemp(prefix="bandstand-export-"))
    try:
        done = studio.library.export(project_id, format, folder)
        media, name = EXPORT_TYPES[format]
        if format == "stems":
            path = folder / name
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
                for f in done.files:
                    bundle.write(f, Path(f).name)
        else:
            path = next((Path(f) for f in done.files if Path(f).name == name), Path(done.files[0]))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return FileResponse(path, media_type=media, filename=f"{project_id}-{name}",
                        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True))
