"""The app factory: one FastAPI app for the pages, the jam and the API.

    app = create_app(ServerConfig(port=8765), personas, routers=[studio_router])

Routers per area: the pages (`/` the jam, `/studio`, `/static`, the sound under `/audio`), the
jam (`/ws/jam`, `/api/v1/jam/…`), the protocol (`/api/v1/protocol…`), the log view's runs and
board (`/api/v1/runs…`, `/api/v1/board…`) and whatever API routers
the caller adds — each is mounted under `/api/v1` (`API_PREFIX`). Every
request and WebSocket passes `AccessControl` (Host, Origin, token, body
size) first. The app holds no music logic and no use-case logic: routes
translate between HTTP and the services (`bandstand.jam.live`, `producer`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from bandstand.protocol import ToolCatalog, protocol_registry
from bandstand.server import errors
from bandstand.server.config import ServerConfig
from bandstand.server.hub import JamHub
from bandstand.server.mounts import Mounted
from bandstand.server.routes import audio, exports, jam, logs, pages, projects, protocol, variations
from bandstand.server.routes import branches as branch_routes
from bandstand.server.routes import patterns as pattern_routes
from bandstand.server.routes import studio as studio_routes
from bandstand.server.routes import transport as transport_routes
from bandstand.server.security import AccessControl
from bandstand.server.state import ServerState
from bandstand.version import __version__

if TYPE_CHECKING:
    from bandstand.producer.app import BackendFactory, Persona, Studio

API_PREFIX = "/api/v1"


class _MountRoots:
    """`/mcp` answered by the app mounted there as `/mcp/`, without a redirect (clients are
    configured with the URL as the docs print it)."""

    def __init__(self, app: ASGIApp, paths: Sequence[str]) -> None:
        self.app = app
        self.paths = frozenset(paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in self.paths:
            scope = {**scope, "path": scope["path"] + "/", "raw_path": (scope["path"] + "/").encode()}
        await self.app(scope, receive, send)


def create_app(
    config: ServerConfig,
    personas: list[Persona],
    *,
    backend: BackendFactory | None = None,
    seed: int = 0,
    turn_timeout: float = 30.0,
    tools: ToolCatalog | None = None,
    studio: Studio | None = None,
    routers: Sequence[APIRouter] = (),
    runs_dir: str | os.PathLike[str] = "runs",
    board_url: str | None = None,
    mounts: Sequence[Mounted] = (),
    autopilot: bool = True,
    lifespans: Sequence[Callable[[ServerState], contextlib.AbstractAsyncContextManager[None]]] = (),
) -> FastAPI:
    """The server for `config`: the jam with `personas`, the protocol, the studio API over
    `studio` (a `Studio`, `App.studio`; None: no projects) and `routers`, all under /api/v1;
    the log view reads the runs under `runs_dir` and the board at `board_url`; the `mounts` are
    served each at its path (MCP at /mcp); each of `lifespans` runs while the server does, from
    when the jam hub exists (live out subscribes to the jam's emitter there).
    `tools` is the catalog of `/protocol/tools.json` (default: the studio's tool registry, `App.desk().tools()`)."""
    if tools is None:
        from bandstand.producer import App

        tools = App().desk().tools().schemas
    state = ServerState(config=config, registry=protocol_registry(), tools=tools, studio=studio,
                        runs_dir=str(runs_dir), board_url=board_url)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.hub = JamHub(personas, backend=backend, seed=seed, turn_timeout=turn_timeout,
                           queue_size=config.limits.ws_queue, autopilot=autopilot,
                           projects=getattr(studio, "out_dir", None))
        try:
            async with contextlib.AsyncExitStack() as stack:
                for mount in mounts:
                    if mount.lifespan is not None:
                        await stack.enter_async_context(mount.lifespan(state))
                for running in lifespans:
                    await stack.enter_async_context(running(state))
                yield
        finally:
            await state.hub.close()

    app = FastAPI(title="bandstand", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The bandstand server: the jam, the pages and the studio API. "
                              "Every request needs the server's token (see docs/api.md).")
    app.state.server = state
    app.include_router(pages.page_router())
    app.mount("/static", pages.static_files(), name="static")
    app.include_router(audio.assets_router)
    app.include_router(jam.socket_router)
    for router in (jam.router, protocol.router, audio.router, studio_routes.router, projects.router, exports.router,
                   variations.router,
                   branch_routes.router, logs.router, pages.links_router, transport_routes.router,
                   pattern_routes.router, *routers):
        app.include_router(router, prefix=API_PREFIX)
    for mount in mounts:
        app.mount(mount.path, mount.app)
    errors.install(app)
    if mounts:
        app.add_middleware(_MountRoots, paths=[m.path for m in mounts])
    app.add_middleware(AccessControl, config=config, tickets=state.tickets)
    return app
