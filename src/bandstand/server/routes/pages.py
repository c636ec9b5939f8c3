"""The pages: `/` (the jam), `/studio` (songs, the arrangement, the piano roll,
the chat, variations, history, and the session log view) and their static
files. Access is checked by `bandstand.server.security` before a request gets
here; each page can be opened with the printed `?token=` once (`PAGES`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

PAGES: dict[str, str] = {"/": "index.html", "/studio": "studio.html"}
"""Page path → its HTML file under `web/`."""


def web_root() -> Path:
    """The folder of the browser UI (plain ES modules and CSS)."""
    return Path(str(resources.files("bandstand") / "web"))


def page_router() -> APIRouter:
    router = APIRouter(tags=["pages"])

    def page(name: str) -> Callable[[], Awaitable[FileResponse]]:
        async def serve() -> FileResponse:
            return FileResponse(web_root() / name, media_type="text/html", headers={"cache-control": "no-store"})
        return serve

    for path, name in PAGES.items():
        router.add_api_route(path, page(name), methods=["GET"], include_in_schema=False, response_class=FileResponse)
    return router


def static_files() -> StaticFiles:
    return StaticFiles(directory=web_root())
