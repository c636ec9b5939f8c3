"""The FastAPI app: the jam page, its static files, the jam WebSocket and the
protocol schemas. It holds no music logic; the hub and the engine do.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.background import BackgroundTask

from bandstand.errors import UserError
from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.persona import Persona
from bandstand.protocol import JAM
from bandstand.server.hub import JamHub

RECORDING_FILES = {
    "jam.mid": "audio/midi",
    "jam.wav": "audio/wav",
    "transcript.md": "text/markdown; charset=utf-8",
    "rounds.jsonl": "application/jsonl",
}


def web_root() -> Path:
    """The folder of the browser UI (plain ES modules and CSS)."""
    return Path(str(resources.files("bandstand") / "web"))


def create_app(
    personas: list[Persona],
    *,
    backend: BackendFactory = algorithmic_backend,
    seed: int = 0,
    turn_timeout: float = 30.0,
) -> FastAPI:
    """The jam server for `personas` (the band the page can start)."""
    registry = JAM
    hub_box: dict[str, JamHub] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub_box["hub"] = JamHub(personas, backend=backend, seed=seed, turn_timeout=turn_timeout)
        app.state.hub = hub_box["hub"]
        try:
            yield
        finally:
            await hub_box["hub"].close()

    app = FastAPI(title="bandstand jam", lifespan=lifespan)
    root = web_root()
    app.mount("/static", StaticFiles(directory=root), name="static")

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(root / "index.html", media_type="text/html")

    @app.get("/api/schemas")
    async def schemas() -> JSONResponse:
        return JSONResponse({
            "server_to_client": {n: m.model_json_schema() for n, m in sorted(registry.outgoing.items())},
            "client_to_server": {n: m.model_json_schema() for n, m in sorted(registry.incoming.items())},
        })

    @app.get("/api/state")
    async def state() -> JSONResponse:
        return JSONResponse(hub_box["hub"].engine.state().model_dump(mode="json"))

    @app.get("/api/recording/{name}")
    async def recording(name: str) -> FileResponse:
        """The last jam's recording: jam.mid, jam.wav, transcript.md or rounds.jsonl."""
        if name not in RECORDING_FILES:
            raise HTTPException(404, f"no such recording file {name!r}; one of {', '.join(RECORDING_FILES)}")
        hub = hub_box["hub"]
        if hub.transport is None or not hub.transport.played:
            raise HTTPException(404, "nothing recorded yet: start a jam first")
        from bandstand.jam.recording import export

        folder = Path(tempfile.mkdtemp(prefix="bandstand-jam-"))
        played = list(hub.transport.played)
        await asyncio.to_thread(export, hub.engine, played, folder, wav=name == "jam.wav")
        return FileResponse(
            folder / name, media_type=RECORDING_FILES[name], filename=name,
            background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True),
        )

    @app.websocket("/ws/jam")
    async def jam_socket(socket: WebSocket) -> None:
        await socket.accept()
        hub = hub_box["hub"]
        queue = hub.connect()

        async def pump() -> None:
            while (data := await queue.get()) is not None:
                await socket.send_json(data)
            await socket.close()

        sender = asyncio.ensure_future(pump())
        try:
            while True:
                frame = await socket.receive()
                if frame["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(frame.get("code", 1000))
                try:
                    raw: Any = json.loads(frame.get("text") or "")
                except ValueError:
                    # a frame that is not JSON is the sender's mistake; the socket stays open
                    hub.reply_error(queue, "a jam message must be JSON text, e.g. {\"type\": \"stop_jam\"}")
                    continue
                try:
                    message = registry.parse_incoming(raw)
                except UserError as exc:
                    hub.reply_error(queue, str(exc))
                    continue
                await hub.handle(message, queue)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.disconnect(queue)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    return app
