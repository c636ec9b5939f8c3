"""The jam: the WebSocket `/ws/jam` (the page's live connection), and under
`/api/v1/jam` the jam's state, start/stop/directive and the boss's controls
(`/control`: tempo, energy, a member's volume, mute, solo, pattern, the
autopilot) for scripts — the same messages and validation as the socket's —
and the last jam's recording files.

The socket translates frames into jam messages and nothing else: each frame
must be JSON text within the size limit, each client sends at most so many
messages per second (beyond that: an error answer and the message dropped;
a client that keeps on is disconnected), and a bounded number of clients may
be connected at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from bandstand.errors import UserError
from bandstand.protocol import (
    JAM,
    BossDirective,
    KeepJam,
    OverrideCode,
    SetAutopilot,
    SetEnergy,
    SetMute,
    SetSolo,
    SetTempo,
    SetVolume,
    StartJam,
    StopJam,
)
from bandstand.server.frames import read_frame
from bandstand.server.hub import JamHub, Queue
from bandstand.server.ratelimit import TokenBucket
from bandstand.server.state import jam_hub, server_state

router = APIRouter(prefix="/jam", tags=["jam"])
socket_router = APIRouter(tags=["jam"])


@router.get("/state", summary="The jam as the page sees it (a jam_state_update message)")
async def state(hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    return hub.jam.state().model_dump(mode="json")


@router.post("/start", summary="Start a jam (members: who plays; default the whole band)")
async def start(message: StartJam, hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    await hub.act(message)
    return hub.jam.state().model_dump(mode="json")


@router.post("/stop", summary="Stop the jam")
async def stop(hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    await hub.act(StopJam())
    return hub.jam.state().model_dump(mode="json")


@router.post("/directive", status_code=202, summary="Give the band a directive; its round runs in the background")
async def directive(message: BossDirective, hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    await hub.act(message)
    return {"accepted": message.text}


@router.post("/keep", summary="Keep the jam so far as an arranged song project (a jam_kept message naming it)")
async def keep(message: KeepJam, hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    return (await hub.kept(message.title)).model_dump(mode="json")


Control = Annotated[
    SetTempo | SetEnergy | SetVolume | SetMute | SetSolo | OverrideCode | SetAutopilot,
    Body(discriminator="type"),
]


@router.post("/control", summary="One of the boss's controls, as the page sends it: set_tempo, set_energy, "
             "set_volume, set_mute, set_solo, override_code (refused with the reason, notes named) or set_autopilot")
async def control(message: Control, hub: JamHub = Depends(jam_hub)) -> dict[str, Any]:
    await hub.act(message)
    return hub.jam.state().model_dump(mode="json")


@router.get("/recordings/{name}", summary="The last jam's recording: jam.mid, jam.wav, transcript.md or rounds.jsonl",
            response_class=FileResponse, responses={404: {"description": "no such file, or nothing recorded yet"}})
async def recording(name: str, hub: JamHub = Depends(jam_hub)) -> FileResponse:
    folder = Path(tempfile.mkdtemp(prefix="bandstand-jam-"))
    try:
        made = await hub.app.jam_file(hub.jam, name, folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return FileResponse(made.path, media_type=made.media_type, filename=name,
                        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True))


@socket_router.websocket("/ws/jam")
async def jam_socket(socket: WebSocket) -> None:
    hub, limits = jam_hub(socket), server_state(socket).config.limits
    if len(hub.clients) >= limits.ws_clients:
        await socket.close(code=1013, reason="too many jam clients; try again later")
        return
    await socket.accept()
    queue = hub.connect()
    sender = asyncio.ensure_future(_pump(socket, hub, queue))
    try:
        await _receive(socket, hub, queue)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.disconnect(queue)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _pump(socket: WebSocket, hub: JamHub, queue: Queue) -> None:
    while (data := await queue.get()) is not None:
        await socket.send_json(data)
    if hub.dropped(queue):
        await socket.close(code=1008, reason="too slow: the jam's messages were not read; reconnect")
    else:
        await socket.close()


async def _receive(socket: WebSocket, hub: JamHub, queue: Queue) -> None:
    limits = server_state(socket).config.limits
    bucket, strikes = TokenBucket(limits.ws_rate, limits.ws_burst), 0
    while True:
        frame = await socket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        if not bucket.take():
            strikes += 1
            if strikes >= limits.ws_strikes:
                await socket.close(code=1008, reason="too many messages")
                return
            hub.reply_error(queue, f"too many messages: at most {limits.ws_rate:g} per second; this one was dropped")
            continue
        strikes = 0
        text = frame.get("text") or ""
        if len(text) > limits.ws_message_bytes:
            await socket.close(code=1009, reason="message too big")
            return
        try:  # a frame that is not JSON, or nests too deep, is the sender's mistake; the socket stays open
            message = JAM.parse_incoming(read_frame(text, max_bytes=limits.ws_message_bytes))
        except UserError as exc:
            hub.reply_error(queue, str(exc))
            continue
        await hub.handle(message, queue)
