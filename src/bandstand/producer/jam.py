"""The jam as use cases: make a jam, start it, give the band a directive, read
its state, stop it. The server's jam routes and the MCP server's jam tools call
these (over `bandstand.jam.live.LiveJam`, which owns the jam's tasks); each
answer is the jam's state as the page sees it (a `jam_state_update`).

    jam = new_jam()                       # the default band, built-in musicians
    await start_jam(jam, ["BEAT", "GROOVE"])
    direct_jam(jam, "@GROOVE busier")     # the round runs as a task of the jam
    jam_state(jam)
    await stop_jam(jam)

Mistakes raise `UserError`s (`Conflict` when the jam is not running, an
unknown @mention as `InvalidInput`); nothing of the jam is decided here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.live import LiveJam
from bandstand.jam.persona import Persona, resolve_members
from bandstand.protocol import Emitter

__all__ = ["direct_jam", "jam_state", "new_jam", "start_jam", "stop_jam"]


def new_jam(members: Sequence[str] | None = None, *, personas: Sequence[Persona] = (),
            backend: BackendFactory = algorithmic_backend, seed: int = 0, turn_timeout: float = 30.0,
            emitter: Emitter | None = None) -> LiveJam:
    """A jam that is not playing yet: the band `members` (names of the built-in personas and
    of `personas`; default the whole built-in band), playing through `backend`. The jam's
    events go to `emitter` (subscribe to it to hear them)."""
    band = resolve_members(list(members) if members else None, list(personas))
    return LiveJam(band, emitter=emitter or Emitter(), backend=backend, seed=seed, turn_timeout=turn_timeout)


def jam_state(jam: LiveJam) -> dict[str, Any]:
    """The jam as the page sees it: running, round, members, context, autopilot."""
    return jam.state().model_dump(mode="json")


async def start_jam(jam: LiveJam, members: Sequence[str] | None = None, *, restart: bool = False) -> dict[str, Any]:
    """Start the jam with `members` (default: the whole band), checked before anything changes
    (unknown or repeated members are refused); a running jam is restarted only when `restart`."""
    await jam.start(list(members) if members else None, restart=restart)
    return jam_state(jam)


def direct_jam(jam: LiveJam, text: str, on_error: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Give the band a directive ("more energy", "@GROOVE simpler"). Mistakes in it raise now;
    its round runs in the background (a mistake found then goes to `on_error`)."""
    jam.direct(text, on_error or (lambda message: None))
    return {"accepted": text, **jam_state(jam)}


async def stop_jam(jam: LiveJam) -> dict[str, Any]:
    """Stop the jam: every task and every member's session ends. Idempotent."""
    await jam.stop()
    return jam_state(jam)
