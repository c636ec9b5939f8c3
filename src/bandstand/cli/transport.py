"""`bandstand transport SESSION_DIR [play|stop|set_playhead|loop]` — the studio's transport from
the terminal: every studio page open on the song follows (its player starts, stops, moves its
playhead, loops). The use case is `App.live()`'s transport; without an action it shows
the transport."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)

TRANSPORT_EXAMPLES = """\b
Examples:
  bandstand transport output/session-x play                        # every studio page on it plays
  bandstand transport output/session-x play --bar 9
  bandstand transport output/session-x set_playhead --section chorus
  bandstand transport output/session-x loop --section chorus       # loop it; 'loop' alone ends the loop
  bandstand transport output/session-x stop
  bandstand transport output/session-x --json                      # the transport now
"""


@app.command(help="Play, stop, set the playhead or loop a section of a song: every studio page open on it follows.",
             epilog=TRANSPORT_EXAMPLES)
def transport(
    session_dir: Annotated[Path, typer.Argument(help="The session folder.", metavar="SESSION_DIR", show_default=False)],
    action: Annotated[str | None, typer.Argument(help="play | stop | set_playhead | loop (none: show the transport).",
                                                 metavar="[ACTION]", show_default=False)] = None,
    bar: Annotated[float | None, typer.Option("--bar", metavar="N",
                                              help="play / set_playhead: a 1-based bar (9.5: halfway through 9).")
                   ] = None,
    section: Annotated[str | None, typer.Option("--section", "-s", metavar="NAME",
                                                help="set_playhead / loop: a section (chorus, 'verse 2').")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the transport as JSON.")] = False,
) -> None:
    import json

    from bandstand.errors import InvalidInput
    from bandstand.producer import App

    live = App().live()
    song = live.transport(Path(session_dir))  # not a session: one line, before the action is read
    state = song.state
    if action is not None:
        if action not in ("play", "stop", "set_playhead", "loop"):
            raise InvalidInput(f"no transport action {action!r}; one of play, stop, set_playhead, loop")
        from bandstand.producer.live.desk import TransportCommand

        try:
            command = TransportCommand(action=action, bar=bar, section=section)  # type: ignore[arg-type]
        except ValueError as exc:
            raise InvalidInput(f"--bar {bar:g} is out of range; bars start at 1" if bar is not None and bar < 1
                               else f"not a transport command: {exc}") from None
        state = live.command(song.folder, command).state
    if as_json:
        typer.echo(json.dumps(state.model_dump(), ensure_ascii=False))
        return
    loop = f", looping the {state.loop.section} (bars {state.loop.start_bar}–{state.loop.end_bar - 1})" \
        if state.loop else ""
    typer.echo(f"{'playing' if state.playing else 'stopped'} at bar {state.bar:g}{loop}")
