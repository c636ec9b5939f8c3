"""What the routers share: the server's config, the protocol registry, the jam
hub and the tool catalog, kept on the app (`app.state.server`) by the factory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection

from bandstand.errors import NotFound
from bandstand.protocol import (
    Registry,
    ToolCatalog,
    describe,
    events_document,
    schema_document,
    tools_document,
)
from bandstand.server.config import ServerConfig
from bandstand.server.hub import JamHub
from bandstand.server.streams import StreamSlots
from bandstand.server.tickets import PageTickets

if TYPE_CHECKING:
    from bandstand.producer.app import Studio


@dataclass(slots=True)
class ServerState:
    config: ServerConfig
    registry: Registry
    tools: ToolCatalog | None
    hub: JamHub | None = None  # built when the app starts (it needs the event loop)
    studio: Studio | None = None  # the studio behind the studio API (`App.of(studio)`; None: no projects folder)
    runs_dir: str = "runs"  # where agent sessions and teams write their JSONL logs (the log view reads them)
    board_url: str | None = None  # the task board the log view shows (None: the default board)
    tickets: PageTickets | None = None  # the page URLs' one-time tokens (AccessControl spends them)
    streams: StreamSlots | None = None  # the open log streams (built with the config's limits when None)
    _documents: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.streams is None:
            self.streams = StreamSlots(self.config.limits)
        if self.tickets is None:
            self.tickets = PageTickets()

    @property
    def page_tickets(self) -> PageTickets:
        assert self.tickets is not None
        return self.tickets

    @property
    def stream_slots(self) -> StreamSlots:
        assert self.streams is not None
        return self.streams

    def document(self, name: str) -> Any:
        """A protocol document (protocol, events, schema, tools), built once per server."""
        if name not in self._documents:
            builders: dict[str, Callable[[], Any]] = {
                "protocol": lambda: describe(self.registry, self.tools),
                "events": lambda: events_document(self.registry),
                "schema": lambda: schema_document(self.registry),
                "tools": lambda: tools_document(self.tools),
            }
            self._documents[name] = builders[name]()
        return self._documents[name]


def server_state(connection: HTTPConnection) -> ServerState:
    """The dependency every router takes (works for requests and WebSockets)."""
    state: ServerState = connection.app.state.server
    return state


def studio_service(connection: HTTPConnection) -> Studio:
    """The studio behind the projects, variations, conversations and stream routes."""
    studio = server_state(connection).studio
    if studio is None:
        raise NotFound("this server keeps no projects (start it with bandstand serve --out DIR)")
    return studio


def jam_hub(connection: HTTPConnection) -> JamHub:
    hub = server_state(connection).hub
    assert hub is not None, "the jam hub is built when the app starts"
    return hub
