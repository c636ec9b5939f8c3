"""The jam as use cases: make a jam, start it, give the band a directive, read
its state, stop it. `App`'s jam methods call these — the server's jam routes and
hub, the MCP server's jam tools and the CLI reach them through `App` — over
`bandstand.jam.live.LiveJam`, which owns the jam's tasks; each answer is the
jam's state as the page sees it (a `jam_state_update`).

    jam = new_jam()                       # the default band, built-in musicians
    await start_jam(jam, ["BEAT", "GROOVE"])
    direct_jam(jam, "@GROOVE busier")     # the round runs as a task of the jam
    jam_state(jam)
    await stop_jam(jam)
    await stop_and_record(jam, projects, audio=False)   # stopped, its recording in projects/jams/

The server's WebSocket hub builds its jam with `band_jam` (`App.band_jam`) and starts,
directs and stops it through these; the jam's types (`LiveJam`, `Persona`, `BackendFactory`,
`RECORDING_FILES`) and the band's makers (`load_persona`, `resolve_members`,
`member_factory`, `backend_factory`) are re-exported here for `App` (`App.jam_members`,
`App.load_persona`, `App.jam_backend`, `App.jam_file`); the headless jam is
`producer.jams.jam_headless` (`App.record_jam`).

Mistakes raise `UserError`s (`Conflict` when the jam is not running, an
unknown @mention as `InvalidInput`); nothing of the jam is decided here.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from bandstand.jam.backends import backend_factory, member_factory
from bandstand.jam.engine import BackendFactory, algorithmic_backend
from bandstand.jam.live import RECORDING_FILES, LiveJam
from bandstand.jam.persona import Persona, load_persona, resolve_members
from bandstand.protocol import Emitter
from bandstand.protocol.jsonvalue import JSONObject

__all__ = ["RECORDING_FILES", "BackendFactory", "LiveJam", "Persona", "algorithmic_backend", "backend_factory",
           "band_jam", "direct_jam", "jam_state", "load_persona", "member_factory", "new_jam", "recording_folder",
           "resolve_members", "start_jam", "stop_and_record", "stop_jam"]


def new_jam(members: Sequence[str] | None = None, *, personas: Sequence[Persona] = (),
            backend: BackendFactory = algorithmic_backend, seed: int = 0, turn_timeout: float = 30.0,
            emitter: Emitter | None = None) -> LiveJam:
    """A jam that is not playing yet: the band `members` (names of the built-in personas and
    of `personas`; default the whole built-in band), playing through `backend`. The jam's
    events go to `emitter` (subscribe to it to hear them)."""
    band = resolve_members(list(members) if members else None, list(personas))
    return LiveJam(band, emitter=emitter or Emitter(), backend=backend, seed=seed, turn_timeout=turn_timeout)


def band_jam(band: Sequence[Persona], *, emitter: Emitter, backend: BackendFactory = algorithmic_backend,
             seed: int = 0, turn_timeout: float = 30.0, autopilot: bool = True) -> LiveJam:
    """A jam of the personas `band` as they are (a server's band, chosen at its start), its events
    to `emitter`."""
    return LiveJam(list(band), emitter=emitter, backend=backend, seed=seed, turn_timeout=turn_timeout,
                   autopilot=autopilot)


def jam_state(jam: LiveJam) -> JSONObject:
    """The jam as the page sees it: running, round, members, context, autopilot."""
    return jam.state().model_dump(mode="json")


async def start_jam(jam: LiveJam, members: Sequence[str] | None = None, *, restart: bool = False) -> JSONObject:
    """Start the jam with `members` (default: the whole band), checked before anything changes
    (unknown or repeated members are refused); a running jam is restarted only when `restart`."""
    await jam.start(list(members) if members else None, restart=restart)
    return jam_state(jam)


def direct_jam(jam: LiveJam, text: str, on_error: Callable[[str], None] | None = None) -> JSONObject:
    """Give the band a directive ("more energy", "@GROOVE simpler"). Mistakes in it raise now;
    its round runs in the background (a mistake found then goes to `on_error`)."""
    jam.direct(text, on_error or (lambda message: None))
    return {"accepted": text, **jam_state(jam)}


async def stop_jam(jam: LiveJam) -> JSONObject:
    """Stop the jam: every task and every member's session ends. Idempotent."""
    await jam.stop()
    return jam_state(jam)


def recording_folder(projects: str | os.PathLike[str]) -> Path:
    """A new folder for a jam's recording, under the projects: `jams/jam-YYYYmmdd-HHMMSS-ffffff`."""
    return Path(projects).expanduser().resolve() / "jams" / f"jam-{dt.datetime.now():%Y%m%d-%H%M%S-%f}"


async def stop_and_record(jam: LiveJam, projects: str | os.PathLike[str], *, save: bool = True,
                          audio: bool = False) -> JSONObject:
    """Stop the jam and, when it played and `save`, write its recording (the MIDI — the WAV too
    when `audio` —, a transcript, one JSON line per round) into a new `recording_folder`. The
    jam's state, with `recording`: the folder and its files, or None."""
    played = jam.transport is not None and bool(jam.transport.played)
    state = await stop_jam(jam)
    if not (save and played):
        return {**state, "recording": None}
    folder = recording_folder(projects)
    await jam.export("jam.wav" if audio else "jam.mid", folder)
    files = sorted(str(f) for f in folder.iterdir() if f.is_file())
    return {**state, "recording": {"folder": str(folder), "files": files}}
