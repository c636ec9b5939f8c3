"""A project's export with its progress, for the studio page: `POST /api/v1/projects/ID/export/stream`
renders the song at HEAD as a WAV, stems (a zip) or any other export format and tells how far it
got (SSE `progress`: done, total, percent, what is happening — "played 3 of 6 parts (Bass)"); the
client cancels by closing the stream (the render stops within a block of work and writes nothing).
The finished file is left in the project's `export/page/` folder and the last event (`ready`)
names where to download it: `GET /api/v1/projects/ID/export/file?format=wav`. A plain
`GET …/export?format=…` (projects.py) still answers with the file at once, for scripts.
The use case is `App.desk().export`; this module moves files and events only.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from anyio import to_thread
from fastapi import APIRouter, Depends, Query
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from sse_starlette.sse import EventSourceResponse

from bandstand.errors import NotFound
from bandstand.producer import App
from bandstand.producer.app import Cancelled, Control
from bandstand.protocol import WireModel
from bandstand.server.errors import ERROR_RESPONSES, STRICT
from bandstand.server.routes.projects import EXPORT_TYPES
from bandstand.server.state import studio_service

if TYPE_CHECKING:
    from bandstand.producer.app import Studio

__all__ = ["PAGE_FOLDER", "router"]

router = APIRouter(prefix="/projects", tags=["projects"], responses=ERROR_RESPONSES)

PAGE_FOLDER = "page"
"""The sub-folder of a project's export/ where the page's finished exports wait to be downloaded."""

ProjectId = PathParam(description="the project's id: its session folder's name", max_length=100)
Format = Literal["wav", "stems", "mid", "musicxml", "strudel", "png"]


class ExportJob(WireModel):
    """What to export (`App.desk().export_formats()`)."""

    model_config = STRICT

    format: Format


def _deliver(root: Path, project_id: str, fmt: str, control: Control) -> dict[str, Any]:
    """Export into a scratch folder of export/, then put the one file to download (the stems as a
    zip) in place under export/page/ by a rename: a cancel or a failure leaves nothing there."""
    desk = App().desk()
    page = desk.export_folder(root, PAGE_FOLDER)
    page.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".page-", dir=page))
    try:
        done = desk.export(root, fmt, scratch, control=control)  # the folder is the session's, read as it is
        _, name = EXPORT_TYPES[fmt]
        if fmt == "stems":
            made = scratch / name
            with zipfile.ZipFile(made, "w", zipfile.ZIP_DEFLATED) as bundle:
                for f in done.files:
                    control.check("packing the stems")
                    bundle.write(f, Path(f).name)
        else:
            made = next((Path(f) for f in done.files if Path(f).name == name), Path(done.files[0]))
        control.check("finishing the export")
        os.replace(made, page / name)
        return {"format": fmt, "filename": f"{project_id}-{name}", "bytes": (page / name).stat().st_size,
                "url": f"/api/v1/projects/{project_id}/export/file?format={fmt}"}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@router.post("/{project_id}/export/stream", summary="Export the project at HEAD with its progress (SSE); closing "
             "the stream cancels it", response_class=EventSourceResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "`progress` {done, total, percent, message} … then `ready` {url, "
                                             "filename, bytes}, `cancelled` or `failed` {detail}"}})
async def export_stream(body: ExportJob, project_id: str = ProjectId,
                        studio: Studio = Depends(studio_service)) -> EventSourceResponse:
    root = studio.library.path(project_id)  # an unknown project: 404 before the stream starts
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def told(done: float, total: float | None, message: str) -> None:  # from the export's threads
        percent = round(100 * done / total, 1) if total else None
        loop.call_soon_threadsafe(queue.put_nowait, {"done": done, "total": total, "percent": percent,
                                                     "message": message})

    control = Control(progress=told)
    work = asyncio.ensure_future(to_thread.run_sync(lambda: _deliver(root, project_id, body.format, control)))
    work.add_done_callback(lambda done: done.cancelled() or done.exception())  # a stream closed early: read anyway

    async def events() -> AsyncIterator[dict[str, str]]:
        try:
            while True:
                next_event = asyncio.ensure_future(queue.get())
                await asyncio.wait({work, next_event}, return_when=asyncio.FIRST_COMPLETED)
                if next_event.done():
                    yield {"event": "progress", "data": json.dumps(next_event.result())}
                    continue
                next_event.cancel()
                break
            while not queue.empty():
                yield {"event": "progress", "data": json.dumps(queue.get_nowait())}
            failure = work.exception()
            if failure is None:
                yield {"event": "ready", "data": json.dumps(work.result())}
            elif isinstance(failure, Cancelled):
                yield {"event": "cancelled", "data": json.dumps({"detail": str(failure)})}
            else:
                yield {"event": "failed", "data": json.dumps({"detail": str(failure)})}
        finally:
            control.cancel.set()  # the client went away (or it is over): a render still running stops

    return EventSourceResponse(events(), ping=8)


@router.get("/{project_id}/export/file", summary="The page's finished export of the project (see …/export/stream)",
            response_class=FileResponse,
            responses={200: {"content": {t: {} for t, _ in EXPORT_TYPES.values()}, "description": "the file"}})
def export_file(project_id: str = ProjectId, format: Format = Query(description="which export"),
                studio: Studio = Depends(studio_service)) -> FileResponse:
    media, name = EXPORT_TYPES[format]
    path = App.of(studio).desk().export_folder(project_id, PAGE_FOLDER) / name
    if not path.is_file():
        raise NotFound(f"no finished {format} export of {project_id}; make one with POST "
                       f"/api/v1/projects/{project_id}/export/stream")
    return FileResponse(path, media_type=media, filename=f"{project_id}-{name}")
