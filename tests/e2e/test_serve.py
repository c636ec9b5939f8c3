"""`bandstand serve` as a real process: the access rules (Host, Origin, token),
the page's cookie, body and message limits, the jam over HTTP, and a clean
stop on Ctrl-C — with a real HTTP client and a real WebSocket client."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.server.jam_process import Served, bandstand_server, stop

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served() -> Any:
    with bandstand_server("serve", "--members", "beat,groove") as found:
        yield found


def port_of(served: Served) -> int:
    return int(served.base.rsplit(":", 1)[1].strip("/"))


def test_it_prints_where_it_listens_and_its_token(served: Served) -> None:
    assert served.base.startswith("http://127.0.0.1:") and served.printed_url.startswith(f"{served.base}?token=")
    assert served.token not in served.printed_url  # a one-time ticket, never the API token
    assert len(served.token) >= 32
    about = httpx.get(served.base + "api/v1/protocol", headers=served.headers).json()
    assert about["protocolVersion"] == "1.0" and len(about["schemaHash"]) == 64
    assert about["documents"]["schema"] == "/api/v1/protocol/schema.json"
    for name in ("events", "schema", "tools"):
        assert httpx.get(served.base + f"api/v1/protocol/{name}.json", headers=served.headers).status_code == 200
    openapi = httpx.get(served.base + "openapi.json", headers=served.headers).json()
    assert {"/api/v1/protocol", "/api/v1/jam/start", "/api/v1/jam/directive", "/api/v1/jam/recordings/{name}"} <= set(openapi["paths"])
    assert httpx.get(served.base + "docs", headers=served.headers).status_code == 404  # no pages from a CDN


@pytest.mark.parametrize("auth", [{}, {"authorization": "Bearer wrong-token-wrong-token"}, {"authorization": "Basic x"}])
def test_a_missing_or_wrong_token_is_refused(served: Served, auth: dict[str, str]) -> None:
    answer = httpx.get(served.base + "api/v1/protocol", headers=auth)
    assert answer.status_code == 401 and "access token" in answer.json()["detail"]
    assert answer.headers["www-authenticate"] == "Bearer"
    assert httpx.get(served.base + "static/app.js", headers=auth).status_code == 401


def test_the_page_needs_the_printed_url_and_then_lives_on_an_http_only_cookie(served: Served) -> None:
    bare = httpx.get(served.base)
    assert bare.status_code == 401 and "?token=" in bare.text and served.token not in bare.text
    assert httpx.get(served.base + "?token=nope-nope-nope-nope").status_code == 401
    first = httpx.get(served.url)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and cookie.startswith(f"bandstand-{port_of(served)}=")
    with httpx.Client(follow_redirects=True) as browser:
        page = browser.get(served.url)
        assert page.status_code == 200 and "/static/app.js" in page.text and served.token not in page.text
        assert browser.get(served.base + "api/v1/jam/state").json()["type"] == "jam_state_update"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost.evil.example:{port}"])
def test_a_foreign_host_is_refused(served: Served, host: str) -> None:
    # a DNS-rebinding page reaches 127.0.0.1 under its own name: the Host header gives it away
    answer = httpx.get(served.base + "api/v1/protocol", headers={**served.headers, "host": host.format(port=port_of(served))})
    assert answer.status_code == 403 and "does not answer to Host" in answer.json()["detail"]
    ok = httpx.get(served.base + "api/v1/protocol", headers={**served.headers, "host": f"localhost:{port_of(served)}"})
    assert ok.status_code == 200


@pytest.mark.parametrize("origin", ["https://evil.example", "http://127.0.0.1:1", "null"])
def test_a_foreign_origin_is_refused_even_with_the_token(served: Served, origin: str) -> None:
    answer = httpx.get(served.base + "api/v1/protocol", headers={**served.headers, "origin": origin})
    assert answer.status_code == 403 and "not accepted" in answer.json()["detail"]
    own = served.base.rstrip("/")
    assert httpx.get(served.base + "api/v1/protocol", headers={**served.headers, "origin": own}).status_code == 200


async def test_the_jam_socket_has_the_same_protection(served: Served) -> None:
    port = port_of(served)
    rebound = f"ws://evil.example:{port}/ws/jam"  # the name in the URL, the connection to 127.0.0.1
    for uri, headers in ((served.ws, {}), (served.ws, {**served.headers, "origin": "https://evil.example"}),
                         (rebound, served.headers)):
        with pytest.raises(InvalidStatus) as refused:
            async with websockets.connect(uri, additional_headers=headers, host="127.0.0.1", port=port):
                pass
        assert refused.value.response.status_code == 403
    own = {**served.headers, "origin": served.base.rstrip("/")}
    async with websockets.connect(served.ws, additional_headers=own) as ws:
        assert json.loads(await ws.recv())["type"] == "jam_state_update"


async def test_oversize_bodies_are_refused_with_413(served: Served) -> None:
    big = json.dumps({"text": "x" * (2 * 1024 * 1024)}).encode()
    async with httpx.AsyncClient(base_url=served.base, headers=served.headers) as client:
        declared = await client.post("api/v1/jam/directive", content=big, headers={"content-type": "application/json"})
        assert declared.status_code == 413 and "larger than" in declared.json()["detail"]

        async def chunks() -> Any:  # no content-length: the limit is counted as the body arrives
            for i in range(0, len(big), 65536):
                yield big[i:i + 65536]

        streamed = await client.post("api/v1/jam/directive", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413


async def test_websocket_messages_are_limited_in_size_and_rate(served: Served) -> None:
    async with websockets.connect(served.ws, additional_headers=served.headers, max_size=None) as ws:
        await ws.recv()
        with pytest.raises(ConnectionClosed) as closed:
            await ws.send("x" * (128 * 1024))
            while True:  # what was sent on connect (the chat so far) comes first
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    async with websockets.connect(served.ws, additional_headers=served.headers) as ws:
        await ws.recv()
        for _ in range(80):  # far more than 40 at once
            await ws.send(json.dumps({"type": "set_mute", "member": "BEAT", "muted": False}))
        errors = []
        async with asyncio.timeout(20):
            while len(errors) < 10:
                message = json.loads(await ws.recv())
                if message["type"] == "error":
                    errors.append(message["message"])
        assert all("too many messages" in e for e in errors)


async def test_scripts_direct_the_jam_over_http(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.base, headers=served.headers, timeout=60) as client:
        early = await client.post("api/v1/jam/directive", json={"text": "more energy"})
        assert early.status_code == 409 and "start the jam" in early.json()["detail"]
        assert (await client.post("api/v1/jam/directive", json={"text": ""})).status_code == 422
        started = await client.post("api/v1/jam/start", json={"members": ["BEAT"]})
        assert started.status_code == 200 and started.json()["running"] is True
        wrong = await client.post("api/v1/jam/directive", json={"text": "@TUBA play"})
        assert wrong.status_code == 422 and "@TUBA" in wrong.json()["detail"]
        accepted = await client.post("api/v1/jam/directive", json={"text": "more energy"})
        assert accepted.status_code == 202
        for _ in range(300):
            if (await client.get("api/v1/jam/state")).json()["round"] >= 2:
                break
            await asyncio.sleep(0.05)
        assert (await client.get("api/v1/jam/state")).json()["context"]["energy"] == 7
        assert (await client.get("api/v1/jam/recordings/secrets.txt")).status_code == 404
        stopped = await client.post("api/v1/jam/stop")
        assert stopped.json()["running"] is False


def test_ctrl_c_stops_cleanly_while_a_jam_plays_and_a_client_listens() -> None:
    with bandstand_server("serve", "--members", "beat,groove,aria") as served:
        async def play() -> None:
            async with websockets.connect(served.ws, additional_headers=served.headers) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "start_jam"}))
                async with asyncio.timeout(30):
                    while json.loads(await ws.recv())["type"] != "events":
                        pass
                code = stop(served.proc, signal.SIGINT)
                assert code == 0
                with pytest.raises(ConnectionClosed):
                    async with asyncio.timeout(10):
                        while True:
                            await ws.recv()

        asyncio.run(play())
        assert served.proc.stderr is not None
        err = served.proc.stderr.read()
    assert "Traceback" not in err and "Task was destroyed" not in err and "Error" not in err
    assert err.strip().endswith("bandstand serve: stopped")


def test_a_remote_address_needs_allow_remote(tmp_path: Any) -> None:
    import subprocess
    import sys

    refused = subprocess.run([sys.executable, "-m", "bandstand", "serve", "--host", "0.0.0.0", "--port", "0"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--allow-remote" in refused.stderr
    with bandstand_server("serve", "--host", "0.0.0.0", "--allow-remote") as served:
        port = int(served.base.rsplit(":", 1)[1].strip("/"))
        named = httpx.get(f"http://127.0.0.1:{port}/api/v1/protocol",
                          headers={**served.headers, "host": f"{socket.gethostname()}:{port}"})
        assert named.status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/protocol").status_code == 401
        stop(served.proc)
        assert served.proc.stderr is not None and "other machines can reach this server" in served.proc.stderr.read()


def test_the_printed_url_opens_the_page_once_and_is_no_api_token(served: Served) -> None:
    ticket = served.printed_url.split("?token=", 1)[1]
    assert httpx.get(served.base + "api/v1/jam/state", headers={"authorization": f"Bearer {ticket}"}).status_code == 401
    with httpx.Client() as browser:
        first = browser.get(served.printed_url)
        assert first.status_code == 303 and "set-cookie" in first.headers
        assert browser.get(served.base).status_code == 200
    again = httpx.get(served.printed_url)  # from the browser's history, in a browser without the cookie
    assert again.status_code == 401 and "opens the page once" in again.text


def test_it_prints_both_pages_and_the_pages_link_to_each_other() -> None:
    """`serve` prints the jam page's address and the studio's (each a one-time ticket); the jam
    page links to the studio and the studio to the jam."""
    with bandstand_server("serve", "--members", "beat") as found:
        assert found.proc.stdout is not None
        lines = [found.proc.stdout.readline() for _ in range(2)]  # after the token: MCP (with the extra), the studio
        third = next(line for line in lines if line.startswith("the studio page: "))
        assert third.startswith("the studio page: " + found.base + "studio?token=")
        studio = third.split()[3]
        assert found.token not in studio
        with httpx.Client(follow_redirects=True, timeout=30) as browser:
            page = browser.get(studio)
            assert page.status_code == 200 and "studio" in page.text.lower()
            assert 'href="/"' in page.text  # the studio's way to the jam
            jam = browser.get(found.page_url("jam"))
            assert jam.status_code == 200 and 'href="/studio"' in jam.text  # the jam's way to the studio
