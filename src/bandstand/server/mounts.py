"""Other ASGI apps served under the server's access checks (the MCP server at /mcp), and a
mount built on its first request.

`Mounted(path, app, lifespan)` is an app served at `path`; a mounted app's own lifespan never
runs, so the server runs `lifespan(state)` once the jam hub exists.

`lazy(path, build)` is a `Mounted` whose app is built by `build()` (which returns the real
`Mounted`) when the first request reaches `path`: the MCP SDK and the tools built on it cost
about 2 s of imports, which a server that nobody asks over MCP should not pay at start-up (nor
every test that starts one). The build runs in a worker thread, so the event loop keeps
answering meanwhile; concurrent first requests wait for the one build. The built app's lifespan
runs in a task of the server's lifespan (started on first use, ended and waited for when the
server stops), so it is entered and left in one task as anyio requires.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from bandstand.server.state import ServerState

__all__ = ["Mounted", "lazy"]


@dataclass(frozen=True, slots=True)
class Mounted:
    """Another ASGI app served at `path` (and under it) behind the same access checks — the MCP
    server at /mcp. A mounted app's own lifespan never runs, so the server's runs `lifespan(state)`
    once the jam hub exists."""

    path: str
    app: ASGIApp
    lifespan: Callable[[ServerState], contextlib.AbstractAsyncContextManager[None]] | None = None


class _Lazy:
    """The ASGI app of `lazy`: builds the real mount on the first request, then passes every
    request to it."""

    def __init__(self, build: Callable[[], Mounted]) -> None:
        self._build = build
        self._built: Mounted | None = None
        self._lock = anyio.Lock()
        self._state: ServerState | None = None
        self._tasks: TaskGroup | None = None
        self._stop: anyio.Event | None = None

    @contextlib.asynccontextmanager
    async def lifespan(self, state: ServerState) -> AsyncIterator[None]:
        self._state, self._stop = state, anyio.Event()
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                self._stop.set()  # the built app's lifespan, if it was started, ends (and is waited for) here

    async def _ready(self) -> Mounted:
        async with self._lock:
            if self._built is None:
                built = await anyio.to_thread.run_sync(self._build)
                if built.lifespan is not None:
                    if self._tasks is None or self._state is None:
                        raise RuntimeError(f"{built.path} was asked for before the server started")
                    await self._tasks.start(self._run, built)
                self._built = built
            return self._built

    async def _run(self, built: Mounted, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        assert built.lifespan is not None and self._state is not None and self._stop is not None
        async with built.lifespan(self._state):
            task_status.started()
            await self._stop.wait()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        built = self._built or await self._ready()
        await built.app(scope, receive, send)


def lazy(path: str, build: Callable[[], Mounted]) -> Mounted:
    """A mount at `path` whose app `build()` makes on the first request to it (see the module)."""
    app = _Lazy(build)
    return Mounted(path, app, app.lifespan)
