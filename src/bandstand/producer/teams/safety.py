"""The team's safety nets: deadlines that flow down, and generator calls through a
circuit breaker with retries.

A `Deadline` is a moment on the monotonic clock. A child gets
``min(its own limit, what is left of its parent's)`` (`Deadline.child`), so no
agent outlives the agent that started it and the team as a whole ends on
time. `guarded` runs a generator call (the craft on a worker thread, or any
awaitable) through its role's `CircuitBreaker`: every failure counts, a
failed call is retried with backoff while the deadline allows, and after
`threshold` consecutive failures the breaker refuses at once (`CircuitOpen`),
so a broken generator costs one section's time, not the whole team's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bandstand.agents.breaker import CircuitBreaker

__all__ = ["Deadline", "Threads", "guarded"]

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Deadline:
    """A moment (``time.monotonic()`` seconds) by which work must be done."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def child(self, limit: float | None) -> Deadline:
        """A child's deadline: its own limit, but never past this one."""
        return self if limit is None else Deadline(min(self.at, time.monotonic() + limit))

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at


async def guarded(breaker: CircuitBreaker, call: Callable[[], Awaitable[R]], *, deadline: Deadline,
                  attempts: int = 2, backoff: float = 0.05,
                  on_failure: Callable[[int, BaseException], None] | None = None) -> R:
    """`call()` through `breaker`, retried up to `attempts` times with backoff while `deadline`
    leaves time; `on_failure(attempt, error)` hears of every failed attempt; the last failure
    (or `CircuitOpen`, or `TimeoutError` at the deadline) is raised."""
    for attempt in range(max(1, attempts)):
        breaker.before_call()
        try:
            async with asyncio.timeout(deadline.remaining()):
                result = await call()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            breaker.failure()
            if on_failure is not None:
                on_failure(attempt + 1, exc)
            delay = backoff * 2**attempt
            if attempt == attempts - 1 or deadline.remaining() <= delay:
                raise
            await asyncio.sleep(delay)
            continue
        breaker.success()
        return result
    raise AssertionError("unreachable")


@dataclass(slots=True)
class Threads:
    """Blocking calls (the craft's generators) each on a thread of its own, awaited from the
    event loop. A call whose caller stopped waiting (a deadline, a cancel) is abandoned and ends
    on its own — it never holds up the next call; `join` waits for every call still running,
    so a finished or cancelled team leaves no thread behind."""

    _live: set[threading.Thread] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not future.done():
                future.set_result(value) if ok else future.set_exception(value)

        def work() -> None:
            try:
                try:
                    outcome: tuple[bool, Any] = (True, fn(*args))
                except BaseException as exc:  # handed to the awaiting task
                    outcome = (False, exc)
                with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
                    loop.call_soon_threadsafe(settle, *outcome)
            finally:
                with self._lock:
                    self._live.discard(threading.current_thread())

        thread = threading.Thread(target=work, name="team-generator", daemon=True)
        with self._lock:
            self._live.add(thread)
        thread.start()
        return await future

    def join(self, timeout: float = 30.0) -> bool:
        """Wait for the calls still running (at most `timeout` s); True when none is left."""
        end = time.monotonic() + timeout
        while True:
            with self._lock:
                live = list(self._live)
            if not live:
                return True
            for thread in live:
                thread.join(max(0.0, end - time.monotonic()))
            if time.monotonic() >= end:
                with self._lock:
                    return not self._live
