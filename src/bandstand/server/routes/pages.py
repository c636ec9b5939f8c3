"""The pages: `/` (the jam page) and its static files. Access is checked by
`bandstand.server.security` before a request gets here."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles


def web_root() -> Path:
    """The folder of the browser UI (plain ES modules and CSS)."""
    return Path(str(resources.files("bandstand") / "web"))


def page_router() -> APIRouter:
    router = APIRouter(tags=["pages"])

    @router.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(web_root() / "index.html", media_type="text/html", headers={"cache-control": "no-store"})

    return router


def static_files() -> StaticFiles:
    return StaticFiles(directory=web_root())
