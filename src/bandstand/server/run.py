"""Running a server: bind its socket first (a busy port or a wrong address is
the user's to fix, in one line), then serve until Ctrl-C or SIGTERM.

uvicorn shuts down gracefully on the first Ctrl-C: open connections are
closed, the app's lifespan ends (the jam stops, its tasks and member
sessions with it), and `serve` returns. WebSocket messages larger than the
configured limit are refused by uvicorn itself. Every connection has deadlines
(`Limits.header_seconds` for a request's headers, `server.connections`;
`Limits.idle_seconds` between requests) and there are at most
`Limits.connections` at once (uvicorn answers more with 503).
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from fastapi import FastAPI

from bandstand.errors import InvalidInput
from bandstand.server.config import ServerConfig

SHUTDOWN_SECONDS = 5


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one), or `InvalidInput` saying why not."""
    if not host.strip():
        raise InvalidInput("--host is empty; use 127.0.0.1 (this machine only)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)  # from now on clients queue up, even before the app has started
    except OSError as exc:
        sock.close()
        raise InvalidInput(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port (0 picks a free one) "
            "or a --host address of this machine"
        ) from exc
    return sock


def serve(config: ServerConfig, app: FastAPI, sock: socket.socket, *, on_ready: Callable[[], None] | None = None) -> None:
    """Serve `app` on `sock` until Ctrl-C/SIGTERM; returns after a clean shutdown."""
    import uvicorn

    from bandstand.server.connections import guarded

    limits = config.limits
    server = uvicorn.Server(uvicorn.Config(
        app, log_level="warning", ws_max_size=limits.ws_message_bytes, timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        server_header=False, http=guarded(limits.header_seconds), timeout_keep_alive=limits.idle_seconds,
        limit_concurrency=limits.connections,
    ))
    if on_ready is not None:
        on_ready()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down for; the shutdown is done
        pass
    finally:
        sock.close()
