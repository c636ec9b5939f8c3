"""The pages: `/` (the jam), `/studio` (songs, the arrangement, the piano roll,
the chat, variations, history, and the session log view) and their static
files. Access is checked by `bandstand.server.security` before a request gets
here; each page can be opened with the printed `?token=` once (`PAGES`), and
`POST /api/v1/page-links` makes another such address (for another browser)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request

from bandstand.server.state import server_state

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


PAGE_PATHS: dict[str, str] = {"jam": "", "studio": "studio"}
"""A page's name → its path after the server's URL."""

links_router = APIRouter(tags=["pages"])


@links_router.post("/page-links", status_code=201,
                   summary="A new address that opens a page once (for another browser): its token is good for one "
                           "swap for the page's cookie")
def page_link(request: Request,
              page: Literal["jam", "studio"] = Query("jam", description="which page the address opens")) -> dict[str, str]:
    state = server_state(request)
    return {"url": f"{state.config.url}{PAGE_PATHS[page]}?token={state.page_tickets.mint()}"}


def static_files() -> StaticFiles:
    return StaticFiles(directory=web_root())
