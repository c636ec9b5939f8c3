"""What the backends that call out over HTTP share: client import, errors, breaker and retry.

Client libraries are an optional extra (``scripts/setup llm``, or ``pip install -e '.[llm]'`` from the checkout) and
are imported only when a backend is used; `import_client` turns their absence
into `BackendUnavailable` with the install command. `as_agent_error` maps a
client's exception to `TurnFailed`, retryable for rate limits, server errors,
timeouts and dropped connections. `call_out` runs one request through the
backend's circuit breaker with retry and backoff. `LazyClient` holds the one
client a backend builds on first use and closes.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any, TypeVar

from bandstand.agents.breaker import CircuitBreaker, retry
from bandstand.errors import AgentError, BackendUnavailable, TurnFailed

R = TypeVar("R")

INSTALL = "scripts/setup llm in the checkout, or pip install -e '.[llm]' from it"
RETRYABLE_STATUS = frozenset({408, 409, 429})
_TRANSIENT = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "RemoteProtocolError",
        "ReadError",
        "ConnectError",
        "ReadTimeout",
    }
)


def import_client(module: str, backend: str) -> ModuleType:
    """Import an optional client library or say what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BackendUnavailable(
            f"{backend}: the '{module}' package is not installed; run: {INSTALL}", backend=backend
        ) from exc


def as_agent_error(exc: BaseException, backend: str) -> AgentError:
    """A client exception as an `AgentError` (retryable when trying again may help)."""
    if isinstance(exc, AgentError):
        return exc
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        retryable = status in RETRYABLE_STATUS or status >= 500
        hint = "; check the API key" if status in (401, 403) else ""
        return TurnFailed(
            f"{backend}: HTTP {status}: {exc}{hint}", retryable=retryable, status=status
        )
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & _TRANSIENT or isinstance(exc, OSError):
        return TurnFailed(f"{backend}: connection failed: {exc}", retryable=True)
    return TurnFailed(f"{backend}: {type(exc).__name__}: {exc}", retryable=False)


async def call_out(
    fn: Callable[[], Awaitable[R]],
    *,
    backend: str,
    breaker: CircuitBreaker,
    attempts: int = 3,
    base_delay: float = 0.25,
) -> R:
    """One request through the breaker, retried with backoff on retryable failures."""

    async def once() -> R:
        try:
            return await fn()
        except AgentError:
            raise
        except Exception as exc:
            raise as_agent_error(exc, backend) from exc

    return await breaker.call(lambda: retry(once, attempts=attempts, base_delay=base_delay))


class LazyClient:
    """The client of one backend: built from its library on first use, closed by `aclose`."""

    def __init__(self, module: str, backend: str, build: Callable[[ModuleType], Any]) -> None:
        self._module, self._backend, self._build = module, backend, build
        self._client: Any = None

    def get(self) -> Any:
        if self._client is None:
            self._client = self._build(import_client(self._module, self._backend))
        return self._client

    async def aget(self) -> Any:
        """`get` for code on an event loop: the library (a second or so to import the first time)
        is imported in a worker thread, so a server keeps answering meanwhile."""
        if self._client is None:
            library = await asyncio.to_thread(import_client, self._module, self._backend)
            if self._client is None:
                self._client = self._build(library)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
