"""A live jam: the use case behind the jam page, the HTTP API and MCP's jam tools.

`LiveJam` owns one jam at a time — the engine, its transport clock, the
autopilot loop and the rounds started by directives — and every task it
starts: `stop()` cancels them all and ends every member's session. Clients
(the server's hub, MCP) translate their messages into these calls and relay
the engine's emitter; they decide nothing themselves.

A directive is parsed at once (an unknown @mention is the caller's mistake,
raised to it), then its round runs as a task of the jam, so a slow member
never holds up the caller. Recordings are rendered off the event loop, one
at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from bandstand.errors import Conflict, InvalidInput, NotFound, UserError
from bandstand.jam.autopilot import run_autopilot
from bandstand.jam.engine import BackendFactory, JamEngine, algorithmic_backend
from bandstand.jam.persona import Persona
from bandstand.jam.recording import export
from bandstand.jam.transport import Transport
from bandstand.protocol import ChatHistory, Emitter, JamStateUpdate

RECORDING_FILES = {
    "jam.mid": "audio/midi",
    "jam.wav": "audio/wav",
    "transcript.md": "text/markdown; charset=utf-8",
    "rounds.jsonl": "application/jsonl",
}
"""The files of a jam's recording and their media types."""

CHAT_TYPES = frozenset({"agent_thought", "boss_directive_echo", "musical_context_update", "code_override"})
"""The messages the chat shows, kept so a tab that connects later sees them too (and the jam's
starts and stops: the state updates that switch `running`, without their members and layers)."""
_STATE_IN_CHAT = ("type", "seq", "protocolVersion", "running", "round", "context")
CHAT_HISTORY = 300
"""How many chat messages a jam keeps for tabs that connect later (older ones are forgotten)."""

ErrorSink = Callable[[str], None]


class LiveJam:
    """One live jam and all the tasks it runs. See the module docstring."""

    def __init__(
        self,
        personas: list[Persona],
        *,
        emitter: Emitter,
        backend: BackendFactory = algorithmic_backend,
        seed: int = 0,
        turn_timeout: float = 30.0,
        autopilot: bool = True,
    ) -> None:
        self.personas = personas
        self.emitter = emitter
        self._make_engine: Callable[[], JamEngine] = lambda: JamEngine(
            personas, backend=backend, seed=seed, turn_timeout=turn_timeout, emitter=emitter
        )
        self.engine = self._make_engine()
        self.engine.autopilot.set(autopilot)  # on by default; the switch outlives a jam
        self.transport: Transport | None = None
        self._transport_task: asyncio.Task[None] | None = None
        self._autopilot_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._export_lock = asyncio.Lock()
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_HISTORY)
        self._chat_running = False
        emitter.subscribe(self._remember)

    @property
    def running(self) -> bool:
        return self.engine.running

    def state(self) -> JamStateUpdate:
        return self.engine.state()

    def chat_history(self) -> ChatHistory:
        """The chat so far (the last `CHAT_HISTORY` messages, as they were sent), for a new tab."""
        return ChatHistory(messages=list(self.chat))

    def _remember(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        if kind in CHAT_TYPES:
            self.chat.append(data)
        elif kind == "jam_state_update" and data.get("running") != self._chat_running:
            self._chat_running = bool(data.get("running"))
            self.chat.append({k: data[k] for k in _STATE_IN_CHAT if k in data})

    # ------------------------------------------------------------------ the jam

    def check_members(self, members: list[str] | None) -> list[str] | None:
        """`members` checked before anything changes: each one in the band, none twice (names
        are case-blind); None or empty is the whole band. Returns the names as the band spells them."""
        if not members:
            return None
        band = {p.name.upper(): p.name for p in self.personas}
        unknown = [m for m in members if m.strip().upper() not in band]
        if unknown:
            raise InvalidInput(f"unknown member(s) {', '.join(unknown)}; the band is {', '.join(band.values())}")
        names = [band[m.strip().upper()] for m in members]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InvalidInput(f"{', '.join(twice)} named more than once; name each member once")
        return names

    async def start(self, members: list[str] | None = None, *, restart: bool = False) -> None:
        """Start a jam with `members` (default: the whole band). The request is checked first; a
        running jam is stopped and started again only when `restart` says so (else `Conflict`)."""
        names = self.check_members(members)
        if self.engine.running:
            if not restart:
                raise Conflict("the jam is already playing; stop it first, or send restart: true to start it again")
            await self.stop()
        pilot = self.engine.autopilot  # the autopilot switch outlives a jam
        self.engine = self._make_engine()
        self.engine.autopilot.set(pilot.enabled, pilot.interval)
        await self.engine.start(names)
        self.transport = Transport(self.engine)
        self._transport_task = asyncio.ensure_future(self.transport.run())
        if self.engine.autopilot.enabled:
            self._start_autopilot()

    async def stop(self) -> None:
        """Stop the jam: cancel the clock, the autopilot and every round; end the sessions. Idempotent."""
        tasks = [t for t in (self._transport_task, self._autopilot_task, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._transport_task = self._autopilot_task = None
        await self.engine.stop()

    def direct(self, text: str, on_error: ErrorSink) -> None:
        """Give a boss directive: mistakes in it raise now; its round runs as a task of the jam
        (a mistake found while it runs goes to `on_error`)."""
        if not self.engine.running:
            raise Conflict("start the jam before giving directives")
        self.engine.parse(text)  # unknown @mentions fail here, to the caller
        self._spawn(self._directive(text, on_error))

    def set_mute(self, member: str, muted: bool) -> None:
        self.engine.set_mute(member, muted)

    def set_solo(self, member: str, soloed: bool) -> None:
        self.engine.set_solo(member, soloed)

    def set_volume(self, member: str, volume: float) -> None:
        self.engine.set_volume(member, volume)

    def set_tempo(self, bpm: float) -> None:
        self.engine.set_tempo(bpm)

    def set_energy(self, level: int, on_error: ErrorSink) -> None:
        """The energy control: a round for the whole band, run as a task of the jam."""
        if not self.engine.running:
            raise Conflict("start the jam before changing its energy")
        self._spawn(self._guarded(self.engine.set_energy(level), on_error))

    async def override_code(self, member: str, code: str) -> None:
        """The boss's own pattern for `member`: refused (raised) unless it validates."""
        await self.engine.override_member_code(member, code)

    def set_autopilot(self, enabled: bool, interval: float) -> None:
        """Switch the autopilot; a running jam restarts its loop with the new interval."""
        self.engine.autopilot.set(enabled, interval)
        if self._autopilot_task is not None:
            self._autopilot_task.cancel()
            self._autopilot_task = None
        if enabled and self.engine.running:
            self._start_autopilot()
        if self.engine.running:
            self.engine.emit_state()

    async def close(self) -> None:
        await self.stop()

    # ------------------------------------------------------------------ the recording

    async def export(self, name: str, folder: Path) -> Path:
        """Write the last jam's recording file `name` into `folder` (rendered off the event loop,
        one export at a time); `NotFound` for an unknown name or when nothing was played."""
        if name not in RECORDING_FILES:
            raise NotFound(f"no such recording file {name!r}; one of {', '.join(RECORDING_FILES)}")
        if self.transport is None or not self.transport.played:
            raise NotFound("nothing recorded yet: start a jam first")

        played = list(self.transport.played)
        async with self._export_lock:
            # the chat and the rounds never wait for (or depend on) the song
            await asyncio.to_thread(export, self.engine, played, folder, wav=name == "jam.wav", midi=name == "jam.mid")
        return folder / name

    # ------------------------------------------------------------------ tasks

    async def _directive(self, text: str, on_error: ErrorSink) -> None:
        await self._guarded(self.engine.directive(text), on_error)

    @staticmethod
    async def _guarded(round_: Coroutine[Any, Any, Any], on_error: ErrorSink) -> None:
        try:
            await round_
        except UserError as exc:
            on_error(str(exc))

    def _start_autopilot(self) -> None:
        engine = self.engine
        self._autopilot_task = asyncio.ensure_future(
            run_autopilot(engine, lambda: self._spawn(engine.autopilot_round()))
        )

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
