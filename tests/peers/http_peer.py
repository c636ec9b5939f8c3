"""The shared machinery of the local LLM HTTP peers (a real HTTP server on 127.0.0.1).

A `PeerServer` runs a stdlib ``ThreadingHTTPServer`` on a free port in a
background thread, records every request (`requests`: path, headers, JSON
body) and answers with the subclass's protocol. What to answer is decided
from the last user message, like the fake CLI: leading switches change the
turn, the default is an echo in JSON.

    [[status:N]]   answer HTTP status N with the protocol's error body
    [[slow:S]]     wait S seconds first
    [[hang]]       never answer (until the server stops)
    [[drop]]       (streaming) send the first chunk, then close the connection
    [[say]]        reply exactly the rest of the message
    [[flaky:N]]    fail with 503 the first N times this exact message is seen

The default reply is ``{"echo": <last user text>, "messages": <count>,
"system": <system text>}``. `reply_for` can be replaced for custom scripts.
"""

from __future__ import annotations

import abc
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SWITCH = re.compile(r"\s*\[\[(\w+)(?::([^\]]*))?\]\]")


def leading_switches(content: str) -> tuple[dict[str, str | None], str]:
    switches: dict[str, str | None] = {}
    pos = 0
    while match := SWITCH.match(content, pos):
        switches[match.group(1)] = match.group(2)
        pos = match.end()
    return switches, content[pos:].lstrip()


class Dropped(Exception):
    """Raised inside a handler to close the connection abruptly."""


class PeerServer(abc.ABC):
    """Base of the OpenAI- and Anthropic-compatible peers. Use as a context manager."""

    def __init__(self, *, api_key: str | None = "test-key") -> None:
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self.seen: Counter[str] = Counter()
        self.reply_for: Callable[[str, str, int], str] = self.default_reply
        self._lock = threading.Lock()
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with peer._lock:
                    peer.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                try:
                    peer.handle(self, body)
                except (Dropped, BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> PeerServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)

    def __enter__(self) -> PeerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- helpers for subclasses

    def default_reply(self, user_text: str, system: str, n_messages: int) -> str:
        return json.dumps({"echo": user_text, "messages": n_messages, "system": system})

    def send_json(self, handler: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def start_sse(self, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.end_headers()
        handler.close_connection = True

    def sse(self, handler: BaseHTTPRequestHandler, data: str, event: str | None = None) -> None:
        head = f"event: {event}\n" if event else ""
        handler.wfile.write(f"{head}data: {data}\n\n".encode())
        handler.wfile.flush()

    def prelude(self, user_text: str) -> tuple[dict[str, str | None], str, int | None]:
        """Apply the waiting switches; return (switches, rest, status-to-fail-with or None)."""
        switches, rest = leading_switches(user_text)
        if "hang" in switches:
            self.stopping.wait()
            raise Dropped
        if switches.get("slow"):
            time.sleep(float(switches["slow"] or 0))
        if switches.get("status"):
            return switches, rest, int(switches["status"] or 500)
        if switches.get("flaky"):
            with self._lock:
                self.seen[user_text] += 1
                count = self.seen[user_text]
            if count <= int(switches["flaky"] or 1):
                return switches, rest, 503
        return switches, rest, None

    @abc.abstractmethod
    def handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        """Answer one request in the peer's protocol."""


def chunks(text: str, size: int = 8) -> list[str]:
    """`text` in pieces, as a model streams it."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
