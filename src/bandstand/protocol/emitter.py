"""The one emitter: every outgoing event of a stream goes through `Emitter.emit`,
which refuses types its stream kind does not carry, validates events given as
dicts, runs the stream's guard, numbers the event (`seq` 1, 2, …), adds the
`protocolVersion` and hands the JSON-ready dict to the sinks (an SSE queue, a
WebSocket broadcast, a list in tests).

An event that does not validate or breaks the order ends the stream: the
emitter sends the guard's failure tail (studio: `error` and
`complete(success: false)`) and raises `ProtocolViolation` to the producer.
`close()` ends a stream that still owes its last event the same way, so a
stream always ends properly, whatever happened to the code that fed it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from bandstand.errors import InvalidInput
from bandstand.protocol.guards import Guard, ProtocolViolation, StreamClosed
from bandstand.protocol.streams import JAM, StreamKind
from bandstand.protocol.wire import PROTOCOL_VERSION

Sink = Callable[[dict[str, Any]], None]


class UnregisteredMessage(TypeError):
    """An attempt to emit an event type that its stream kind does not carry."""


def envelope(event: BaseModel, seq: int) -> dict[str, Any]:
    """The event as sent: `type`, `seq`, `protocolVersion`, then its fields (camelCase where the model says so)."""
    data = event.model_dump(mode="json", by_alias=True)
    return {"type": data.pop("type"), "seq": seq, "protocolVersion": PROTOCOL_VERSION, **data}


class Emitter:
    """Validate, check, number and send the events of one stream."""

    def __init__(self, kind: StreamKind = JAM, guard: Guard | None = None) -> None:
        self.kind = kind
        self.guard: Guard = guard if guard is not None else kind.make_guard()
        self.seq = 0
        self.closed = False
        self._sinks: list[Sink] = []
        self._lock = threading.RLock()  # compose stages emit from worker threads

    def subscribe(self, sink: Sink) -> Callable[[], None]:
        """Add a sink; returns a function that removes it."""
        self._sinks.append(sink)
        return lambda: self._sinks.remove(sink) if sink in self._sinks else None

    def emit(self, event: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
        """Check and send one event to every sink; returns the dict that was sent."""
        with self._lock:
            if self.closed:
                raise StreamClosed(f"{self.kind.name} stream has ended; {_name(event)} not sent")
            try:
                model = self._model(event)
                self.guard.check(model)
            except (ProtocolViolation, UnregisteredMessage):
                self._fail(str(sys.exc_info()[1]))
                raise
            except InvalidInput as exc:
                self._fail(str(exc))
                raise ProtocolViolation(str(exc)) from exc
            return self._send(model)

    def private(self, event: BaseModel) -> dict[str, Any]:
        """Serialize an event meant for one client only (a state snapshot on connect, an
        error about its own request): registered types only, numbered with the current
        sequence number, not broadcast and not part of the ordered stream."""
        self._registered(event)
        return envelope(event, self.seq)

    def close(self, reason: str = "the stream was closed before it ended") -> None:
        """End the stream: if it still owes its last event, send the failure tail. Idempotent."""
        with self._lock:
            if self.closed:
                return
            if self.guard.unfinished() is not None:
                self._fail(reason)
            self.closed = True

    # ------------------------------------------------------------------ inside

    def _model(self, event: BaseModel | Mapping[str, Any]) -> BaseModel:
        if isinstance(event, BaseModel):
            self._registered(event)
            return event
        return self.kind.build(event)

    def _registered(self, event: BaseModel) -> None:
        if not self.kind.is_outgoing(event):
            raise UnregisteredMessage(f"{type(event).__name__} is not a registered {self.kind.name} event")

    def _send(self, model: BaseModel) -> dict[str, Any]:
        self.seq += 1
        data = envelope(model, self.seq)
        for sink in list(self._sinks):
            sink(data)
        return data

    def _fail(self, message: str) -> None:
        tail = self.guard.tail(message)
        for event in tail:
            self.guard.check(event)  # the tail is ordered by the guard that wrote it
            self._send(event)
        if tail:
            self.closed = True


def _name(event: BaseModel | Mapping[str, Any]) -> str:
    return str(event.get("type") if isinstance(event, Mapping) else getattr(event, "type", type(event).__name__))
