"""Long-lived SSE streams with bounds: how many may be open, how large one event
is, where it is built and how far behind a reader may fall.

- **Slots.** At most `Limits.sse_streams` streams are open at once and
  `Limits.sse_streams_per_client` from one client address; one more is refused
  before it starts, with one line: 429 (this client has too many) or 503 (the
  server has too many).
- **Events.** The caller builds each event, whole SSE frame included, on a
  worker thread (`frame`), never on the event loop; readers of logs bound what
  one event holds (`Limits.sse_event_bytes`). Worker threads for streams are a
  pool of their own (`StreamSlots.limiter`), so streams never take the threads
  the other routes need.
- **Back-pressure.** The server writes an event only when the reader has taken
  the previous one (uvicorn's flow control); a reader that takes no event for
  `Limits.sse_send_seconds` is disconnected, and one that stays behind the
  source for `Limits.sse_lag_seconds` gets a `closed` event saying so, and the
  stream ends.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from sse_starlette.sse import EventSourceResponse, SendTimeoutError
from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send

from bandstand.server.config import Limits

__all__ = ["STREAM_ANSWERS", "BoundedStream", "Lag", "StreamSlots", "frame"]

STREAM_ANSWERS: dict[int | str, dict[str, Any]] = {
    429: {"description": "this client has as many streams open as it may"},
    503: {"description": "the server has as many streams open as it may"},
}
"""What a stream route may answer besides its stream (routers pass it as `responses=`)."""


def frame(kind: str, payload: Any) -> bytes:
    """One SSE event, `event: KIND` and its data as one line of JSON, ready to send."""
    data = json.dumps(payload, ensure_ascii=False, default=str, separators=(",", ":"))
    return f"event: {kind}\r\ndata: {data}\r\n\r\n".encode()


@dataclass
class StreamSlots:
    """The open streams, counted per client address (see the module docstring)."""

    limits: Limits
    open: Counter[str] = field(default_factory=Counter)
    _limiter: anyio.CapacityLimiter | None = None

    @property
    def total(self) -> int:
        return sum(self.open.values())

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The worker threads that read and encode events for streams (made on first use, in the loop)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.limits.sse_workers)
        return self._limiter

    def check(self, client: str) -> None:
        """Refuse one more stream for `client` (429, 503) with one line when it would be too many."""
        if self.open[client] >= self.limits.sse_streams_per_client:
            raise HTTPException(429, f"this client has {self.open[client]} streams open, the most one client may "
                                     "have; close one (or wait for one to end) and try again")
        if self.total >= self.limits.sse_streams:
            raise HTTPException(503, f"the server has {self.total} streams open, the most it serves at once; "
                                     "try again when one has ended")

    def take(self, client: str) -> None:
        """Count one more stream for `client`, or refuse it as `check` does."""
        self.check(client)
        self.open[client] += 1

    def give_back(self, client: str) -> None:
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]


@dataclass
class Lag:
    """How long a reader has been behind its source: `behind(True)` while there is more to send
    than one event holds, `behind(False)` once it has caught up; `too_long` past the limit."""

    limit: float
    since: float | None = None

    def behind(self, more: bool) -> None:
        if not more:
            self.since = None
        elif self.since is None:
            self.since = time.monotonic()

    @property
    def too_long(self) -> bool:
        return self.since is not None and time.monotonic() - self.since > self.limit


class BoundedStream(EventSourceResponse):
    """An SSE response that holds one of the `slots` (taken when it is made, given back when it
    ends however it ends) and disconnects a reader that takes no event for `send_timeout` s."""

    def __init__(self, content: AsyncIterator[bytes], *, slots: StreamSlots, client: str, ping: float) -> None:
        slots.take(client)
        self._slots, self._client = slots, client
        super().__init__(content, ping=ping, send_timeout=slots.limits.sse_send_seconds)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            # a reader that stopped reading times the send out: returning closes its connection
            with contextlib.suppress(SendTimeoutError):
                await super().__call__(scope, receive, send)
        finally:
            self._slots.give_back(self._client)
