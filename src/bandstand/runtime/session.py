"""A session: one multi-turn conversation with one agent, kept alive across turns.

    session = Session(backend, name="BEAT", persona="You are BEAT, a drummer.",
                      limits=SessionLimits(turn_timeout=5))
    await session.start()
    result = await session.send("Four on the floor, please")       # a TurnResult
    verdict = await session.ask(context, PatternReply, fallback=last_good)  # a Validated
    called = await session.send("Set up a groove", tools=TOOLS)    # called.tool_calls …
    answer = await session.send("", tool_results=[ToolResult(c.id, run(c)) for c in called.tool_calls])
    await session.stop()

Lifecycle: ``starting → waiting_for_input → processing → waiting_for_input → …``
ending in ``completed`` (closed, or a turn/cost limit reached), ``failed``
(could not start, or too many consecutive failed turns), ``timed_out`` (the
per-session wall clock) or ``stopped`` (`stop()`).

Input sent while a turn runs is queued and delivered in order, one turn each.
A turn that exceeds its timeout raises `TurnTimeout` to its sender at once;
the backend is interrupted behind it (within ``interrupt_timeout``: when that
budget ends first, the backend kills what hangs) and the next turn waits for
that, so the session goes on; a failed turn raises
`TurnFailed`. `ask` never raises for a bad reply: it validates, asks once for
a repair quoting the error, then returns the caller's fallback flagged as
such. Tool calls: a turn may offer tools; the model's calls come back in
`TurnResult.tool_calls` and the next turn must answer every one of them
(`tool_results`); the history keeps calls and results, so every backend sees
them on later turns. `stop()` works in any state, from any task, is idempotent, and closes
the backend (for `claude-code`: no process left behind). Events go to
listeners, subscribers (`events()`) and an optional JSONL log; a session
built with ``history=history_from_log(path)`` continues that conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from bandstand.agents.base import (
    AgentBackend,
    Conversation,
    Message,
    ToolResult,
    ToolSpec,
    TurnRequest,
    Usage,
)
from bandstand.agents.replies import json_schema, parse_reply, repair_prompt
from bandstand.agents.tools import check_results, pending_calls
from bandstand.errors import AgentError, InvalidInput, TurnFailed, TurnTimeout
from bandstand.runtime.events import EventLog
from bandstand.runtime.states import TERMINAL, SessionLimits, SessionState, TurnResult, Validated

__all__ = [
    "TERMINAL",
    "Listener",
    "Session",
    "SessionLimits",
    "SessionState",
    "TurnResult",
    "Validated",
]

T = TypeVar("T", bound=BaseModel)
Listener = Callable[[dict[str, Any]], None]


@dataclass(slots=True)
class _Pending:
    data: Any
    schema: Mapping[str, Any] | None
    timeout: float | None
    future: asyncio.Future[Any]
    model: type[BaseModel] | None = None
    fallback: Any = None
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str = "auto"
    tool_results: tuple[ToolResult, ...] = ()


def _as_text(value: Any) -> tuple[str, Any]:
    if isinstance(value, str):
        return value, None
    if isinstance(value, BaseModel):
        return value.model_dump_json(), value
    return json.dumps(value, ensure_ascii=False, default=str), value


@dataclass(slots=True)
class _Counters:
    turns: int = 0
    failures_in_row: int = 0
    usage: Usage = field(default_factory=Usage)


class Session:
    """A persistent conversation with one agent. See the module docstring."""

    def __init__(
        self,
        backend: AgentBackend,
        *,
        name: str = "agent",
        persona: str = "",
        options: Mapping[str, Any] | None = None,
        limits: SessionLimits | None = None,
        seed: int = 0,
        log_dir: str | Path | None = None,
        session_id: str | None = None,
        history: Sequence[Message] = (),
    ) -> None:
        self.backend = backend
        self.name = name
        self.persona = persona
        self.options: Mapping[str, Any] = dict(options or {})
        self.limits = limits or SessionLimits()
        self.seed = seed
        self.id = session_id or uuid.uuid4().hex[:12]
        self.state = SessionState.STARTING
        self.end_reason: str | None = None
        self.history: list[Message] = list(history)
        self._counters = _Counters()
        self._seq = 0
        self._listeners: list[Listener] = []
        self._subscribers: list[asyncio.Queue[dict[str, Any] | None]] = []
        self._queue: asyncio.Queue[_Pending | None] = asyncio.Queue()
        self._conv: Conversation | None = None
        self._worker: asyncio.Task[None] | None = None
        self._ending: asyncio.Task[None] | None = None
        self._start_task: asyncio.Task[None] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._recovering: asyncio.Task[None] | None = None  # the interrupt after a timed-out turn
        self._ended = asyncio.Event()
        self.log_path = Path(log_dir) / f"{name}-{self.id}.jsonl" if log_dir is not None else None
        self._log = EventLog(self.log_path) if self.log_path is not None else None

    # ------------------------------------------------------------------ public surface

    @property
    def usage(self) -> Usage:
        return self._counters.usage

    @property
    def cost_usd(self) -> float:
        return self._counters.usage.cost_usd

    @property
    def turns(self) -> int:
        return self._counters.turns

    @property
    def ended(self) -> bool:
        return self.state in TERMINAL

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(event)` for every event from now on (synchronously, in order)."""
        self._listeners.append(listener)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Every event from now on, until ``session_ended`` (included)."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        if self.ended:
            return
        self._subscribers.append(queue)
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(queue)

    async def start(self) -> None:
        """Open the backend conversation. Idempotent; raises if the backend cannot start."""
        if self._start_task is None:
            self._start_task = asyncio.ensure_future(self._do_start())
        try:
            await asyncio.shield(self._start_task)
        except asyncio.CancelledError:
            if self._start_task.cancelled():
                raise AgentError(
                    f"session {self.name} was stopped while starting", session=self.name
                ) from None
            raise

    async def send(
        self,
        data: Any,
        *,
        schema: Mapping[str, Any] | None = None,
        timeout: float | None = -1.0,
        tools: Sequence[ToolSpec] = (),
        tool_choice: str = "auto",
        tool_results: Sequence[ToolResult] = (),
    ) -> TurnResult:
        """Queue one turn and wait for its reply. ``timeout=-1`` uses the session's turn timeout.
        ``tools``/``tool_choice`` offer tools; ``tool_results`` answer the previous reply's calls."""
        pending = _Pending(data, schema, timeout, self._future(), tools=tuple(tools), tool_choice=tool_choice,
                           tool_results=tuple(tool_results))
        return await self._submit(pending)  # type: ignore[no-any-return]

    async def ask(
        self,
        data: Any,
        model: type[T],
        fallback: T | Callable[[str], T],
        *,
        timeout: float | None = -1.0,
    ) -> Validated[T]:
        """One turn whose reply must validate as `model`: repair once, else the flagged fallback."""
        pending = _Pending(data, json_schema(model), timeout, self._future(), model, fallback)
        try:
            return await self._submit(pending)  # type: ignore[no-any-return]
        except AgentError as exc:
            return Validated(_fallback(fallback, str(exc)), "fallback", str(exc), "ended")

    async def wait(self) -> str:
        """Wait until the session has ended (by a limit, a failure or `stop`); return the reason."""
        await self._ended.wait()
        return self.end_reason or ""

    async def stop(self) -> None:
        """End the session now, from any state and any task. Idempotent."""
        await self._end(SessionState.STOPPED, "stopped")

    async def close(self) -> None:
        """Finish the queued turns, then end the session as ``completed``."""
        if not self.ended and self._worker is not None:
            self._queue.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._worker)
        await self._end(SessionState.COMPLETED, "closed")

    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ lifecycle

    def _future(self) -> asyncio.Future[Any]:
        return asyncio.get_running_loop().create_future()

    async def _submit(self, pending: _Pending) -> Any:
        if self.ended or self._ending is not None:
            raise AgentError(
                f"session {self.name} has ended ({self.state.value}: {self.end_reason})",
                session=self.name,
            )
        # queued before any await: the order of calls is the order of turns, even while starting
        self._queue.put_nowait(pending)
        if self._worker is None:
            try:
                await self.start()
            except BaseException:
                if pending.future.done() and not pending.future.cancelled():
                    pending.future.exception()  # the start error is the one the caller sees
                pending.future.cancel()
                raise
        return await pending.future

    async def _do_start(self) -> None:
        self._emit("session_started", backend=self.backend.name, persona=self.persona)
        try:
            async with asyncio.timeout(self.limits.start_timeout):
                self._conv = await self.backend.open(
                    self.persona, {**self.options, "seed": self.seed}
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = "start_timeout" if isinstance(exc, TimeoutError) else f"start_failed: {exc}"
            await self._end(SessionState.FAILED, reason)
            if isinstance(exc, AgentError):
                raise
            if isinstance(exc, TimeoutError):
                raise AgentError(
                    f"session {self.name}: backend did not start in time", retryable=True
                ) from exc
            raise
        if self._ending is not None:  # stopping already: the ending task closes the conversation
            return
        self._set_state(SessionState.WAITING)
        self._worker = asyncio.create_task(self._run(), name=f"session-{self.name}")
        if self.limits.session_timeout is not None:
            loop = asyncio.get_running_loop()
            self._watchdog = loop.call_later(
                self.limits.session_timeout,
                lambda: self._begin_end(SessionState.TIMED_OUT, "session_timeout"),
            )

    async def _run(self) -> None:
        while self._ending is None:
            pending = await self._queue.get()
            if pending is None:
                return
            if pending.future.done():  # the sender gave up while queued
                continue
            try:
                if pending.model is None:
                    outcome: Any = await self._turn(pending.data, pending.schema, pending.timeout, pending)
                else:
                    outcome = await self._validated(pending)
            except asyncio.CancelledError:
                if not pending.future.done():
                    pending.future.set_exception(
                        AgentError(f"session {self.name} {self.state.value}")
                    )
                raise
            except AgentError as exc:
                if not pending.future.done():
                    pending.future.set_exception(exc)
            else:
                if not pending.future.done():
                    pending.future.set_result(outcome)
            self._check_limits()

    def _check_limits(self) -> None:
        limits, counters = self.limits, self._counters
        if counters.failures_in_row >= limits.max_consecutive_failures:
            self._begin_end(SessionState.FAILED, "too_many_failures")
        elif limits.max_turns is not None and counters.turns >= limits.max_turns:
            self._begin_end(SessionState.COMPLETED, "max_turns")
        elif limits.budget_usd is not None and counters.usage.cost_usd >= limits.budget_usd:
            self._begin_end(SessionState.COMPLETED, "budget")

    async def _turn(
        self, data: Any, schema: Mapping[str, Any] | None, timeout: float | None, tooling: _Pending | None = None
    ) -> TurnResult:
        assert self._conv is not None
        await self._recovered()
        text, structured_input = _as_text(data)
        tools, choice, results = (tooling.tools, tooling.tool_choice, tooling.tool_results) if tooling else ((), "auto", ())
        try:
            check_results(pending_calls(self.history), results)
        except InvalidInput as exc:
            raise TurnFailed(f"{self.name}: {exc}", retryable=False) from None
        n = self._counters.turns
        self._counters.turns += 1
        self._set_state(SessionState.PROCESSING)
        self._emit("turn_started", turn=n, input=text,
                   **({"tool_results": [{"call_id": r.call_id, "content": r.content, "is_error": r.is_error}
                                        for r in results]} if results else {}))
        request = TurnRequest(
            text,
            tuple(self.history),
            self.persona,
            self.name,
            self.seed,
            n,
            schema,
            structured_input,
            self.options,
            tools,
            choice,
            results,
        )
        limit = self.limits.turn_timeout if timeout == -1.0 else timeout
        started = time.perf_counter()
        try:
            async with asyncio.timeout(limit) as scope:
                reply = await self._conv.turn(
                    request, lambda kind, fields: self._emit(kind, turn=n, **fields)
                )
        except TimeoutError as exc:
            if not scope.expired():
                raise self._failed(
                    n, TurnFailed(f"turn {n} failed: {exc}", retryable=True)
                ) from exc
            error = TurnTimeout(
                f"{self.name}: turn {n} took longer than {limit} s", retryable=True, turn=n
            )
            self._failed(n, error, "timeout")
            # the sender hears now; the interrupt runs behind, and the next turn waits for it
            self._recovering = asyncio.create_task(self._interrupt(), name=f"session-{self.name}-interrupt")
            self._back_to_waiting()
            raise error from None
        except AgentError as exc:
            self._back_to_waiting()
            raise self._failed(n, exc) from None
        except Exception as exc:  # a backend bug fails the turn, never the session
            self._back_to_waiting()
            raise self._failed(
                n, TurnFailed(f"{type(exc).__name__}: {exc}", retryable=False)
            ) from exc
        duration = time.perf_counter() - started
        self.history.append(Message("user", text, tool_results=results))
        self.history.append(Message("assistant", reply.text, tool_calls=reply.tool_calls))
        self._counters.failures_in_row = 0
        self._counters.usage = self._counters.usage + reply.usage
        self._emit(
            "turn_completed",
            turn=n,
            reply=reply.text,
            duration_s=round(duration, 6),
            usage=reply.usage.as_dict(),
            cost_usd=reply.usage.cost_usd,
            meta=dict(reply.meta),
            **({"tool_calls": [{"id": c.id, "name": c.name, "arguments": dict(c.arguments), "error": c.error}
                               for c in reply.tool_calls]} if reply.tool_calls else {}),
        )
        self._back_to_waiting()
        return TurnResult(n, reply.text, reply.structured, reply.usage, duration, reply.tool_calls, dict(reply.meta))

    async def _interrupt(self) -> None:
        """Interrupt the backend after a timeout, within the session's interrupt budget
        (a backend cancelled by the budget kills what hangs)."""
        assert self._conv is not None
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.limits.interrupt_timeout):
                await self._conv.interrupt()

    async def _recovered(self) -> None:
        """Wait for the interrupt of a timed-out turn, if one is still running."""
        recovering, self._recovering = self._recovering, None
        if recovering is not None:
            with contextlib.suppress(Exception):
                await recovering

    def _failed(self, turn: int, error: AgentError, reason: str | None = None) -> AgentError:
        self._counters.failures_in_row += 1
        kind = reason or {"TurnTimeout": "timeout", "CircuitOpen": "circuit_open"}.get(
            type(error).__name__, "error"
        )
        self._emit(
            "turn_failed", turn=turn, reason=kind, error=str(error), retryable=error.retryable
        )
        return error

    async def _validated(self, pending: _Pending) -> Validated[Any]:
        model, fallback = pending.model, pending.fallback
        assert model is not None
        try:
            first = await self._turn(pending.data, pending.schema, pending.timeout)
        except TurnTimeout as exc:
            return Validated(_fallback(fallback, str(exc)), "fallback", str(exc), "timeout")
        except AgentError as exc:
            return Validated(_fallback(fallback, str(exc)), "fallback", str(exc), "failed")
        parsed = parse_reply(_payload(first), model)
        if parsed.ok:
            return Validated(parsed.value, "ok", turn=first)
        error = parsed.error or "invalid reply"
        self._emit("reply_invalid", turn=first.turn, error=error, action="repair")
        try:
            second = await self._turn(repair_prompt(error, model), pending.schema, pending.timeout)
        except AgentError as exc:
            return Validated(
                _fallback(fallback, error), "fallback", f"{error}; repair: {exc}", "invalid"
            )
        repaired = parse_reply(_payload(second), model)
        if repaired.ok:
            return Validated(repaired.value, "repaired", error, turn=second)
        final = repaired.error or error
        self._emit("reply_invalid", turn=second.turn, error=final, action="fallback")
        return Validated(_fallback(fallback, final), "fallback", final, "invalid", second)

    def _back_to_waiting(self) -> None:
        if not self.ended:
            self._set_state(SessionState.WAITING)

    def _begin_end(self, state: SessionState, reason: str) -> None:
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._do_end(state, reason))

    async def _end(self, state: SessionState, reason: str) -> None:
        self._begin_end(state, reason)
        assert self._ending is not None
        await asyncio.shield(self._ending)

    async def _do_end(self, state: SessionState, reason: str) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        self.end_reason = reason
        self._set_state(state)
        worker, current = self._worker, asyncio.current_task()
        if worker is not None and worker is not current and not worker.done():
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await worker
        if (
            self._start_task is not None
            and self._start_task is not current
            and not self._start_task.done()
        ):
            self._start_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._start_task
        if self._recovering is not None and not self._recovering.done():
            self._recovering.cancel()  # the conversation is closed below; a cancelled interrupt kills at once
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._recovering
        while not self._queue.empty():
            pending = self._queue.get_nowait()
            if pending is not None and not pending.future.done():
                pending.future.set_exception(
                    AgentError(f"session {self.name} ended ({reason})", session=self.name)
                )
        if self._conv is not None:
            with contextlib.suppress(Exception):
                await self._conv.close()
        self._emit(
            "session_ended",
            reason=reason,
            state=state.value,
            turns=self._counters.turns,
            cost_usd=self.cost_usd,
        )
        for queue in self._subscribers:
            queue.put_nowait(None)
        if self._log is not None:
            self._log.close()
        self._ended.set()

    # ------------------------------------------------------------------ events

    def _set_state(self, state: SessionState) -> None:
        if state is self.state:
            return
        previous, self.state = self.state, state
        self._emit("state_changed", from_state=previous.value, to_state=state.value)

    def _emit(self, kind: str, **fields: Any) -> None:
        self._seq += 1
        event = {
            "type": kind,
            "session": self.name,
            "session_id": self.id,
            "seq": self._seq,
            "ts": time.time(),
        }
        event.update(fields)
        if self._log is not None:
            self._log.write(event)
        for listener in self._listeners:
            with contextlib.suppress(Exception):  # a listener's bug never stops the session
                listener(event)
        for queue in self._subscribers:
            queue.put_nowait(event)


def _payload(result: TurnResult) -> Any:
    return result.structured if isinstance(result.structured, dict) else result.text


def _fallback(fallback: Any, error: str) -> Any:
    return (
        fallback if isinstance(fallback, BaseModel) or not callable(fallback) else fallback(error)
    )
