"""The studio's transport as MCP tools — Maestro's `play`, `stop` and `set_playhead`, and
`loop_section` — over `App.live()`'s transport, as `bandstand transport` and `POST
/api/v1/projects/{id}/transport` do: every studio page open on the song follows. Each answers
the transport's new state."""

from __future__ import annotations

from pydantic import Field

from bandstand.mcp.band import Answer, Band
from bandstand.mcp.band_tools import BandTool, ProjectParams
from bandstand.producer import App
from bandstand.producer.app import Control
from bandstand.producer.live.desk import TransportCommand

__all__ = ["TRANSPORT_TOOLS"]


class PlayParams(ProjectParams):
    """Play the song on every studio page open on it: from `bar` when given, else from the playhead (inside
    the loop, when a section is looped). Answers the transport: playing, playhead (beats and bar), loop."""

    bar: float | None = Field(None, ge=1, description="Play from this 1-based bar (default: the playhead).")


class StopParams(ProjectParams):
    """Stop the song on every studio page open on it; the playhead goes back to where play started."""


class SetPlayheadParams(ProjectParams):
    """Move the playhead to a bar or to the start of a section (a playing song jumps there)."""

    bar: float | None = Field(None, ge=1, description="A 1-based bar (9.5 is halfway through bar 9).")
    section: str | None = Field(None, description='A section, e.g. "chorus" or "Verse 2" (instead of a bar).')


class LoopSectionParams(ProjectParams):
    """Loop a section of the song on every studio page open on it (the playhead moves into it); no section
    ends the loop."""

    section: str | None = Field(None, description='The section to loop, e.g. "chorus"; leave it out to end the loop.')


def _command(band: Band, project: str, command: TransportCommand) -> Answer:
    song = App.over(band.library).live().command(project, command)
    return Answer({"project": song.folder.name, **song.state.model_dump()})


def _play(band: Band, p: PlayParams, control: Control) -> Answer:
    return _command(band, p.project, TransportCommand(action="play", bar=p.bar))


def _stop(band: Band, p: StopParams, control: Control) -> Answer:
    return _command(band, p.project, TransportCommand(action="stop"))


def _set_playhead(band: Band, p: SetPlayheadParams, control: Control) -> Answer:
    return _command(band, p.project, TransportCommand(action="set_playhead", bar=p.bar, section=p.section))


def _loop(band: Band, p: LoopSectionParams, control: Control) -> Answer:
    return _command(band, p.project, TransportCommand(action="loop", section=p.section))


TRANSPORT_TOOLS: tuple[BandTool, ...] = (
    BandTool("play", PlayParams, _play),
    BandTool("stop", StopParams, _stop, idempotent=True),
    BandTool("set_playhead", SetPlayheadParams, _set_playhead, idempotent=True),
    BandTool("loop_section", LoopSectionParams, _loop, idempotent=True),
)
