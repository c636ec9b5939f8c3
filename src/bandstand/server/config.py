"""What one running server is: where it listens, its access token, which Host
names reach it, and the limits it puts on what clients send.

The token is random per server (`secrets.token_urlsafe`), or fixed by the
caller (``BANDSTAND_TOKEN``, at least 16 characters). A loopback address is
the default; any other address must be asked for explicitly (`allow_remote`).
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass, field

from bandstand.errors import InvalidInput

MIN_TOKEN = 16


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and 'localhost'."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Limits:
    """Budgets for what clients send."""

    body_bytes: int = 1024 * 1024
    """Largest HTTP request body; more is refused with 413."""
    ws_message_bytes: int = 64 * 1024
    """Largest WebSocket message; more closes the socket (1009)."""
    ws_rate: float = 20.0
    """WebSocket messages per second a client may send, on average …"""
    ws_burst: int = 40
    """… and in a burst; beyond that each message is answered with an error and dropped."""
    ws_strikes: int = 50
    """Dropped messages in a row after which the socket is closed (1008)."""
    ws_clients: int = 64
    """WebSocket clients at once; more are refused (1013, try again later)."""
    ws_queue: int = 1024
    """Messages waiting to be sent to one WebSocket client; a client that falls this far behind is
    dropped (1008) instead of growing the server's memory."""
    sse_streams: int = 32
    """Log streams (`/runs/{name}/stream`, `/board/stream`) open at once; one more is refused (503)."""
    sse_streams_per_client: int = 8
    """Log streams one client address may have open; one more is refused (429)."""
    sse_event_bytes: int = 512 * 1024
    """Bytes of log one stream event carries at most (the rest follows in the next events)."""
    sse_workers: int = 2
    """Worker threads that read and encode stream events, for all streams together."""
    sse_send_seconds: float = 15.0
    """A stream whose reader takes no event for this long is disconnected."""
    sse_lag_seconds: float = 20.0
    """A stream that stays behind its log this long (the log grows faster than the reader reads) is
    ended with a `closed` event saying so."""
    header_seconds: float = 10.0
    """A connection must send a request's headers (the request line and every header) within this
    time of connecting or of its previous answer, or it is answered 408 and closed."""
    body_seconds: float = 60.0
    """A request's body must be all there within this time of its headers, or it is answered 408."""
    idle_seconds: int = 5
    """A kept-alive connection that sends nothing for this long after an answer is closed."""
    connections: int = 512
    """Connections (and requests in progress) at once; beyond that new requests get 503."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server: address, token, accepted Host names and limits."""

    host: str = "127.0.0.1"
    port: int = 8765
    token: str = field(default_factory=new_token, repr=False)
    allow_remote: bool = False
    host_names: tuple[str, ...] = ()
    """Host names besides IP literals and 'localhost' that reach this server (for remote binds)."""
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        if not self.host.strip():
            raise InvalidInput("--host is empty; use 127.0.0.1 (this machine only)")
        if not is_loopback(self.host) and not self.allow_remote:
            raise InvalidInput(
                f"--host {self.host} would let other machines reach the server; "
                "add --allow-remote if that is what you want (they still need the token)"
            )
        if len(self.token) < MIN_TOKEN:
            raise InvalidInput(f"the access token must be at least {MIN_TOKEN} characters long")

    @property
    def origin_host(self) -> str:
        """The host as it appears in a URL (IPv6 in brackets)."""
        return f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host

    @property
    def url(self) -> str:
        """The server's base URL, ending in '/'."""
        return f"http://{self.origin_host}:{self.port}/"

    @property
    def cookie(self) -> str:
        """The page's cookie name (cookies ignore ports, so two servers need two names)."""
        return f"bandstand-{self.port}"
