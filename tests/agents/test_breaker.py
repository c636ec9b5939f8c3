"""Circuit breaker states and retry with backoff (an injected clock and sleep: no waiting)."""

from __future__ import annotations

import pytest

from bandstand.agents.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker, retry
from bandstand.errors import CircuitOpen, TurnFailed


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def fail_retryable() -> None:
    raise TurnFailed("server error", retryable=True)


async def fail_bad_request() -> None:
    raise TurnFailed("bad request", retryable=False)


async def succeed() -> str:
    return "ok"


async def test_opens_at_threshold_then_half_open_probe_closes() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=3, cooldown=10, clock=clock)
    for _ in range(3):
        with pytest.raises(TurnFailed):
            await breaker.call(fail_retryable)
    assert breaker.state == OPEN
    with pytest.raises(CircuitOpen, match="3 consecutive failures"):
        await breaker.call(succeed)
    clock.now = 10.0
    assert breaker.state == HALF_OPEN
    assert await breaker.call(succeed) == "ok"
    assert breaker.state == CLOSED and breaker.failures == 0


async def test_failed_probe_reopens_for_another_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=1, cooldown=5, clock=clock)
    with pytest.raises(TurnFailed):
        await breaker.call(fail_retryable)
    clock.now = 5.0
    with pytest.raises(TurnFailed):
        await breaker.call(fail_retryable)  # the probe
    assert breaker.state == OPEN
    clock.now = 9.9
    with pytest.raises(CircuitOpen):
        await breaker.call(succeed)
    clock.now = 10.0
    assert await breaker.call(succeed) == "ok"


async def test_only_one_probe_while_half_open() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=1, cooldown=1, clock=clock)
    breaker.failure()
    clock.now = 1.0
    breaker.before_call()  # the probe is in flight
    with pytest.raises(CircuitOpen):
        breaker.before_call()


async def test_bad_requests_do_not_count() -> None:
    breaker = CircuitBreaker(threshold=2)
    for _ in range(5):
        with pytest.raises(TurnFailed):
            await breaker.call(fail_bad_request)
    assert breaker.state == CLOSED


async def test_success_resets_the_count() -> None:
    breaker = CircuitBreaker(threshold=2)
    with pytest.raises(TurnFailed):
        await breaker.call(fail_retryable)
    await breaker.call(succeed)
    with pytest.raises(TurnFailed):
        await breaker.call(fail_retryable)
    assert breaker.state == CLOSED


async def test_retry_backs_off_exponentially_and_gives_up() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    calls = 0

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise TurnFailed("503", retryable=True)
        return "done"

    assert await retry(flaky, attempts=4, base_delay=0.5, sleep=sleep) == "done"
    assert delays == [0.5, 1.0]
    delays.clear()
    with pytest.raises(TurnFailed):
        await retry(fail_retryable, attempts=5, base_delay=1, max_delay=3, sleep=sleep)
    assert delays == [1, 2, 3, 3]


async def test_retry_does_not_repeat_non_retryable_errors() -> None:
    async def sleep(seconds: float) -> None:
        raise AssertionError("must not sleep")

    with pytest.raises(TurnFailed, match="bad request"):
        await retry(fail_bad_request, sleep=sleep)


async def test_zero_retries_still_calls_once() -> None:
    from bandstand.agents.breaker import retry

    calls = []

    async def once() -> str:
        calls.append(1)
        return "played"

    assert await retry(once, attempts=0) == "played"
    assert calls == [1]
