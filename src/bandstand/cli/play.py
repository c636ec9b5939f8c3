"""`bandstand play SESSION_DIR [--section NAME]` — hear a song from the terminal.

The producer makes the WAV that shows HEAD (rendering it when the studio commands left it
stale) or cuts the section out (`bandstand.producer.sessions.listen`); this module hands the file to
the system's audio player: `$BANDSTAND_PLAYER` when set (a command line, the file appended),
else the first of afplay (macOS), pw-play (PipeWire), paplay (PulseAudio), aplay (ALSA),
ffplay and mpv found on PATH. Without one, or when the player cannot reach an audio device,
one line says where the WAV is and how to open the studio page (exit 1). Ctrl-C stops the
playback. With `--osc HOST:PORT` or `--midi-out NAME` the song's notes go live to SuperDirt or
a MIDI port instead, as they sound (`App.live().play`; nothing is rendered)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)

PLAYER_ENV = "BANDSTAND_PLAYER"
PLAYERS: tuple[tuple[str, ...], ...] = (
    ("afplay",), ("pw-play",), ("paplay",), ("aplay", "-q"), ("ffplay", "-nodisp", "-autoexit", "-loglevel", "error"),
    ("mpv", "--no-video", "--really-quiet"),
)

PLAY_EXAMPLES = """\b
Examples:
  bandstand play output/session-x                    # the whole song, as HEAD is now
  bandstand play output/session-x --section chorus   # the first chorus (and a short ring-out)
  BANDSTAND_PLAYER="mpv --volume=70" bandstand play output/session-x
  bandstand play output/session-x --osc 127.0.0.1:57120   # into SuperDirt, as it sounds
  bandstand play output/session-x --midi-out bandstand    # to a MIDI port, with clock (a DAW records it)
"""


def player() -> list[str] | None:
    """The command line that plays a WAV appended to it, or None when this machine has none."""
    configured = os.environ.get(PLAYER_ENV, "").strip()
    if configured:
        from bandstand.errors import ConfigError

        try:
            words = shlex.split(configured)
        except ValueError as exc:
            raise ConfigError(f"${PLAYER_ENV} is not a command line ({exc}): e.g. {PLAYER_ENV}='mpv --no-video'") \
                from None
        if not words or shutil.which(words[0]) is None:
            raise ConfigError(f"${PLAYER_ENV} names {words[0] if words else 'nothing'!r}, which is not on PATH; "
                              f"install it, or unset ${PLAYER_ENV} to use the system's player")
        return words
    return next(([shutil.which(cmd[0]) or cmd[0], *cmd[1:]] for cmd in PLAYERS if shutil.which(cmd[0])), None)


@app.command(help="Play a session's song (or one section) through this machine's audio, rendering it first "
                  "when it does not show the newest revision.", epilog=PLAY_EXAMPLES)
def play(
    session_dir: Annotated[Path, typer.Argument(help="The session folder.", metavar="SESSION_DIR",
                                                show_default=False)],
    section: Annotated[str | None, typer.Option("--section", "-s", metavar="NAME",
                                                help="Play only this section (e.g. chorus, 'verse 2', bridge).")] = None,
    osc: Annotated[str | None, typer.Option("--osc", metavar="HOST:PORT",
                                            help="Play the notes into SuperDirt at HOST:PORT instead (/dirt/play "
                                                 "bundles, timestamped ahead; SuperDirt's port is 57120).")] = None,
    midi_out: Annotated[str | None, typer.Option("--midi-out", metavar="NAME",
                                                 help="Play the notes to the MIDI port whose name contains NAME "
                                                      "(else a new virtual port NAME), with clock and start/stop."
                                                 )] = None,
    latency: Annotated[float | None, typer.Option("--latency", metavar="SECONDS",
                                                  help="With --osc: seconds each bundle goes before it sounds "
                                                       "(default 0.2).")] = None,
) -> None:
    if osc is not None or midi_out is not None:
        _play_live(session_dir, section, osc, midi_out, latency)
        return
    from bandstand.errors import RuntimeFailure
    from bandstand.producer import App

    command = player()  # a wrong $BANDSTAND_PLAYER is one line before any rendering

    def rendering(revision: int) -> None:
        typer.echo(f"rendering revision {revision} (only the parts that changed are played)…", err=True)

    from bandstand.cli._rendering import render_status

    with render_status("HEAD") as progress:
        heard = App().listen(session_dir, section, on_render=rendering, progress=progress)
    page = f"bandstand studio {session_dir}"
    if command is None:
        raise RuntimeFailure(f"no audio player found here (looked for {', '.join(c[0] for c in PLAYERS)}; "
                             f"or set ${PLAYER_ENV}): open {heard.wav} in any player, or the studio page: {page}")
    typer.echo(f"playing {heard.what}, {heard.seconds:.0f} s — Ctrl-C stops  ({heard.wav})")
    proc = subprocess.Popen([*command, str(heard.wav)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate()
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        typer.echo("stopped", err=True)
        raise typer.Exit(130) from None
    if proc.returncode != 0:
        said = next((line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()), "")
        raise RuntimeFailure(f"{Path(command[0]).name} could not play it (exit {proc.returncode}"
                             + (f": {said[:200]}" if said else "") + f"); open {heard.wav} in any player, "
                             f"or the studio page: {page}")


def _play_live(session_dir: Path, section: str | None, osc: str | None, midi_out: str | None,
               latency: float | None) -> None:
    """The song's notes live into SuperDirt / a MIDI port, until the end or Ctrl-C."""
    import threading

    from bandstand.producer import App

    live = App().live()
    live.song(session_dir, section)  # an unknown session or section: one line, before any port opens
    outputs = live.outputs(osc, midi_out, latency=latency)
    for output in outputs:
        typer.echo(f"live out: {output.describe()}")

    def started(what: str, seconds: float) -> None:
        typer.echo(f"playing {what}, {seconds:.0f} s — Ctrl-C stops")

    stop = threading.Event()
    done: list[Any] = []  # what `play` answered (a LivePlayed), or what it raised

    def run() -> None:
        try:
            done.append(live.play(session_dir, outputs, section, stop=stop, on_start=started))
        except BaseException as exc:  # handed to the main thread, which reports it
            done.append(exc)

    worker = threading.Thread(target=run, name="bandstand-play-live", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        worker.join(5)
        typer.echo("stopped", err=True)
        raise typer.Exit(130) from None
    result = done[0] if done else None
    if isinstance(result, BaseException):
        raise result
    if result is not None:
        typer.echo(f"sent {result.notes} notes ({result.cues} cues) over {result.seconds:.1f} s")
        for error in result.errors:
            typer.echo(f"warning: a send failed: {error}", err=True)
