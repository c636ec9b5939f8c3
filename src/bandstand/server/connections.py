"""The server's HTTP connections, with a deadline for headers: uvicorn's h11 protocol
closes a kept-alive connection that stays idle (`timeout_keep_alive`) but waits forever
for a request's headers, so a client that sends them a byte at a time (slowloris) keeps
its connection — and its place among the server's connections — for as long as it likes.

`guarded(seconds)` is the h11 protocol with one more timer: from the moment a connection
is made, and again whenever it is waiting for the next request, its request line and
headers must be complete within `seconds`; otherwise it is answered 408 with one line
and closed. Nothing of the app runs before that: the access checks see only requests
whose headers have arrived.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["guarded"]


def _late(seconds: float) -> bytes:
    body = f"the request's headers did not arrive within {seconds:g} s\n".encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class _HeaderDeadline(H11Protocol):
    """H11Protocol that closes a connection whose request headers are late (see the module docstring)."""

    header_seconds: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _waiting_for_headers(self) -> bool:
        """True while the connection has no request whose headers are complete."""
        return self.conn.their_state is h11.IDLE and not self.transport.is_closing()

    def _watch(self) -> None:
        if not self._waiting_for_headers():
            self._stop()
        elif self._deadline is None:
            self._deadline = self.loop.call_later(self.header_seconds, self._expired)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self._waiting_for_headers():
            self.transport.write(_late(self.header_seconds))
            self.transport.close()


def guarded(seconds: float) -> type[H11Protocol]:
    """The h11 protocol with a header deadline of `seconds` (for `uvicorn.Config(http=…)`)."""
    return type("HeaderDeadlineH11", (_HeaderDeadline,), {"header_seconds": seconds})
