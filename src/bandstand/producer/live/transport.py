"""The studio's transport: play, stop, set the playhead, loop a section — Maestro's `play`,
`stop` and `set_playhead` — as one use case every client calls (`bandstand transport`,
`POST /api/v1/projects/{id}/transport`, the MCP tools `play`, `stop`, `set_playhead`,
`loop_section`), and the studio page's player follows.

The transport of a song is a small saved state in its session folder (`state/transport.json`,
written atomically): playing or not, where the playhead stands (while playing: where it
started), the loop (a section's bars, or none), a sequence number that grows with each change
and the time of the change. Saved there, a command from any process — the CLI beside a
server, an agent over MCP — reaches every page open on the song: the server's
`…/transport/stream` sends each new state. A command is checked against HEAD: a playhead
inside the song, a section it has (named as a person says it: "chorus", "the bridge"); a
mistake is one line naming the field. `stop` stops and puts the playhead back where play
started (as most DAWs' "return to start"); playing again starts there, or inside the loop.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from bandstand.errors import InvalidInput
from bandstand.files import atomic_open

if TYPE_CHECKING:
    from bandstand.producer.sessions.projects import ProjectSession
    from bandstand.studio.model import Project, Section

__all__ = ["TRANSPORT_FILE", "Loop", "TransportCommand", "TransportState", "command_transport", "transport_state"]

TRANSPORT_FILE = Path("state") / "transport.json"
"""Where a session keeps its transport, inside its folder."""

Action = Literal["play", "stop", "set_playhead", "loop"]


class TransportCommand(BaseModel):
    """One transport command: `play` (from `bar`, else from the playhead), `stop`, `set_playhead`
    (to `bar`, or to the start of `section`), `loop` (`section`; no section: the loop is off)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Action = Field(description="play | stop | set_playhead | loop")
    bar: float | None = Field(default=None, ge=1, le=100_000, description="A 1-based bar (1.5 is the middle of bar 1 in 4/4: "
                                                                  "beat 3); play and set_playhead")
    section: str | None = Field(default=None, min_length=1, max_length=100,
                                description="A section as the song names it (\"chorus\", \"the bridge\", \"Verse 2\"); "
                                            "loop, set_playhead")


class Loop(BaseModel):
    """A looped section: its name and its bars, and the same in beats from the song's start."""

    model_config = ConfigDict(frozen=True)

    section: str
    start_bar: int
    end_bar: int  # the first bar after it
    start: float  # beats
    end: float


class TransportState(BaseModel):
    """A song's transport: see the module docstring. `position` is in beats from the song's start
    (`bar` the same as a 1-based bar); `seq` grows with each command; `changed` is its Unix time."""

    model_config = ConfigDict(frozen=True)

    playing: bool = False
    position: float = 0.0
    bar: float = 1.0
    loop: Loop | None = None
    seq: int = 0
    changed: float = 0.0
    revision: int = 0
    action: str = ""


def transport_state(session_dir: str | os.PathLike[str]) -> TransportState:
    """The song's transport as saved (stopped at bar 1 when it was never used)."""
    path = Path(session_dir) / TRANSPORT_FILE
    try:
        return TransportState.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError):
        return TransportState()


def command_transport(session: ProjectSession, command: TransportCommand) -> TransportState:
    """Apply `command` to `session`'s transport, checked against HEAD, and save it (see the module
    docstring). Answers the new state."""
    from bandstand.studio.convert import to_song

    project = session.head
    state = transport_state(session.session_dir)
    beats_per_bar = project.beats_per_bar
    song_bars = max(1, to_song(project).length_bars)

    def beat_of(bar: float) -> float:
        if bar >= song_bars + 1:
            raise InvalidInput(f"bar {bar:g} is past the song's end: it has {song_bars} bars (1–{song_bars}); "
                               "give a bar inside it", field="bar")
        return round((bar - 1) * beats_per_bar, 6)

    position, loop, playing = state.position, state.loop, state.playing
    if command.action == "play":
        if command.bar is not None:
            position = beat_of(command.bar)
        elif loop is not None and not loop.start <= position < loop.end:
            position = loop.start
        playing = True
    elif command.action == "stop":
        playing = False
    elif command.action == "set_playhead":
        if (command.bar is None) == (command.section is None):
            raise InvalidInput("set_playhead needs a bar (e.g. bar: 9) or a section (e.g. section: \"chorus\"), "
                               "one of them", field="bar")
        if command.section is not None:
            position = project.bar_to_beat(_named(project, command.section).start_bar)
        else:
            position = beat_of(float(command.bar or 1))
    elif command.action == "loop":
        if command.bar is not None:
            raise InvalidInput("loop takes a section (e.g. section: \"chorus\"), not a bar; no section ends the loop",
                               field="bar")
        if command.section is None:
            loop = None
        else:
            chosen = _named(project, command.section)
            loop = Loop(section=chosen.name, start_bar=chosen.start_bar, end_bar=chosen.end_bar,
                        start=project.bar_to_beat(chosen.start_bar), end=project.bar_to_beat(chosen.end_bar))
            if not loop.start <= position < loop.end:
                position = loop.start
    new = TransportState(playing=playing, position=position, bar=round(position / beats_per_bar + 1, 6), loop=loop,
                         seq=state.seq + 1, changed=time.time(), revision=project.revision, action=command.action)
    path = session.session_dir / TRANSPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w") as fh:
        fh.write(new.model_dump_json())
    return new


def _named(project: Project, words: str) -> Section:
    """The section `words` name (as `bandstand play --section` reads them); an unknown one is one
    line naming the `section` field and the song's sections."""
    from bandstand.producer.sessions.listen import _section

    try:
        return _section(project, words)
    except InvalidInput as exc:
        raise InvalidInput(str(exc), field="section") from None
