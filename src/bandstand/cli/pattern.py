"""`bandstand pattern …` — query, show, render and validate Strudel-style patterns, and
print a MIDI file's track as pattern code (`from-midi`).

CODE is the expression language (`s("bd sd").fast(2)`); `-` reads it from
stdin. Bad code is one error line plus a caret under the offending column
(exit 2). `validate` exits 0 when the band would play the pattern, 1 when not.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from bandstand.producer.app import PatternTools

app = typer.Typer(
    help="Query, show, render and validate Strudel-style patterns.",
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the others
    add_completion=False,
    rich_markup_mode=None,
)

CodeArg = typer.Argument(
    ..., metavar="CODE", help="Pattern code, e.g. 's(\"bd sd\").fast(2)'; '-' reads stdin."
)


@functools.cache
def _tools() -> PatternTools:
    from bandstand.producer import App

    return App().patterns()


def _code(code: str) -> str:
    return sys.stdin.read() if code == "-" else code


def _evaluate(code: str) -> Any:
    return _tools().evaluate(_code(code))


def _number(text: str, option: str) -> Fraction:
    from bandstand.errors import InvalidInput

    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise InvalidInput(f"{option} {text!r} is not a number; use e.g. 0, 1.5 or 1/4") from None


def _time(t: Any) -> str:
    f = _tools().time(t)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _span(span: Any) -> dict[str, str] | None:
    return None if span is None else {"begin": _time(span.begin), "end": _time(span.end)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


@app.command()
def query(
    code: str = CodeArg,
    begin: str = typer.Option(
        "0", "--from", help="Start of the query span, in cycles (1/4 allowed)."
    ),
    end: str = typer.Option("1", "--to", help="End of the query span, in cycles."),
    as_json: bool = typer.Option(False, "--json", help="Print the haps as JSON."),
) -> None:
    """Print the haps of CODE between --from and --to."""
    from bandstand.errors import InvalidInput

    b, e = _number(begin, "--from"), _number(end, "--to")
    if not e > b:
        raise InvalidInput(f"--to {end} must be after --from {begin}")
    haps = _tools().haps(_evaluate(code), b, e)
    if as_json:
        rows = [
            {
                "whole": _span(h.whole),
                "part": _span(h.part),
                "value": _jsonable(h.value),
                "onset": h.has_onset(),
            }
            for h in haps
        ]
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    for h in haps:
        typer.echo(h.show())
    if not haps:
        typer.echo("(no events)")


@app.command()
def show(
    code: str = CodeArg,
    cycles: int = typer.Option(4, "--cycles", min=1, max=64, help="How many cycles to draw."),
) -> None:
    """Draw CODE as a readable grid, one block per cycle."""
    pattern, tools = _evaluate(code), _tools()
    for cycle in range(cycles):
        for line in tools.grid(pattern, cycle):
            typer.echo(line)


@app.command()
def render(
    code: str = CodeArg,
    cycles: int = typer.Option(8, "--cycles", min=1, max=1024, help="How many cycles to render."),
    bpm: float | None = typer.Option(
        None, "--bpm", min=1.0, max=1000.0,
        help="Tempo in quarter notes per minute [default: the program's setcpm/setcps, else 120].",
    ),
    beats_per_cycle: int = typer.Option(
        4, "--beats-per-cycle", min=1, max=64, help="Beats in one cycle."
    ),
    out: Path = typer.Option(..., "--out", help="The MIDI file to write (e.g. loop.mid)."),
    wav: Path | None = typer.Option(None, "--wav", help="Also render audio to this WAV file."),
) -> None:
    """Render CODE to a Standard MIDI File (and optionally a WAV file)."""
    tools = _tools()
    made = tools.song(_code(code), cycles, bpm=bpm, beats_per_cycle=beats_per_cycle)
    for note in made.notes:  # what the program asked for that is not honoured (a samples() URL …)
        typer.echo(f"note: {note}", err=True)
    song, bpm = made.song, made.bpm
    notes = sum(len(t.notes) for t in song.tracks)
    tools.write_midi(made, out)
    typer.echo(
        f"wrote {out} ({len(song.tracks)} tracks, {notes} notes, {cycles} cycles at {bpm:g} bpm)"
    )
    if wav is not None:
        tools.write_wav(made, wav)
        typer.echo(f"wrote {wav}")


@app.command()
def validate(
    code: str = CodeArg,
    scale: str | None = typer.Option(
        None, "--scale", help="Check pitched notes against a scale, e.g. 'C minor'."
    ),
    cycles: int = typer.Option(4, "--cycles", min=1, max=64, help="How many cycles to inspect."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Check CODE like the jam band does: parses, known functions and sounds, density, scale."""
    report = _tools().validate(_code(code), scale=scale, cycles=cycles)
    if as_json:
        typer.echo(report.model_dump_json())
    else:
        verdict = "valid" if report.valid else "invalid"
        typer.echo(
            f"{verdict}: {report.events_per_cycle:g} events per cycle over {report.cycles} cycles"
        )
        if report.error:
            typer.echo(f"error: {report.error}")
        if report.functions:
            typer.echo(f"functions: {', '.join(report.functions)}")
        if report.unknown_functions:
            typer.echo(f"unknown functions: {', '.join(report.unknown_functions)}")
        if report.sounds:
            typer.echo(f"sounds: {', '.join(report.sounds)}")
        if report.unknown_sounds:
            typer.echo(f"unknown sounds: {', '.join(report.unknown_sounds)}")
        if report.in_scale_ratio is not None:
            typer.echo(
                f"in scale: {report.notes_in_scale}/{report.pitched_notes} ({report.in_scale_ratio:.0%})"
            )
        for warning in report.warnings:
            typer.echo(f"warning: {warning}")
    if not report.valid:
        raise typer.Exit(1)


@app.command("from-midi")
def from_midi(
    file: Path = typer.Argument(..., metavar="FILE.mid", help="A Standard MIDI File."),
    track: int = typer.Option(1, "--track", "-t", metavar="N", help="Which track with notes (1 = the first)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (the code, its bars and tempo)."),
) -> None:
    """Print one track of a MIDI file as Strudel code (one cycle = one bar), note for note."""
    from bandstand.producer import App

    clip = App().desk().midi_clip(file, track)
    if as_json:
        typer.echo(json.dumps(clip.to_json(), ensure_ascii=False))
        return
    typer.echo(f"// {clip.name}: {clip.bars} bars; play it with setcpm({clip.tempo:g} / {clip.beats_per_bar:g})")
    typer.echo(clip.code)


CHAT_HELP = """\
Type Strudel code to play it, or say in words what to play; the band writes the code.
  :key D dorian   :tempo 100   :bars 3     set the musical context (key, BPM, beats per bar)
  :ref [word]                              the function reference (or the functions matching word)
  :preview                                 render what plays to a WAV (and play it, with --listen)
  :stop   :help   :quit                    (an empty line or Ctrl-D quits too)"""


def _looks_like_code(line: str) -> bool:
    return bool(re.search(r"[()\"`$]|^\s*(const|let|setc[pm]s?)\b", line))


def _said(played: Any) -> str:
    parts = [f"{played.bpm:g} BPM", f"{played.events_per_cycle:g} events per cycle"]
    if played.sounds:
        parts.append("sounds: " + ", ".join(played.sounds))
    if played.in_key is not None:
        parts.append(f"{played.in_key:.0%} in key")
    return "playing: " + "; ".join(parts)


@app.command()
def chat(
    key: str = typer.Option("C minor", "--key", help="The key the code is written and checked in."),
    tempo: float = typer.Option(120.0, "--tempo", help="Beats per minute."),
    out: Path = typer.Option(Path("output") / "patterns", "--out", "-o", help="Where :preview writes its WAVs."),
    listen: bool = typer.Option(False, "--listen", help="Play each :preview through this machine's audio player."),
) -> None:
    """The Strudel assistant: type code to play it, or words for the band to write it, in a shared key and
    tempo (reads lines from stdin; try ':help')."""
    from bandstand.errors import BandstandError
    from bandstand.producer import App

    live = App().live()
    desk = live.pattern_desk(key, tempo)
    typer.echo(f"Strudel assistant in {desk.context.key} at {desk.context.bpm:g} BPM. ':help' for commands.")
    for raw in sys.stdin:
        line = raw.strip()
        if not line or line in (":quit", ":q", ":exit"):
            break
        command, _, rest = line.partition(" ")
        try:
            if command == ":help":
                typer.echo(CHAT_HELP)
            elif command == ":key":
                typer.echo(f"key: {desk.update_context(key=rest).key}")
            elif command == ":tempo":
                typer.echo(f"tempo: {desk.update_context(tempo=float(_number(rest, ':tempo'))).bpm:g} BPM")
            elif command == ":bars":
                typer.echo(f"beats per bar: {desk.update_context(beats_per_bar=int(_number(rest, ':bars'))).beats_per_bar}")
            elif command == ":ref":
                typer.echo(live.reference(rest or None).rstrip())
            elif command == ":stop":
                was = desk.stop()
                typer.echo("stopped" if was else "nothing was playing")
            elif command == ":preview":
                played = desk.preview(out)
                typer.echo(f"wrote {played.preview}")
                if listen:
                    _listen(Path(str(played.preview)))
            elif line.startswith(":"):
                typer.echo(f"error: unknown command {command}; ':help' lists them", err=True)
            elif _looks_like_code(line):
                typer.echo(_said(desk.execute(line)))
            else:
                played = desk.write(line)
                typer.echo(played.code)
                typer.echo(_said(played))
            for warning in desk.playing.warnings if desk.playing and command not in (":ref", ":help") else ():
                typer.echo(f"warning: {warning}")
        except BandstandError as exc:  # a mistake in one line: say it and go on
            typer.echo(f"error: {exc.message}", err=True)


def _listen(wav: Path) -> None:
    import subprocess

    from bandstand.cli.play import player

    command = player()
    if command is None:
        typer.echo(f"no audio player on this machine: open {wav}", err=True)
        return
    subprocess.run([*command, str(wav)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=600)
