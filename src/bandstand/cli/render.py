"""`bandstand render FILE.mid` — a WAV render and a piano-roll PNG of a MIDI file.

Both are written beside the input unless `--wav`/`--png` say where; a missing
or unreadable file is a `MidiFileError` (one line, exit 2 from the root).
`bandstand render SESSION_DIR` brings a session's WAV and stems up to HEAD
(the studio commands leave them stale): only the tracks whose sound changed
are played, the rest come from the session's render cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)


def _check_output(path: Path, flag: str) -> Path:
    """`path` if a file can be written there; checked before anything is written."""
    from bandstand.errors import OutputNotWritable

    if path.is_dir():
        raise OutputNotWritable(f"{flag} {path} is a folder; give a file name, e.g. {flag} {path / ('song' + flag.replace('--', '.'))}")
    probe = path.parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise OutputNotWritable(f"cannot write {flag} {path}: {probe} is a file, not a folder; choose another path")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputNotWritable(f"cannot write {flag} {path}: {probe} is not writable; choose another path")
    return path


RENDER_EXAMPLES = """\b
Examples:
  bandstand render song.mid                          # song.wav and song.png beside it
  bandstand render song.mid --png roll.png --wav mix.wav
  bandstand render song.mid --no-audio --width 1200 --height 600
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
    width: Annotated[int, typer.Option(min=200, max=8000, help="Piano-roll width in pixels.")] = 1600,
    height: Annotated[int, typer.Option(min=150, max=8000, help="Piano-roll height in pixels.")] = 900,
    sample_rate: Annotated[int, typer.Option(min=8000, max=192000, help="Audio sample rate in Hz.")] = 44100,
) -> None:
    if file.is_dir() and ((file / "revisions").is_dir() or (file / "midi" / "full-arrangement.mid").is_file()):
        if wav is not None or png is not None or no_audio or sample_rate != 44100:
            from bandstand.errors import InvalidInput

            raise InvalidInput(f"{file} is a session folder: its WAV is audio/full-arrangement.wav, at 44,100 Hz; "
                               "--wav, --png, --no-audio and --sample-rate are for a .mid file")
        _render_session(file)
        return
    from bandstand.producer.engines.rendering import (
        find_soundfont,
        read_midi,
        render_pianoroll,
        render_wav,
        title_line,
        warm,
    )

    song = read_midi(file)  # first: a file that is refused never loads the synthesizer (300 MB for any input)
    if not no_audio:
        warm()  # numba's engine and the SoundFont's table load on a thread while the outputs are checked
    png_out = _check_output(png or file.with_suffix(".png"), "--png")
    wav_out = None if no_audio else _check_output(wav or file.with_suffix(".wav"), "--wav")
    if wav_out is None:
        png_path = render_pianoroll(song, png_out, width=width, height=height)
        typer.echo(f"{title_line(song)}")
        typer.echo(f"piano roll  {png_path}")
        return
    find_soundfont()  # no SoundFont: say so before the piano roll is written, not after
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bandstand-pianoroll") as pool:
        roll = pool.submit(render_pianoroll, song, png_out, width=width, height=height)  # drawn while it plays
        wav_path = render_wav(song, wav_out, sample_rate=sample_rate)
        png_path = roll.result()
    typer.echo(f"{title_line(song)}")
    typer.echo(f"piano roll  {png_path}")
    typer.echo(f"audio       {wav_path}  ({song.duration_seconds:.1f} s + tail)")


def _render_session(session_dir: Path) -> None:
    """The session's WAV and stems for HEAD, rendered when stale."""
    from bandstand.cli._rendering import render_status
    from bandstand.producer import App

    session = App().project(Path(session_dir), regenerate=False)
    with render_status(f"revision {session.revision}") as progress:
        wav = session.ensure_audio(progress)
    typer.echo(f"audio       {wav}  (revision {session.revision})")
