"""A circuit breaker and retry with backoff, shared by every backend that calls out.

The breaker counts consecutive failures. At `threshold` it *opens*: calls are
refused at once with `CircuitOpen` for `cooldown` seconds. Then it is
*half-open*: one probe call goes through; success closes it, failure opens it
again for another cooldown. Only failures that say something about the
dependency count (`counts(exc)`: retryable errors, timeouts, crashes), not a
bad request.

`retry` calls an async function again after a retryable failure, with
exponential backoff (``base · 2^attempt``, capped), inside whatever deadline
the caller holds. The clock and sleep are injectable so tests need no waiting.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bandstand.errors import AgentError, CircuitOpen

R = TypeVar("R")

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"


def counts(exc: BaseException) -> bool:
    """Does this failure count against the dependency's health?"""
    return isinstance(exc, TimeoutError | OSError) or bool(getattr(exc, "retryable", False))


class CircuitBreaker:
    """Consecutive-failure threshold, cooldown, half-open probe."""

    def __init__(
        self,
        *,
        threshold: int = 5,
        cooldown: float = 30.0,
        name: str = "backend",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self.name = name
        self._clock = clock
        self.failures = 0
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> str:
        if self._opened_at is None:
            return CLOSED
        return HALF_OPEN if self._clock() - self._opened_at >= self.cooldown else OPEN

    def before_call(self) -> None:
        """Raise `CircuitOpen` if a call may not go through now."""
        state = self.state
        if state == CLOSED:
            return
        if state == HALF_OPEN and not self._probing:
            self._probing = True
            return
        assert self._opened_at is not None
        wait = max(0.0, self.cooldown - (self._clock() - self._opened_at))
        raise CircuitOpen(
            f"{self.name}: circuit open after {self.failures} consecutive failures; next try in {wait:.1f} s",
            retryable=True,
            failures=self.failures,
        )

    def success(self) -> None:
        self.failures = 0
        self._opened_at = None
        self._probing = False

    def failure(self) -> None:
        self.failures += 1
        if self._probing or self.failures >= self.threshold:
            self._opened_at = self._clock()
        self._probing = False

    async def call(self, fn: Callable[[], Awaitable[R]]) -> R:
        """Run `fn` through the breaker."""
        self.before_call()
        try:
            result = await fn()
        except BaseException as exc:
            if counts(exc):
                self.failure()
            else:
                self._probing = False
            raise
        self.success()
        return result


async def retry(
    fn: Callable[[], Awaitable[R]],
    *,
    attempts: int = 3,
    base_delay: float = 0.25,
    max_delay: float = 4.0,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> R:
    """Call `fn` up to `attempts` times while it fails with a retryable `AgentError`.

    `attempts` below 1 still calls once: a backend configured with `retries = 0`
    means "never retry", not "never call". `sleep` is `asyncio.sleep` unless given (looked up
    here, so that importing the breaker does not load asyncio)."""
    if sleep is None:
        import asyncio

        sleep = asyncio.sleep
    attempts = max(1, attempts)
    for attempt in range(attempts):
        try:
            return await fn()
        except CircuitOpen:
            raise
        except AgentError as exc:
            if not exc.retryable or attempt == attempts - 1:
                raise
        await sleep(min(max_delay, base_delay * 2**attempt))
    raise AssertionError("unreachable")
