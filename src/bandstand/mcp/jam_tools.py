"""The band's tools for talking about a song and for the jam: `ask` (a question
about a project → an answer from its figures, or the language model's when
one is configured: `producer.requests.direct.ask`, as `bandstand ask`) and `jam_start`, `jam_direct`,
`jam_state`, `jam_stop` (the recording saved where `App.stop_jam` puts it), and `jam_keep`
(the jam so far as a song project, `App.keep_jam`) — the same use cases of `App` the jam's
HTTP routes and WebSocket call. The jam lives on the server's event loop (its clock and
rounds are tasks there), so the jam tools run on the loop; a directive's
round runs in the background, and a mistake found while it runs is reported
by the next `jam_state`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from pydantic import Field

from bandstand.errors import Conflict
from bandstand.mcp.band import Answer, Band
from bandstand.mcp.band_tools import BandTool, Params, ProjectParams
from bandstand.producer import App
from bandstand.producer.app import Control, JamRecording, WordsRequest

__all__ = ["JAM_TOOLS", "own_jam"]


class AskParams(ProjectParams):
    """Ask a question about the song — "what key is this in?", "which chords are in the chorus?", "why does
    the bridge feel flat?", the tempo, the form, the instruments, the mix — and get an answer from its
    figures (or the language model's, when one is configured), with the reasoning (the figures looked at).
    Nothing changes."""

    question: str = Field(description='The question, e.g. "why does the chorus feel flat?".')


class JamStartParams(Params):
    """Start a jam: the band (BEAT on drums, GROOVE on bass, ARIA on melody, GLITCH on fx, by default) plays
    a loop in a shared key and tempo; a running jam is restarted only with restart: true. Answers the jam's state."""

    members: list[str] | None = Field(None, description="Who plays, e.g. [\"BEAT\", \"GROOVE\"] (default: the "
                                                        "whole band).")
    restart: bool = Field(False, description="Restart the jam if it is already playing (else that is refused).")


class JamDirectParams(Params):
    """Direct the jam in words, to everyone ("switch to D major, more energy!") or to one musician
    ("@BEAT double time"): the band answers in its next round, in the background."""

    text: str = Field(description='The directive, e.g. "more energy" or "@GROOVE simpler".')


class JamStateParams(Params):
    """The jam as it plays: running, round, key, scale, tempo, energy, each musician's pattern and what they
    said, and any mistake found in a directive's round since the last look."""


class JamStopParams(Params):
    """Stop the jam (every musician's session ends) and save its recording — the MIDI, a transcript and one
    JSON line per round, and the WAV when asked — into a folder of its own, named in the answer."""

    save: bool = Field(True, description="Save the recording.")
    audio: bool = Field(False, description="Also render the WAV (a few seconds).")


def _ask(band: Band, p: AskParams, control: Control) -> Answer:
    session = band.library.session(p.project)
    said = App(band.library.root, backend=band.backend, folders=True).ask(
        WordsRequest(str(session.session_dir), p.question))
    return Answer({"project": session.session_dir.name, "question": p.question, "answer": said.answer,
                   "reasoning": list(said.reasoning)})


def _jam(band: Band) -> Any:
    jam = band.jam() if band.jam is not None else None
    if jam is None:
        raise Conflict("this server plays no jam")
    return jam


def _app(band: Band) -> App:
    """The facade over the server's projects (where a jam's recording and a kept jam go)."""
    return App(band.library.root)


async def _jam_start(band: Band, p: JamStartParams, control: Control) -> Answer:
    band.jam_errors.clear()
    return Answer(await _app(band).start_jam(_jam(band), p.members, restart=p.restart))


async def _jam_direct(band: Band, p: JamDirectParams, control: Control) -> Answer:
    return Answer(_app(band).direct_jam(_jam(band), p.text, band.jam_error))


async def _jam_state(band: Band, p: JamStateParams, control: Control) -> Answer:
    errors, band.jam_errors[:] = list(band.jam_errors), []
    return Answer({**_app(band).jam_state(_jam(band)), "errors": errors})


async def _jam_stop(band: Band, p: JamStopParams, control: Control) -> Answer:
    return Answer(await _app(band).stop_jam(_jam(band), JamRecording(save=p.save, audio=p.audio)))


class JamKeepParams(Params):
    """Keep the jam so far (playing or stopped) as a song project among the others: its rounds arranged as
    sections with an intro and an ending, a project the studio tools then direct ("make the bass busier").
    Answers the project's id, its form and any rounds a song could not keep (another metre)."""

    title: str = Field("", max_length=200, description="The song's title.")


async def _jam_keep(band: Band, p: JamKeepParams, control: Control) -> Answer:
    kept = await _app(band).keep_jam(_jam(band), title=p.title)
    return Answer(kept.summary())


JAM_TOOLS: tuple[BandTool, ...] = (
    BandTool("ask", AskParams, _ask, read_only=True),
    BandTool("jam_start", JamStartParams, _jam_start),
    BandTool("jam_direct", JamDirectParams, _jam_direct),
    BandTool("jam_state", JamStateParams, _jam_state, read_only=True),
    BandTool("jam_stop", JamStopParams, _jam_stop, idempotent=True),
    BandTool("jam_keep", JamKeepParams, _jam_keep),
)


def own_jam(band: Band, backend: Any | None = None) -> Any:
    """The server's lifespan for a jam of its own (the stdio server's): made on the first jam tool
    call, on the server's loop, with `backend` playing (an `App.jam_backend`; None: the
    built-in musicians); stopped — every musician's session ended — when the server stops."""
    made: list[Any] = []

    def jam() -> Any:
        if not made:
            made.append(_app(band).new_jam(backend=backend))
        return made[0]

    @contextlib.asynccontextmanager
    async def lifespan(server: Any) -> AsyncIterator[None]:
        band.jam = jam
        try:
            yield
        finally:
            if made:
                await made[0].close()
    return lifespan
