"""`bandstand jam` as a real process, attacked as a web page or a careless client would:
every route and socket it serves checks Host, Origin and the token (DNS rebinding cannot read
the jam's state or download its recording); the page itself keeps working on its cookie; a
deeply nested frame and a careless start_jam get an answer instead of a dropped socket or a
reset jam."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from starlette.routing import Mount, Route, WebSocketRoute
from websockets.exceptions import InvalidStatus

from tests.server.jam_process import Served, jam_server

pytestmark = pytest.mark.e2e

EVIL = "https://evil.example"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with jam_server("--members", "beat,groove", cwd=tmp_path_factory.mktemp("jam")) as found:
        yield found


def port_of(served: Served) -> int:
    return int(served.base.rsplit(":", 1)[1].strip("/"))


def served_routes(tmp: Path) -> list[tuple[str, str]]:
    """(method, path) of every HTTP route and mount the jam's server has, built the way
    `bandstand jam` builds it (path parameters filled in with a made-up value)."""
    from bandstand.cli.serve import _mcp
    from bandstand.jam.persona import resolve_members
    from bandstand.producer.sessions.studio import Studio
    from bandstand.server import ServerConfig, create_app, lazy_mount

    studio = Studio(tmp)
    app = create_app(ServerConfig(port=1), resolve_members(None), studio=studio, mounts=_mcp(studio, lazy_mount))
    out: list[tuple[str, str]] = []
    for prefix, route in _flat("", app.routes):
        path = prefix + re.sub(r"\{[^}]+\}", "x", getattr(route, "path", ""))
        if isinstance(route, Route):
            out += [(method, path) for method in sorted(route.methods or {"GET"}) if method != "HEAD"]
        elif isinstance(route, Mount):
            out.append(("GET", path + "/x"))
        else:
            assert isinstance(route, WebSocketRoute), f"a route of a kind this test does not know: {route!r}"
    assert {("GET", "/api/v1/jam/state"), ("GET", "/api/v1/jam/recordings/x"), ("POST", "/api/v1/jam/start")} <= set(out)
    assert ("GET", "/mcp/x") in out and ("GET", "/static/x") in out
    return out


def _flat(prefix: str, routes: list[Any]) -> list[tuple[str, Any]]:
    """(prefix, route) for every route, through FastAPI's included routers."""
    out: list[tuple[str, Any]] = []
    for route in routes:
        if hasattr(route, "original_router"):  # an include_router(…, prefix=…) kept as one entry
            out += _flat(prefix + route.include_context.prefix, route.original_router.routes)
        else:
            out.append((prefix, route))
    return out


def test_every_route_refuses_a_foreign_host_a_foreign_origin_and_a_missing_token(served: Served, tmp_path: Path) -> None:
    port = port_of(served)
    routes = served_routes(tmp_path)
    refused: dict[str, list[tuple[str, str, int]]] = {"host": [], "origin": [], "token": []}
    with httpx.Client(base_url=served.base, timeout=30) as client:
        for method, path in routes:
            asks = {
                "host": {**served.headers, "host": f"evil.example:{port}"},
                "origin": {**served.headers, "origin": EVIL},
                "token": {},
            }
            for what, headers in asks.items():
                status = client.request(method, path, headers=headers).status_code
                if status != {"host": 403, "origin": 403, "token": 401}[what]:
                    refused[what].append((method, path, status))
    assert refused == {"host": [], "origin": [], "token": []}


async def test_dns_rebinding_reads_no_state_and_downloads_no_recording(served: Served) -> None:
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await socket.recv()
        await socket.send(json.dumps({"type": "start_jam"}))
        async with asyncio.timeout(60):
            while json.loads(await socket.recv()).get("cycle", -1) < 1:
                pass
    rebound = {"host": f"bandstand.evil.example:{port_of(served)}"}  # the attacker's name, resolving to 127.0.0.1
    async with httpx.AsyncClient(base_url=served.base, timeout=120) as client:
        for path in ("api/v1/jam/state", "api/v1/jam/recordings/jam.mid", "api/v1/jam/recordings/transcript.md"):
            for headers in (rebound, {**rebound, "cookie": "x=y"}, {**rebound, **served.headers}):
                answer = await client.get(path, headers=headers)
                assert answer.status_code == 403 and "does not answer to Host" in answer.json()["detail"]
                assert b"BEAT" not in answer.content and not answer.content.startswith(b"MThd")
        state = await client.get("api/v1/jam/state", headers=served.headers)
        assert state.status_code == 200 and state.json()["running"] is True  # the owner still reads it
        midi = await client.get("api/v1/jam/recordings/jam.mid", headers=served.headers)
        assert midi.status_code == 200 and midi.content.startswith(b"MThd")
        await client.post("api/v1/jam/stop", headers=served.headers)


async def test_the_socket_refuses_other_sites_and_programs_without_the_token(served: Served) -> None:
    port = port_of(served)
    cases = {
        "another site's page, even with the token": {**served.headers, "origin": EVIL},
        "a sandboxed page": {**served.headers, "origin": "null"},
        "a program without the token": {},
        "a wrong token": {"authorization": "Bearer " + "x" * 40},
    }
    for why, headers in cases.items():
        with pytest.raises(InvalidStatus) as refused:
            async with websockets.connect(served.ws, additional_headers=headers):
                pass
        assert refused.value.response.status_code in (401, 403), why
    with pytest.raises(InvalidStatus) as rebound:
        async with websockets.connect(f"ws://evil.example:{port}/ws/jam", additional_headers=served.headers,
                                      host="127.0.0.1", port=port):
            pass
    assert rebound.value.response.status_code == 403
    async with websockets.connect(served.ws, additional_headers=served.headers) as program:  # the token is enough
        assert json.loads(await program.recv())["type"] == "jam_state_update"


async def test_the_page_opens_on_the_printed_url_and_plays_over_its_cookie(served: Served) -> None:
    with httpx.Client(follow_redirects=True) as browser:
        page = browser.get(served.url)
        assert page.status_code == 200 and "/static/app.js" in page.text and served.token not in page.text
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        assert browser.get(served.base + "static/app.js").status_code == 200
    own = {"origin": served.base.rstrip("/"), "cookie": cookie}  # what the page's own WebSocket sends
    async with websockets.connect(served.ws, additional_headers=own) as socket:
        assert json.loads(await socket.recv())["type"] == "jam_state_update"
        await socket.send(json.dumps({"type": "start_jam", "restart": True}))
        async with asyncio.timeout(60):
            while (message := json.loads(await socket.recv()))["type"] != "events":
                assert message["type"] != "error", message
        await socket.send(json.dumps({"type": "stop_jam"}))


async def _until_error(socket: Any) -> str:
    async with asyncio.timeout(30):
        while True:
            message = json.loads(await socket.recv())
            if message["type"] == "error":
                return str(message["message"])


async def test_a_deeply_nested_frame_is_answered_and_the_socket_stays_open(served: Served) -> None:
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await socket.recv()
        for frame in ("[" * 20000 + "]" * 20000, '{"type": "stop_jam", "x": ' + "[" * 5000 + "]" * 5000 + "}",
                      '{"a":' * 3000 + "1" + "}" * 3000):
            await socket.send(frame)
            assert "nest" in await _until_error(socket)
        await socket.send(json.dumps({"type": "boss_directive", "text": '[[[[ "[[[[" ]]]]'}))  # brackets in words are words
        assert "start the jam" in await _until_error(socket)


async def test_a_careless_start_jam_is_refused_and_the_jam_plays_on(served: Served) -> None:
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await socket.recv()
        await socket.send(json.dumps({"type": "start_jam", "restart": True}))
        async with asyncio.timeout(60):
            while (message := json.loads(await socket.recv()))["type"] != "execute":
                pass
        for start, said in (({"members": ["BEAT", "TUBA"], "restart": True}, "unknown member(s) TUBA"),
                            ({"members": ["beat", "Beat"], "restart": True}, "BEAT named more than once"),
                            ({}, "already playing")):
            await socket.send(json.dumps({"type": "start_jam", **start}))
            assert said in await _until_error(socket)
    async with httpx.AsyncClient(base_url=served.base, headers=served.headers, timeout=30) as client:
        state = (await client.get("api/v1/jam/state")).json()
        assert state["running"] is True and state["round"] == message["round"]  # the same jam, not restarted
        again = await client.post("api/v1/jam/start", json={"members": ["BEAT"]})
        assert again.status_code == 409 and "restart" in again.json()["detail"]
        restarted = await client.post("api/v1/jam/start", json={"members": ["BEAT"], "restart": True})
        assert restarted.status_code == 200 and [m["name"] for m in restarted.json()["members"] if m["active"]] == ["BEAT"]
        await client.post("api/v1/jam/stop")
