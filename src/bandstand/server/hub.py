"""The jam hub: one jam per server, shared by every connected page.

The hub owns the engine, its transport and autopilot tasks, and the set of
client queues. The engine's emitter broadcasts every outgoing message to all
clients; a client's own mistakes (a bad message, an unknown @mention) are
answered to that client alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from bandstand.errors import UserError
from bandstand.jam.engine import BackendFactory, JamEngine, algorithmic_backend
from bandstand.jam.persona import Persona
from bandstand.jam.transport import Transport
from bandstand.protocol import (
    BossDirective,
    Emitter,
    ErrorMessage,
    SetAutopilot,
    SetMute,
    SetSolo,
    StartJam,
    StopJam,
)

Queue = asyncio.Queue[dict[str, Any] | None]


class JamHub:
    """The server's jam and its clients."""

    def __init__(
        self,
        personas: list[Persona],
        *,
        backend: BackendFactory = algorithmic_backend,
        seed: int = 0,
        turn_timeout: float = 30.0,
    ) -> None:
        self.personas = personas
        self.make_engine: Callable[[], JamEngine] = lambda: JamEngine(
            personas, backend=backend, seed=seed, turn_timeout=turn_timeout, emitter=self.emitter
        )
        self.emitter = Emitter()
        self.emitter.subscribe(self._broadcast)
        self.clients: set[Queue] = set()
        self.engine = self.make_engine()
        self.transport: Transport | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._transport_task: asyncio.Task[None] | None = None
        self._autopilot_task: asyncio.Task[None] | None = None
        self.emitter.emit(self.engine.state())

    # ------------------------------------------------------------------ clients

    def connect(self) -> Queue:
        queue: Queue = asyncio.Queue()
        self.clients.add(queue)
        queue.put_nowait(self.emitter.private(self.engine.state()))
        return queue

    def disconnect(self, queue: Queue) -> None:
        self.clients.discard(queue)

    def _broadcast(self, data: dict[str, Any]) -> None:
        for queue in list(self.clients):
            queue.put_nowait(data)

    # ------------------------------------------------------------------ messages

    async def handle(self, message: BaseModel, reply: Queue) -> None:
        """Act on one client message; user mistakes go back to that client only."""
        try:
            if isinstance(message, StartJam):
                await self.start(message.members)
            elif isinstance(message, StopJam):
                await self.stop()
            elif isinstance(message, BossDirective):
                self.engine.parse(message.text)  # unknown @mentions fail here, to the sender
                self._spawn(self._directive(message.text, reply))
            elif isinstance(message, SetMute):
                self.engine.set_mute(message.member, message.muted)
            elif isinstance(message, SetSolo):
                self.engine.set_solo(message.member, message.soloed)
            elif isinstance(message, SetAutopilot):
                self.set_autopilot(message.enabled, message.interval)
        except UserError as exc:
            self.reply_error(reply, str(exc))

    def reply_error(self, reply: Queue, message: str) -> None:
        reply.put_nowait(self.emitter.private(ErrorMessage(message=message)))

    async def _directive(self, text: str, reply: Queue) -> None:
        try:
            await self.engine.directive(text)
        except UserError as exc:
            self.reply_error(reply, str(exc))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ the jam

    async def start(self, members: list[str] | None) -> None:
        if self.engine.running:
            await self.stop()
        pilot = self.engine.autopilot  # the autopilot switch outlives a jam
        self.engine = self.make_engine()
        self.engine.autopilot.set(pilot.enabled, pilot.interval)
        await self.engine.start(members)
        self.transport = Transport(self.engine)
        self._transport_task = asyncio.ensure_future(self.transport.run())
        if self.engine.autopilot.enabled:
            self._start_autopilot()

    async def stop(self) -> None:
        for task in (self._transport_task, self._autopilot_task, *self._tasks):
            if task is not None:
                task.cancel()
        for task in (self._transport_task, self._autopilot_task, *list(self._tasks)):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._transport_task = self._autopilot_task = None
        await self.engine.stop()

    def set_autopilot(self, enabled: bool, interval: float) -> None:
        self.engine.autopilot.set(enabled, interval)
        if self._autopilot_task is not None:
            self._autopilot_task.cancel()
            self._autopilot_task = None
        if enabled and self.engine.running:
            self._start_autopilot()
        if self.engine.running:
            self.engine.emit_state()

    def _start_autopilot(self) -> None:
        self._autopilot_task = asyncio.ensure_future(self._autopilot())

    async def _autopilot(self) -> None:
        engine = self.engine
        while engine.running and engine.autopilot.enabled:
            await asyncio.sleep(engine.autopilot.interval)
            decision = engine.autopilot.decide(has_directive=False, round_running=engine.round_running)
            if decision == "run":
                self._spawn(engine.play_round(None, [m.name for m in engine.active()]))

    async def close(self) -> None:
        await self.stop()
        for queue in list(self.clients):
            queue.put_nowait(None)
