"""The studio's transport played into the live outputs: a server started with `--osc` or
`--midi-out` (`bandstand studio`, `bandstand serve`) plays a song into SuperDirt or a MIDI port
when its transport says play — from any client: the page's API, `bandstand transport`, MCP —
and stops, jumps and loops with it.

`LiveTransport` watches the songs' saved transports under the projects folder (a thread that
looks every `poll` seconds at `*/state/transport.json`), and on each new state of a song clears
what was queued and plays from the state's playhead: the rest of the song (then a stop), or the
looped section again and again, queued a few seconds ahead by the same thread. Stop sends a
stop (a DAW stops; no note hangs).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from bandstand.producer.live.transport import TRANSPORT_FILE, TransportState, transport_state

__all__ = ["LiveTransport", "playing_transports"]

LEAD_SECONDS = 0.3
AHEAD_SECONDS = 4.0  # a loop is queued this far ahead


class LiveTransport:
    """Plays the transports of the songs under `root` into `outputs`. See the module docstring."""

    def __init__(self, root: str | os.PathLike[str], outputs: Sequence[Any], *, poll: float = 0.2) -> None:
        from bandstand.jam.liveout import Scheduler

        self.root = Path(root)
        self.poll = poll
        self.scheduler = Scheduler(outputs)
        self._seen: dict[Path, tuple[float, int]] = {}
        self._loop: tuple[Any, float, float, float] | None = None  # song, start beat, end beat, next start time
        self._stop = threading.Event()
        self._first = True
        self._thread = threading.Thread(target=self._run, name="bandstand-live-transport", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop watching; a song playing gets its stop; the outputs are closed."""
        self._stop.set()
        self._thread.join(5)
        if self._loop is not None or self.scheduler.pending():
            self._halt()
            self.scheduler.drain(1.0)
        self.scheduler.close()

    def _run(self) -> None:
        while not self._stop.wait(0 if self._first else self.poll):
            try:
                self._look()
                self._top_up()
            except Exception as exc:  # a song that cannot be read now: said once, the watch goes on
                if len(self.scheduler.errors) < 10:
                    self.scheduler.errors.append(f"{type(exc).__name__}: {exc}")

    def _look(self) -> None:
        for path in self.root.glob(f"*/{TRANSPORT_FILE.as_posix()}"):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            folder = path.parent.parent
            known = self._seen.get(folder)
            if known is not None and known[0] == mtime:
                continue
            state = transport_state(folder)
            self._seen[folder] = (mtime, state.seq)
            if self._first or (known is not None and known[1] == state.seq):
                continue  # what was saved before the server started is not replayed
            self.follow(folder, state)
        self._first = False

    def follow(self, folder: Path, state: TransportState) -> None:
        """Play `folder`'s song as `state` says, in place of whatever played."""
        from bandstand.jam.liveout import song_cues
        from bandstand.producer.sessions.projects import ProjectSession
        from bandstand.studio.convert import to_song

        self.scheduler.clear()
        self._loop = None
        if not state.playing:
            self._halt()
            return
        song = to_song(ProjectSession(folder).head)
        start = time.time() + LEAD_SECONDS
        if state.loop is None:
            self.scheduler.push(song_cues(song, start, from_beat=state.position))
            return
        first = song_cues(song, start, from_beat=state.position, to_beat=state.loop.end, transport=False)
        from bandstand.jam.liveout import Cue

        self.scheduler.push([Cue(at=start, kind="start"), *first])
        after = start + song.beats_to_seconds(state.loop.end) - song.beats_to_seconds(state.position)
        self._loop = (song, state.loop.start, state.loop.end, after)
        self._top_up()

    def _top_up(self) -> None:
        """Queue the loop's next times round until `AHEAD_SECONDS` ahead."""
        from bandstand.jam.liveout import song_cues

        while self._loop is not None and self._loop[3] < time.time() + AHEAD_SECONDS:
            song, begin, end, at = self._loop
            self.scheduler.push(song_cues(song, at, from_beat=begin, to_beat=end, transport=False))
            self._loop = (song, begin, end, at + song.beats_to_seconds(end) - song.beats_to_seconds(begin))

    def _halt(self) -> None:
        from bandstand.jam.liveout import Cue

        self._loop = None
        self.scheduler.clear()
        self.scheduler.push([Cue(at=time.time(), kind="stop")])


@contextlib.asynccontextmanager
async def playing_transports(root: str | os.PathLike[str], outputs: Sequence[Any]) -> AsyncIterator[LiveTransport]:
    """While inside: the transports of the songs under `root` play into `outputs` (a server's
    lifespan; closing waits off the event loop)."""
    live = LiveTransport(root, outputs)
    try:
        yield live
    finally:
        await asyncio.to_thread(live.close)
