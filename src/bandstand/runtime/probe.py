"""Probing backends: one short real turn each, to show that a configured backend answers.

Used by ``bandstand agents check --probe``. Probes run concurrently, each in
its own session with a short timeout; a failure is reported, never raised.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable

from bandstand.agents.config import AgentsConfig
from bandstand.agents.registry import make_backend
from bandstand.errors import BandstandError
from bandstand.runtime.session import Session, SessionLimits

PROBE_PERSONA = "You are a health check. Reply with the single word: ok"


async def probe(config: AgentsConfig, name: str, *, timeout: float = 30.0) -> str:
    """One turn on backend `name`; a short description of how it went."""
    try:
        backend = make_backend(name, config)
    except BandstandError as exc:
        return f"failed: {exc}"
    limits = SessionLimits(turn_timeout=timeout, start_timeout=timeout, max_consecutive_failures=1)
    session = Session(backend, name=f"probe-{name}", persona=PROBE_PERSONA, limits=limits)
    try:
        await session.start()
        started = time.perf_counter()
        result = await session.send("ok?")
        elapsed = (time.perf_counter() - started) * 1000
        return f"answered in {elapsed:.0f} ms, ${result.usage.cost_usd:.6f}"
    except BandstandError as exc:
        return f"failed: {exc}"
    finally:
        await session.stop()
        closer = getattr(backend, "aclose", None)
        if closer is not None:
            await closer()


async def probe_backends(
    config: AgentsConfig, names: Iterable[str], *, timeout: float = 30.0
) -> dict[str, str]:
    """`probe` every backend in `names` at once."""
    names = list(names)
    outcomes = await asyncio.gather(*(probe(config, n, timeout=timeout) for n in names))
    return dict(zip(names, outcomes, strict=True))
