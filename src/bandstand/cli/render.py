"""`bandstand render FILE.mid` — a WAV render and a piano-roll PNG of a MIDI file.

Both are written beside the input unless `--wav`/`--png` say where (`--no-audio`
or `--no-png` leaves one out); a missing
or unreadable file is a `MidiFileError` (one line, exit 2 from the root).
`bandstand render SESSION_DIR` brings a session's WAV and stems up to HEAD
(the studio commands leave them stale): only the tracks whose sound changed
are played, the rest come from the session's render cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)


RENDER_EXAMPLES = """\b
Examples:
  bandstand render song.mid                          # song.wav and song.png beside it
  bandstand render song.mid --png roll.png --wav mix.wav
  bandstand render song.mid --no-audio --width 1200 --height 600
  bandstand render song.mid --no-png --wav mix.wav   # the WAV alone
  bandstand render output/session-x                  # the session's WAV and stems, for HEAD
"""


@app.command(
    help="Render a MIDI file to WAV audio and a piano-roll PNG (written beside it by default), or a session's "
         "WAV and stems for its HEAD revision.",
    epilog=RENDER_EXAMPLES,
)
def render(
    file: Annotated[Path, typer.Argument(help="The .mid file to render, or a session folder.", show_default=False,
                                         metavar="FILE.mid|SESSION_DIR")],
    wav: Annotated[Path | None, typer.Option("--wav", metavar="OUT.wav", help="Where to write the WAV [FILE.wav].")] = None,
    png: Annotated[Path | None, typer.Option("--png", metavar="OUT.png", help="Where to write the PNG [FILE.png].")] = None,
    no_audio: Annotated[bool, typer.Option("--no-audio", help="Only draw the piano roll.")] = False,
    no_png: Annotated[bool, typer.Option("--no-png", help="Only render the WAV (no piano roll).")] = False,
    width: Annotated[int, typer.Option(min=200, max=8000, help="Piano-roll width in pixels.")] = 1600,
    height: Annotated[int, typer.Option(min=150, max=8000, help="Piano-roll height in pixels.")] = 900,
    sample_rate: Annotated[int, typer.Option(min=8000, max=192000, help="Audio sample rate in Hz.")] = 44100,
) -> None:
    if file.is_dir() and ((file / "revisions").is_dir() or (file / "midi" / "full-arrangement.mid").is_file()):
        if wav is not None or png is not None or no_audio or no_png or sample_rate != 44100:
            from bandstand.errors import InvalidInput

            raise InvalidInput(f"{file} is a session folder: its WAV is audio/full-arrangement.wav, at 44,100 Hz; "
                               "--wav, --png, --no-audio, --no-png and --sample-rate are for a .mid file")
        _render_session(file)
        return
    from bandstand.producer import App

    done = App().desk().render_file(file, wav=wav, png=png, audio=not no_audio, pianoroll=not no_png, width=width,
                                    height=height, sample_rate=sample_rate)
    typer.echo(f"{done.title}")
    if done.pianoroll is not None:
        typer.echo(f"piano roll  {done.pianoroll}")
    if done.wav is not None:
        typer.echo(f"audio       {done.wav}  ({done.seconds:.1f} s + tail)")


def _render_session(session_dir: Path) -> None:
    """The session's WAV and stems for HEAD, rendered when stale."""
    from bandstand.cli._rendering import render_status
    from bandstand.producer import App

    session = App().project(Path(session_dir), regenerate=False)
    with render_status(f"revision {session.revision}") as progress:
        wav = session.ensure_audio(progress)
    typer.echo(f"audio       {wav}  (revision {session.revision})")
