"""Access control for every HTTP request and WebSocket, as one ASGI middleware.

1. **Host** must name this server: an IP literal, `localhost`, or a configured
   name, with this server's port. A foreign name (a DNS-rebinding page whose
   name now points at 127.0.0.1) is refused with 403.
2. **Origin**, when a browser sends one, must be this server's own origin
   (`http://` + the Host of the request). Another site's page — and a
   sandboxed `null` origin — is refused with 403, on routes and WebSockets.
3. **Token**: every request carries the server's token, as
   `Authorization: Bearer TOKEN` (scripts, other programs) or as the page's
   cookie. The page gets the cookie when the browser opens the printed URL
   `/?token=TICKET`: the server answers with an HttpOnly, SameSite=Strict
   cookie and a redirect to the same page (`/`, `/studio`), so the token never appears in the page's
   HTML or scripts and no other site can read it or send it. A page URL carries
   a ticket, not the server's token, and opens the page **once** (`PageTickets`):
   the printed URL, or a fresh one from `POST /api/v1/page-links`; opened again
   — from the browser's history, say — it gets the page that says how to get in
   (a browser that has the cookie is only sent on to the page), and the ticket
   is no token for anything else. Missing or wrong → 401 (the page itself says how
   to get in).
4. **Body size and time**: a request body over the limit is refused with 413,
   whether it declared its length or not; one that is not all there within
   `Limits.body_seconds` of its headers, with 408.

A refused WebSocket is closed before it is accepted (the client sees 403).
"""

from __future__ import annotations

import asyncio
import hmac
import json
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bandstand.server.config import ServerConfig, is_ip
from bandstand.server.routes.pages import PAGES
from bandstand.server.tickets import PageTickets

NEED_TOKEN_PAGE = """<!doctype html><meta charset="utf-8"><title>bandstand</title>
<body style="font-family:system-ui;max-width:40em;margin:4em auto">
<h1>bandstand needs its access token</h1>
<p>Open the address that <code>bandstand serve</code> (or <code>bandstand jam</code>) printed:
it ends in <code>?token=…</code>. Each such address opens the page once; for another browser, get a
new one with <code>curl -X POST -H "Authorization: Bearer TOKEN" http://HOST:PORT/api/v1/page-links</code>
(the API token is printed too). Programs send the token as
<code>Authorization: Bearer …</code>.</p></body>
"""


class BodyTooLarge(HTTPException):
    """A request body went over the limit while it was read (413, also through FastAPI's body parsing)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodyTooSlow(HTTPException):
    """A request body was not all there in time (408, also through FastAPI's body parsing)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body did not arrive within {seconds:g} s")


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}


def split_host(value: str) -> tuple[str, int | None]:
    """'name:port' or '[::1]:port' → (name, port); a missing or bad port → None."""
    host, sep, port = value.rpartition(":")
    if not sep or "]" in port:  # no port ('name') or a bare IPv6 literal
        return value.lower(), None
    return host.lower(), int(port) if port.isdigit() else None


class AccessControl:
    """The ASGI middleware of the module docstring."""

    def __init__(self, app: ASGIApp, config: ServerConfig, tickets: PageTickets | None = None) -> None:
        self.app = app
        self.config = config
        self.tickets = tickets if tickets is not None else PageTickets()
        self.names = {"localhost", *(n.lower() for n in config.host_names)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        ticket = self._page_ticket(scope)
        refusal = self.foreign(headers)
        if refusal is None and ticket is not None:
            if self.tickets.spend(ticket):
                await self._to_page(scope, send, cookie=True)
                return
            if self._authorized(headers):  # a used URL in a browser that is in already: on to the page
                await self._to_page(scope, send, cookie=False)
                return
        if refusal is None and not self._authorized(headers):
            refusal = 401, "missing or wrong access token: send 'Authorization: Bearer TOKEN' (bandstand serve prints it)"
        if refusal is not None:
            status, message = refusal
            await self._refuse(scope, receive, send, status, message)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        await self._limited(scope, receive, send, headers)

    # ------------------------------------------------------------------ the checks

    def foreign(self, headers: dict[str, str]) -> tuple[int, str] | None:
        """(403, reason) when the request's Host or Origin is not this server's, else None."""
        host = headers.get("host", "")
        name, port = split_host(host)
        if port != self.config.port or not (is_ip(name) or name in self.names):
            return 403, f"this server does not answer to Host {host!r}"
        origin = headers.get("origin")
        if origin is not None and origin != f"http://{host}":
            return 403, f"requests from {origin} are not accepted (only from this server's own page)"
        return None

    def _authorized(self, headers: dict[str, str]) -> bool:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self._same(value.strip()):
            return True
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is no cookie
            return False
        morsel = cookie.get(self.config.cookie)
        return morsel is not None and self._same(morsel.value)

    def _page_ticket(self, scope: Scope) -> str | None:
        """The ?token= of a GET of a page (the printed URL, or a minted one), else None."""
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in PAGES:
            return None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return next(iter(query.get("token", ())), None)

    def _same(self, token: str) -> bool:
        return hmac.compare_digest(token.encode(), self.config.token.encode())

    # ------------------------------------------------------------------ answers

    async def _to_page(self, scope: Scope, send: Send, *, cookie: bool) -> None:
        """303 to the page without its ?token= (and with the cookie when the ticket was spent now)."""
        headers = [(b"location", scope["path"].encode()), (b"cache-control", b"no-store"), (b"content-length", b"0")]
        if cookie:
            value = f"{self.config.cookie}={self.config.token}; Path=/; HttpOnly; SameSite=Strict"
            headers.append((b"set-cookie", value.encode()))
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        page = status == 401 and scope["path"] in PAGES and scope["method"] == "GET"
        body = NEED_TOKEN_PAGE.encode() if page else json.dumps({"detail": message}).encode()
        kind = b"text/html; charset=utf-8" if page else b"application/json"
        headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", b"Bearer"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _limited(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        limit = self.config.limits.body_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await self._too_large(send, limit)
            return
        seen = 0
        started = False
        seconds = self.config.limits.body_seconds
        loop = asyncio.get_running_loop()
        deadline: float | None = loop.time() + seconds  # None once the body is all there

        async def counted() -> Message:
            nonlocal seen, deadline
            if deadline is None:  # the body is in: what comes now is the disconnect, whenever it comes
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise BodyTooSlow(seconds) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                deadline = None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except (BodyTooLarge, BodyTooSlow) as exc:
            if not started:
                await self._body_refused(send, exc.status_code, exc.detail)

    async def _too_large(self, send: Send, limit: int) -> None:
        await self._body_refused(send, 413, f"the request body is larger than {limit} bytes")

    async def _body_refused(self, send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

