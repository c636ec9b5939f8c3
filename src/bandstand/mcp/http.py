"""The MCP server at `/mcp` on `bandstand serve` (streamable HTTP).

It is mounted as the SDK's reference does it — its streamable-HTTP app at the
path, the session manager run by the server's own lifespan — behind the
server's access checks: Host, Origin and the token (`Authorization: Bearer
TOKEN`), so the SDK's own DNS-rebinding check, which knows nothing of the
server's names, is left off. It serves the projects of the server's studio
(`--out`), with its language model; an export stays in its project's
export/ folder (`App.desk().export`). The jam tools drive the
jam the server's page plays.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from bandstand.mcp.band import Band
from bandstand.mcp.server import build_server

__all__ = ["PATH", "mcp_mount"]

PATH = "/mcp"


def mcp_mount(studio: Any) -> Any:
    """A `bandstand.server.Mounted` serving MCP at /mcp over `studio` (a `Studio`, `App.studio`)."""
    from bandstand.server.mounts import Mounted
    from bandstand.server.state import ServerState

    band = Band(studio.library, backend=studio.backend)
    server = build_server(band)
    app = server.streamable_http_app(
        streamable_http_path="/",
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @contextlib.asynccontextmanager
    async def lifespan(state: ServerState) -> AsyncIterator[None]:
        band.jam = lambda: state.hub.jam if state.hub is not None else None
        async with server.session_manager.run():
            yield

    return Mounted(PATH, app, lifespan)
