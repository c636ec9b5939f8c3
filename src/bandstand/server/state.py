"""What the routers share: the server's config, the protocol registry, the jam
hub and the tool catalog, kept on the app (`app.state.server`) by the factory."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

from bandstand.protocol import Registry, ToolCatalog
from bandstand.server.config import ServerConfig
from bandstand.server.hub import JamHub


@dataclass(slots=True)
class ServerState:
    config: ServerConfig
    registry: Registry
    tools: ToolCatalog | None
    hub: JamHub | None = None  # built when the app starts (it needs the event loop)


def server_state(connection: HTTPConnection) -> ServerState:
    """The dependency every router takes (works for requests and WebSockets)."""
    state: ServerState = connection.app.state.server
    return state


def jam_hub(connection: HTTPConnection) -> JamHub:
    hub = server_state(connection).hub
    assert hub is not None, "the jam hub is built when the app starts"
    return hub
