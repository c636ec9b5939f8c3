"""How a request's work runs: off the event loop, bounded and cancellable.

A request gets a `Control`: a cancel flag (set when the client goes away or
cancels), a deadline (none unless given) and a progress sink. Its work runs
on a worker thread (`WORKERS`, or the caller's) and looks at the control
between steps, tool calls, generated parts, compose nodes, takes and render
stages (`check`), so a cancelled request stops within one step, keeps nothing
half-made and leaves nothing running; long use cases (compose, alternatives,
an audio export) tell how far they got (`report`: done, total, message — MCP
sends it as progress notifications). A language
model's turn runs on the event loop the request came from (`on_loop`), inside
its own timeout, the request's deadline, a circuit breaker and retries; so does
every generator call (its own timeout, breaker and a retry).
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from bandstand.agents.breaker import CircuitBreaker, retry
from bandstand.errors import RuntimeFailure, Signal

if TYPE_CHECKING:
    import asyncio

__all__ = ["BREAKERS", "WORKERS", "Cancelled", "Control", "Progress", "guarded_generator", "on_loop"]

T = TypeVar("T")
WORKERS = concurrent.futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="studio")
"""The threads requests do their work on (never the event loop)."""
BREAKERS: dict[str, CircuitBreaker] = {
    "generator": CircuitBreaker(threshold=5, cooldown=30.0, name="the built-in musicians"),
    "model": CircuitBreaker(threshold=5, cooldown=30.0, name="the language model"),
}
"""One breaker per kind of dependency, shared by every request of the process."""


class Cancelled(Signal):
    """The request was cancelled (its client went away, or cancelled it): its work stops here."""


# done, total (None when not known yet), what is happening now
Progress = Callable[[float, float | None, str], None]


def _silent(done: float, total: float | None, message: str) -> None:
    return None


@dataclass(slots=True)
class Control:
    """A request's cancel flag, deadline (monotonic seconds; `timeout` inf: none) and progress
    sink. Both hooks are thread-safe: the work runs on a worker thread, the client cancels from
    wherever it is."""

    timeout: float = math.inf
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    progress: Progress = _silent

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()

    def report(self, done: float, total: float | None, message: str) -> None:
        self.progress(done, total, message)

    @property
    def deadline(self) -> float:
        return self.started + self.timeout

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def check(self, doing: str = "") -> None:
        """Raise `Cancelled` when the client went away or cancelled (naming what was being done),
        `TimeoutError` past the deadline."""
        if self.cancel.is_set():
            raise Cancelled(f"cancelled while {doing}" if doing else "the client went away")
        if time.monotonic() > self.deadline:
            raise TimeoutError(f"the request took longer than its {self.timeout:g} s")


def on_loop(loop: asyncio.AbstractEventLoop, control: Control, make: Callable[[], Awaitable[T]], *,
            timeout: float, breaker: str = "model", attempts: int = 2) -> T:
    """From a worker thread: run the coroutine `make()` on `loop` (a model's turn) within
    `timeout`, the request's deadline, the breaker and retries; cancelled with the request."""
    import asyncio  # here: a compose that never calls a model does not load asyncio

    control.check()
    limit = min(timeout, control.remaining())

    async def once() -> T:
        return await asyncio.wait_for(make(), timeout=limit)

    async def guarded() -> T:
        return await BREAKERS[breaker].call(lambda: retry(once, attempts=attempts, base_delay=0.2))

    future = asyncio.run_coroutine_threadsafe(guarded(), loop)
    while True:
        try:
            return future.result(timeout=0.05)
        except concurrent.futures.TimeoutError:
            if control.cancel.is_set() or time.monotonic() > control.deadline + 1.0:
                future.cancel()
                control.check()
                raise TimeoutError("the language model did not answer in time") from None


def guarded_generator(control: Control, generate: Callable[..., Any], *, timeout: float) -> Callable[..., Any]:
    """A part generator that checks the request first, goes through the generators' breaker,
    is tried twice when it fails, and may not take longer than `timeout` (checked when it
    returns: a part is made in tens of milliseconds, so a slow one means something is wrong)."""
    breaker = BREAKERS["generator"]

    def run(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(2):
            control.check()
            breaker.before_call()
            began = time.monotonic()
            try:
                made = generate(*args, **kwargs)
            except RuntimeFailure:
                breaker.failure()
                if attempt == 1:
                    raise
                continue
            if time.monotonic() - began > timeout:
                breaker.failure()
                raise TimeoutError(f"a part took longer than {timeout:g} s to write")
            breaker.success()
            return made
        raise AssertionError("unreachable")

    return run
