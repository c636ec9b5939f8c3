"""A mount built on its first request (`bandstand.server.lazy_mount`): the MCP server at /mcp
costs the SDK's imports, which a server nobody asks over MCP no longer pays at start-up.

In process: the build runs once however many first requests race for it, the built app's
lifespan is entered once (in a task of the server's lifespan, after the hub exists) and left
when the server stops, and requests before the build still pass the access checks. In a new
process: `bandstand serve`'s app has not imported the MCP SDK when it is ready, and an MCP
`initialize` at /mcp then answers."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.server import Mounted, ServerConfig, ServerState, create_app, lazy_mount

TOKEN = "t" * 32
AUTH = {"authorization": f"Bearer {TOKEN}"}


def test_the_app_is_built_once_and_its_lifespan_runs_with_the_server() -> None:
    built: list[int] = []
    lifespan: list[str] = []
    gate = threading.Event()

    def build() -> Mounted:
        gate.wait(5)  # both first requests arrive while the build runs
        built.append(1)

        @contextlib.asynccontextmanager
        async def running(state: ServerState) -> AsyncIterator[None]:
            lifespan.append(f"in (hub: {state.hub is not None})")
            yield
            lifespan.append("out")

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await PlainTextResponse(f"built {len(built)}: {scope['path']}")(scope, receive, send)

        return Mounted("/extra", app, running)

    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), mounts=[lazy_mount("/extra", build)])
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        assert client.get("/extra/a").status_code == 401  # the access checks come first, and build nothing
        assert built == [] and lifespan == []
        answers: list[Any] = []
        callers = [threading.Thread(target=lambda p=p: answers.append(client.get(f"/extra/{p}", headers=AUTH)))
                   for p in ("a", "b")]
        for caller in callers:
            caller.start()
        gate.set()
        for caller in callers:
            caller.join(30)
        assert sorted(r.text for r in answers) == ["built 1: /extra/a", "built 1: /extra/b"]
        assert client.get("/extra", headers=AUTH).text == "built 1: /extra/"
        assert built == [1] and lifespan == ["in (hub: True)"]
    assert lifespan == ["in (hub: True)", "out"]


def test_a_server_that_nobody_asks_over_mcp_has_not_imported_it() -> None:
    script = f"""
import json, sys
from pathlib import Path
import tempfile
from starlette.testclient import TestClient
from bandstand.cli.serve import _mcp
from bandstand.jam.persona import resolve_members
from bandstand.producer.sessions.studio import Studio
from bandstand.server import ServerConfig, create_app, lazy_mount

studio = Studio(Path(tempfile.mkdtemp()))
app = create_app(ServerConfig(port=8765, token={TOKEN!r}), resolve_members(["beat"]), studio=studio,
                 mounts=_mcp(studio, lazy_mount))
auth = {{"authorization": "Bearer {TOKEN}"}}
with TestClient(app, base_url="http://127.0.0.1:8765") as client:
    ready = client.get("/api/v1/protocol", headers=auth).status_code
    before = sorted(m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "bandstand.mcp")))
    hello = {{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {{"protocolVersion": "2025-06-18",
             "capabilities": {{}}, "clientInfo": {{"name": "test", "version": "1"}}}}}}
    answer = client.post("/mcp", json=hello, headers={{**auth, "accept": "application/json, text/event-stream"}})
    after = "mcp.server" in sys.modules
print(json.dumps({{"ready": ready, "before": before, "status": answer.status_code, "body": answer.text[:400],
                  "after": after}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ready"] == 200 and seen["before"] == [], seen
    assert seen["status"] == 200 and "\"capabilities\"" in seen["body"] and seen["after"], seen
