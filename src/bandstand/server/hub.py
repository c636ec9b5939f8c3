"""The jam hub: the server's adapter between WebSocket clients and the live jam.

The hub keeps the clients' queues and relays the jam's emitter to all of them;
each client message is translated into one `LiveJam` call through a table.
A client's queue is bounded (`queue_size` messages): a client that does not
read what it is sent (a stalled tab, a script that never reads) is dropped
when its queue is full — its socket is closed with 1008 — so it never makes
the server's memory grow and never holds up the others.
A client's own mistakes (a bad message, an unknown @mention) are answered to
that client alone. The jam's logic (rounds, autopilot, tasks) is in
`bandstand.jam.live`; the hub reaches its use cases through `bandstand.producer.App`
(the live jam's own controls — mute, solo, volume, tempo, energy, code, autopilot — directly).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from bandstand.errors import Conflict, UserError
from bandstand.producer import App
from bandstand.producer.app import JamRecording
from bandstand.protocol import (
    BossDirective,
    Emitter,
    ErrorMessage,
    JamKept,
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

if TYPE_CHECKING:
    from bandstand.producer.app import BackendFactory, LiveJam, Persona

Queue = asyncio.Queue[dict[str, Any] | None]
QUEUE_SIZE = 1024
"""Messages waiting for one client at most (a jam sends a few per second; a client this far
behind is not listening)."""
UNRECORDED = JamRecording(save=False)
"""A jam stopped from a page or the HTTP API saves no recording of its own: its files are fetched
(`/api/v1/jam/recordings/…`) or the jam is kept as a song."""
Handler = Callable[["JamHub", Any, Queue], Awaitable[object] | None]

HANDLERS: dict[type[BaseModel], Handler] = {
    StartJam: lambda hub, m, q: hub.app.start_jam(hub.jam, m.members, restart=m.restart),
    StopJam: lambda hub, m, q: hub.app.stop_jam(hub.jam, UNRECORDED),
    BossDirective: lambda hub, m, q: _directed(hub.app.direct_jam(hub.jam, m.text,
                                                                  lambda error: hub.reply_error(q, error))),
    SetMute: lambda hub, m, q: hub.jam.set_mute(m.member, m.muted),
    SetSolo: lambda hub, m, q: hub.jam.set_solo(m.member, m.soloed),
    SetAutopilot: lambda hub, m, q: hub.jam.set_autopilot(m.enabled, m.interval),
    SetVolume: lambda hub, m, q: hub.jam.set_volume(m.member, m.volume),
    SetTempo: lambda hub, m, q: hub.jam.set_tempo(m.bpm),
    SetEnergy: lambda hub, m, q: hub.jam.set_energy(m.level, lambda error: hub.reply_error(q, error)),
    OverrideCode: lambda hub, m, q: hub.jam.override_code(m.member, m.code),
    KeepJam: lambda hub, m, q: hub.keep(m.title, q),
}
"""Client message type → the jam use case (`App`) or live-jam control it stands for."""


def _directed(state: dict[str, Any]) -> None:
    """A directive's answer is the round it starts; the clients hear it from the jam's emitter."""


class JamHub:
    """The server's jam and its clients."""

    app: App
    jam: LiveJam
    clients: set[Queue]

    def __init__(
        self,
        personas: list[Persona],
        *,
        backend: BackendFactory | None = None,
        seed: int = 0,
        turn_timeout: float = 30.0,
        queue_size: int = QUEUE_SIZE,
        autopilot: bool = True,
        projects: str | os.PathLike[str] | None = None,
    ) -> None:
        self.emitter = Emitter()
        self.emitter.subscribe(self._broadcast)
        self.clients: set[Queue] = set()
        self.queue_size = queue_size
        self.projects = projects
        # a server without projects keeps no jam (`kept` refuses) and records none where it stops
        self.app = App(Path(projects)) if projects is not None else App()
        self._dropped: set[Queue] = set()
        self.jam = self.app.band_jam(personas, emitter=self.emitter, backend=backend, seed=seed,
                                     turn_timeout=turn_timeout, autopilot=autopilot)
        self.emitter.emit(self.jam.state())

    def connect(self) -> Queue:
        """A new client: its queue, starting with the current state, the chat so far and, in a running jam, the
        events of the cycle playing now and the one sent ahead (so it joins at the current
        position instead of waiting for the next cycle)."""
        queue: Queue = asyncio.Queue(self.queue_size)
        self.clients.add(queue)
        queue.put_nowait(self.emitter.private(self.jam.state()))
        queue.put_nowait(self.emitter.private(self.jam.chat_history()))
        transport = self.jam.transport
        if self.jam.running and transport is not None:
            for message in transport.recent:
                queue.put_nowait(self.emitter.private(message))
        return queue

    def disconnect(self, queue: Queue) -> None:
        self.clients.discard(queue)
        self._dropped.discard(queue)

    def dropped(self, queue: Queue) -> bool:
        """Whether this client was dropped for not reading its messages."""
        return queue in self._dropped

    def _broadcast(self, data: dict[str, Any]) -> None:
        for queue in list(self.clients):
            self._send(queue, data)

    def _send(self, queue: Queue, data: dict[str, Any]) -> None:
        """Queue `data` for one client; a full queue drops the client: what it holds is let go
        and its sender is told to close the socket."""
        try:
            queue.put_nowait(data)
        except asyncio.QueueFull:
            self.clients.discard(queue)
            self._dropped.add(queue)
            while not queue.empty():
                queue.get_nowait()
            queue.put_nowait(None)

    async def handle(self, message: BaseModel, reply: Queue) -> None:
        """Act on one client message; user mistakes go back to that client only."""
        try:
            await self.act(message, reply)
        except UserError as exc:
            self.reply_error(reply, str(exc))

    async def act(self, message: BaseModel, reply: Queue | None = None) -> None:
        """Act on one message (from the socket or the HTTP API); user mistakes raise.
        A mistake found later, while a directive's round runs, goes to `reply` if given."""
        outcome = HANDLERS[type(message)](self, message, reply or asyncio.Queue())
        if outcome is not None:
            await outcome

    async def keep(self, title: str, reply: Queue) -> None:
        """"Keep this" from a client: the answer (`jam_kept`) goes to the client that asked."""
        self._send(reply, self.emitter.private(await self.kept(title)))

    async def kept(self, title: str = "") -> JamKept:
        """The jam so far as a song project among the server's projects (see `App.keep_jam`)."""
        if self.projects is None:
            raise Conflict("this server keeps no projects, so a jam cannot be kept (start it with --out DIR)")
        song = await self.app.keep_jam(self.jam, title=title)
        return JamKept(project=song.session.session_dir.name, form=list(song.form), left_out=list(song.left_out))

    def reply_error(self, reply: Queue, message: str) -> None:
        if reply not in self._dropped:
            self._send(reply, self.emitter.private(ErrorMessage(message=message)))

    async def close(self) -> None:
        """Stop the jam and tell every client's sender to finish."""
        await self.jam.close()
        for queue in list(self.clients):
            if queue.full():
                queue.get_nowait()  # the last word is the end
            queue.put_nowait(None)
