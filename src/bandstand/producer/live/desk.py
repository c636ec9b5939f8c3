"""`LiveDesk`: playing live as every client reaches it (`App.live()`) — the live outputs a person's
options ask for, a song played into them, the studio's transport of a song, and the Strudel desk.

What the clients each decided for themselves lives here once: no outputs when no option asks for one
(`bandstand play`, `jam` and `serve`); a song and its section checked before any output opens; a
project named by its id (through the App's projects) or by its session folder (a path object, as the
CLI's SESSION_DIR, opened without regenerating: the transport only reads HEAD); the transport answered
with the song's folder, whose name the clients show; a fresh Strudel desk in the key and tempo asked
(`bandstand pattern chat`, `POST /api/v1/patterns/play`, MCP's band). The use cases themselves stay
in the modules beside this one (`transport`, `live_play`, `live_transport`, `live_outputs`,
`strudel_desk`), which no client imports.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.producer.live.transport import TransportCommand, TransportState, transport_state

if TYPE_CHECKING:
    from bandstand.jam.liveout import LiveFeed, Output
    from bandstand.producer.app import App
    from bandstand.producer.live.live_play import LivePlayed
    from bandstand.producer.live.live_transport import LiveTransport
    from bandstand.producer.live.strudel_desk import PatternDesk, Played, ScratchSong
    from bandstand.producer.requests_models import ProjectRef
    from bandstand.protocol import Emitter

__all__ = ["LiveDesk", "Scratch", "Transport", "TransportCommand", "TransportState"]

SCRATCH_CHECKED_CYCLES = 16
"""A scratch song checks at most this many of its cycles (a page may loop up to 64)."""


@dataclass(frozen=True, slots=True)
class Transport:
    """A song's transport as saved (`producer.live.transport`): the song's session folder (its name is
    the project clients show) and the state."""

    folder: Path
    state: TransportState

    def again(self) -> Transport:
        """The same song's transport read again, as a page following it looks (the folder is not
        checked again: a song removed since reads as stopped at bar 1)."""
        return Transport(self.folder, transport_state(self.folder))


@dataclass(frozen=True, slots=True)
class Scratch:
    """Code played on a fresh desk (`LiveDesk.scratch`): what it plays and `cycles` of it as a song."""

    played: Played
    song: ScratchSong


class LiveDesk:
    """Playing live for the projects of `app` (see the module docstring)."""

    __slots__ = ("app",)

    def __init__(self, app: App) -> None:
        self.app = app

    # ---------------------------------------------------------------- the live outputs and a song played into them

    @staticmethod
    def outputs(osc: str | None = None, midi_out: str | None = None, *, latency: float | None = None) -> list[Output]:
        """The outputs `--osc HOST:PORT` and `--midi-out NAME` ask for, opened (a wrong address or a
        machine without MIDI is one line, before anything plays); none asked for, none (nothing loads)."""
        if osc is None and midi_out is None:
            return []
        from bandstand.producer.live.live_outputs import open_outputs

        return open_outputs(osc, midi_out, latency=latency)

    def song(self, project: ProjectRef, section: str | None = None) -> str:
        """What `play` would play of the project, in words: the whole song, or the section its words name
        (an unknown project or section is one line now — call it before opening any output)."""
        from bandstand.producer.live.live_play import song_to_play

        return song_to_play(self._folder(project), section)[3]

    def play(self, project: ProjectRef, outputs: Sequence[Output], section: str | None = None, *,
             stop: threading.Event | None = None,
             on_start: Callable[[str, float], object] | None = None) -> LivePlayed:
        """HEAD (or `section`) played into `outputs` as it sounds, blocking until all is sent or `stop` is
        set; the outputs are closed (`producer.live.live_play.play_live`)."""
        from bandstand.producer.live.live_play import play_live

        return play_live(self._folder(project), outputs, section, stop=stop, on_start=on_start)

    @staticmethod
    def feed_jam(emitter: Emitter, outputs: Sequence[Output]) -> AbstractAsyncContextManager[LiveFeed]:
        """While inside: the jam whose events `emitter` sends plays into `outputs` (a server's lifespan)."""
        from bandstand.producer.live.live_outputs import feeding

        return feeding(emitter, outputs)

    def follow_transports(self, outputs: Sequence[Output]) -> AbstractAsyncContextManager[LiveTransport]:
        """While inside: every song under the projects plays into `outputs` as its transport says, from
        any client (a server's lifespan; `producer.live.live_transport`)."""
        from bandstand.producer.live.live_transport import playing_transports

        return playing_transports(self.app.projects, outputs)

    # ---------------------------------------------------------------- the studio's transport of a song

    def transport(self, project: ProjectRef) -> Transport:
        """The project's transport as saved (stopped at bar 1 when never used)."""
        if isinstance(project, str):
            folder = self.app.library.path(project)
        else:
            folder = self.app.project(project, regenerate=False).session_dir
        return Transport(folder, transport_state(folder))

    def command(self, project: ProjectRef, command: TransportCommand) -> Transport:
        """`command` applied to the project's transport, checked against HEAD, and saved: every page open
        on the song follows (`producer.live.transport.command_transport`)."""
        from bandstand.producer.live.transport import command_transport

        session = self.app.project(project, regenerate=False)
        return Transport(session.session_dir, command_transport(session, command))

    # ---------------------------------------------------------------- the Strudel desk

    @staticmethod
    def pattern_desk(key: str | None = None, tempo: float | None = None) -> PatternDesk:
        """A Strudel desk of a client's own (`producer.live.strudel_desk`), in `key` at `tempo` (None: the
        desk's default, C minor at 120)."""
        from bandstand.producer.live.strudel_desk import PatternDesk

        desk = PatternDesk()
        desk.update_context(key=key, tempo=tempo)
        return desk

    def scratch(self, code: str, *, cycles: int = 4, key: str | None = None, tempo: float | None = None) -> Scratch:
        """`code` run on a fresh desk in `key` at `tempo` (nothing is kept), checked over its first cycles
        (at most `SCRATCH_CHECKED_CYCLES`), and `cycles` of it as a song a page loops."""
        desk = self.pattern_desk(key, tempo)
        played = desk.execute(code, cycles=min(cycles, SCRATCH_CHECKED_CYCLES))
        return Scratch(played, desk.song(cycles=cycles))

    @staticmethod
    def reference(query: str | None = None) -> str:
        """The Strudel function reference (markdown), or the functions matching `query`."""
        from bandstand.producer.live.strudel_desk import reference

        return reference(query)

    def _folder(self, project: ProjectRef) -> Path:
        """A project's session folder: a path object is the folder; an id, the projects' folder of it."""
        return self.app.library.path(project) if isinstance(project, str) else Path(project)
