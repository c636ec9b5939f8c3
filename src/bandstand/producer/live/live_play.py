"""Playing a session's song live: HEAD's notes (the whole song or one section) sent as they
sound to SuperDirt over OSC and to a MIDI port, with clock and start/stop — what
`bandstand play SESSION --osc HOST:PORT` and `--midi-out NAME` do instead of playing a WAV.

The song's MIDI (HEAD, no render needed) becomes cues from now plus `lead` seconds (room for
the first bundles to go ahead of time), and the live-out scheduler sends them; `play_live`
returns when the last has gone, or at once when `stop` is set (a stop goes out, so a DAW
stops and no note hangs).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LivePlayed", "play_live", "song_to_play"]

LEAD_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class LivePlayed:
    """What a live playback sent: how many cues and notes, over how many seconds, and any
    output's send errors (a SuperDirt that went away)."""

    what: str
    notes: int
    cues: int
    seconds: float
    stopped: bool
    errors: tuple[str, ...] = ()


def song_to_play(session_dir: str | os.PathLike[str], section: str | None = None) -> tuple[Any, float, float, str]:
    """HEAD's song and the beats to play (from, to) and what they are in words: the whole song,
    or the `section` its words name (`InvalidInput` naming the sections for an unknown one)."""
    from bandstand.producer.sessions.listen import _section
    from bandstand.producer.sessions.projects import open_project
    from bandstand.studio.convert import to_song

    session = open_project(session_dir)
    project = session.head
    song = to_song(project)
    if section is None:
        return song, 0.0, song.length_beats, f"the whole song (revision {project.revision})"
    chosen = _section(project, section)
    return (song, project.bar_to_beat(chosen.start_bar), project.bar_to_beat(chosen.end_bar),
            f"the {chosen.name} (bars {chosen.start_bar}–{chosen.end_bar - 1}, revision {project.revision})")


def play_live(session_dir: str | os.PathLike[str], outputs: Sequence[Any], section: str | None = None, *,
              stop: threading.Event | None = None, lead: float = LEAD_SECONDS,
              on_start: Any = None) -> LivePlayed:
    """Play HEAD (or `section`) into `outputs` (opened by `bandstand.jam.liveout.open_outputs`),
    blocking until it has all been sent or `stop` is set; closes the outputs."""
    from bandstand.jam.liveout import Cue, Scheduler, song_cues

    song, first, last, what = song_to_play(session_dir, section)
    start = time.time() + lead
    cues = song_cues(song, start, from_beat=first, to_beat=last)
    seconds = song.beats_to_seconds(last) - song.beats_to_seconds(first)
    if on_start is not None:
        on_start(what, seconds)
    scheduler = Scheduler(outputs)
    stop = stop or threading.Event()
    stopped = False
    try:
        scheduler.push(cues)
        while scheduler.pending():
            if stop.wait(0.05):
                stopped = True
                scheduler.clear()
                scheduler.push([Cue(at=time.time(), kind="stop")])
                scheduler.drain(2.0)
                break
    finally:
        scheduler.close()
    notes = sum(1 for c in cues if c.kind == "note")
    return LivePlayed(what, notes, len(cues), seconds, stopped, tuple(scheduler.errors))
