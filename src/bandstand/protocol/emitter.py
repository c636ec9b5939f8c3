"""The one emitter: every outgoing message goes through `Emitter.emit`, which
refuses unregistered types, runs the guard, numbers the message and hands a
JSON-ready dict to the sink (a WebSocket broadcast, a list in tests, a printer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from bandstand.protocol.guard import Guard
from bandstand.protocol.registry import Registry, jam_registry

Sink = Callable[[dict[str, Any]], None]


class UnregisteredMessage(TypeError):
    """An attempt to emit a message type that is not in the registry."""


class Emitter:
    """Serialize, check and number outgoing messages, then pass them to the sinks."""

    def __init__(self, registry: Registry | None = None, guard: Guard | None = None) -> None:
        self.registry = registry or jam_registry()
        self.guard = guard or Guard()
        self.seq = 0
        self._sinks: list[Sink] = []

    def subscribe(self, sink: Sink) -> Callable[[], None]:
        """Add a sink; returns a function that removes it."""
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def emit(self, message: BaseModel) -> dict[str, Any]:
        """Check and send one message to every sink; returns the dict that was sent."""
        self._registered(message)
        self.guard.check(message)
        self.seq += 1
        data = message.model_dump(mode="json")
        data["seq"] = self.seq
        for sink in list(self._sinks):
            sink(data)
        return data

    def private(self, message: BaseModel) -> dict[str, Any]:
        """Serialize a message meant for one client only (a state snapshot on connect, an
        error about its own request): registered types only, numbered with the current
        sequence number, not broadcast and not part of the ordered stream."""
        self._registered(message)
        data = message.model_dump(mode="json")
        data["seq"] = self.seq
        return data

    def _registered(self, message: BaseModel) -> None:
        if not self.registry.is_outgoing(message):
            raise UnregisteredMessage(f"{type(message).__name__} is not a registered outgoing message")
