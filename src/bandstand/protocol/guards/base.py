"""What every guard is: it checks each outgoing event against the events sent
before it on the same stream, says what a stream still owes before it may end,
and which events end it after a failure.

A violation is a bug in the server (an event out of order, or one that does
not validate); the emitter answers it by ending the stream with the guard's
failure `tail` (for the studio stream: `error`, the steps never finished,
`complete(success: false)`) and raising `ProtocolViolation` to the producer.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel


class ProtocolViolation(AssertionError):
    """An outgoing event broke an ordering rule or did not validate."""


class StreamClosed(ProtocolViolation):
    """An event was emitted after its stream had ended."""


class Guard(Protocol):
    """The ordering rules of one stream kind, checked event by event."""

    def check(self, event: BaseModel) -> None:
        """Raise `ProtocolViolation` if `event` may not follow the events before it; else record it."""
        ...

    def unfinished(self) -> str | None:
        """Why the stream may not end yet (None: it ended properly, or needs no end)."""
        ...

    def tail(self, message: str) -> list[BaseModel]:
        """The events that end the stream after a failure (empty: the stream has no required end)."""
        ...
