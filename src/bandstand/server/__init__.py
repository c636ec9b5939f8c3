"""The bandstand server: one FastAPI app for the pages, the jam and the API.

- `app` — `create_app(config, personas, routers=…, mounts=…)`, `API_PREFIX`.
- `mounts` — `Mounted` (another ASGI app, e.g. MCP at /mcp, behind the same checks, its lifespan
  run by the server's); `lazy_mount(path, build)`, one built on its first request.
- `config` — `ServerConfig` (host, port, token, limits), `Limits`.
- `security` — `AccessControl`: Host, Origin, token and body-size checks.
- `tickets` — `PageTickets`, the page addresses' one-time tokens.
- `streams` — `StreamSlots`, `BoundedStream`: the log streams' caps, event size and back-pressure.
- `connections` — `guarded(seconds)`: uvicorn's h11 protocol with a deadline for request headers.
- `hub` — `JamHub`: the jam WebSocket's clients over `bandstand.jam.live.LiveJam`.
- `run` — `serve(config, app)`: listen, print, stop cleanly on Ctrl-C.
"""

from bandstand.server.app import API_PREFIX, create_app
from bandstand.server.config import Limits, ServerConfig
from bandstand.server.hub import JamHub
from bandstand.server.mounts import Mounted
from bandstand.server.mounts import lazy as lazy_mount
from bandstand.server.routes.pages import web_root
from bandstand.server.run import bind, serve
from bandstand.server.security import AccessControl
from bandstand.server.state import ServerState, jam_hub, server_state

__all__ = [
    "API_PREFIX",
    "AccessControl",
    "JamHub",
    "Limits",
    "Mounted",
    "ServerConfig",
    "ServerState",
    "bind",
    "create_app",
    "jam_hub",
    "lazy_mount",
    "serve",
    "server_state",
    "web_root",
]
