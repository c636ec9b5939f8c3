"""`bandstand render FILE.mid` — a WAV render and a piano-roll PNG of a MIDI file.

Both are written beside the input unless `--wav`/`--png` say where; a missing
or unreadable file is a `MidiFileError` (one line, exit 2 from the root)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)


@app.command(help="Render a MIDI file to WAV audio and a piano-roll PNG (written beside it by default).")
def render(
    file: Annotated[Path, typer.Argument(help="The .mid file to render.", show_default=False)],
    wav: Annotated[Path | None, typer.Option("--wav", help="Where to write the WAV [FILE.wav].")] = None,
    png: Annotated[Path | None, typer.Option("--png", help="Where to write the PNG [FILE.png].")] = None,
    no_audio: Annotated[bool, typer.Option("--no-audio", help="Only draw the piano roll.")] = False,
    width: Annotated[int, typer.Option(min=200, max=8000, help="Piano-roll width in pixels.")] = 1600,
    height: Annotated[int, typer.Option(min=150, max=8000, help="Piano-roll height in pixels.")] = 900,
    sample_rate: Annotated[int, typer.Option(min=8000, max=192000, help="Audio sample rate in Hz.")] = 44100,
) -> None:
    from bandstand.midi import read_midi
    from bandstand.render import render_pianoroll, render_wav, title_line

    song = read_midi(file)
    png_path = render_pianoroll(song, png or file.with_suffix(".png"), width=width, height=height)
    typer.echo(f"{title_line(song)}")
    typer.echo(f"piano roll  {png_path}")
    if not no_audio:
        wav_path = render_wav(song, wav or file.with_suffix(".wav"), sample_rate=sample_rate)
        typer.echo(f"audio       {wav_path}  ({song.duration_seconds:.1f} s + tail)")
