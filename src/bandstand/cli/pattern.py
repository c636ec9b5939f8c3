"""`bandstand pattern …` — query, show, render and validate Strudel-style patterns.

CODE is the expression language (`s("bd sd").fast(2)`); `-` reads it from
stdin. Bad code is one error line plus a caret under the offending column
(exit 2). `validate` exits 0 when the band would play the pattern, 1 when not.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(
    help="Query, show, render and validate Strudel-style patterns.",
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the others
    add_completion=False,
    rich_markup_mode=None,
)

CodeArg = typer.Argument(
    ..., metavar="CODE", help="Pattern code, e.g. 's(\"bd sd\").fast(2)'; '-' reads stdin."
)
MAX_GRID_STEPS = 48  # wider cycles are quantized to this many columns


def as_fraction(t: Any) -> Fraction:
    from bandstand.patterns.to_score import as_fraction as convert

    return convert(t)


def _code(code: str) -> str:
    return sys.stdin.read() if code == "-" else code


def _evaluate(code: str) -> Any:
    from bandstand.patterns.expr import evaluate

    return evaluate(_code(code))


def _number(text: str, option: str) -> Fraction:
    from bandstand.errors import InvalidInput

    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise InvalidInput(f"{option} {text!r} is not a number; use e.g. 0, 1.5 or 1/4") from None


def _time(t: Any) -> str:
    f = as_fraction(t)
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
    pattern = _evaluate(code)
    haps = sorted(
        pattern.query_arc(b, e), key=lambda h: (as_fraction(h.part.begin), as_fraction(h.part.end))
    )
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


def _label(value: Any) -> str:
    if isinstance(value, dict):
        parts = [str(value[k]) for k in ("s", "note") if k in value]
        if "n" in value and "note" not in value:
            parts.append(f"n{value['n']}")
        if parts:
            return " ".join(parts)
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _is_drum(value: Any) -> bool:
    from bandstand.patterns.to_score import lookup_sound, value_sound

    name = value_sound(value)
    sound = lookup_sound(name) if name else None
    return sound is not None and sound.kind == "drum"


def _grid(pattern: Any, cycle: int) -> list[str]:
    """One cycle as rows of steps: 'x' an onset, '-' a held note, '.' nothing."""
    from bandstand.patterns.to_score import value_pitch

    every = pattern.query_arc(cycle, cycle + 1)
    haps = [h for h in every if h.whole is not None]
    if not haps:
        if every:
            return [f"cycle {cycle}: (a continuous signal; add .segment(8) to see it in steps)"]
        return [f"cycle {cycle}: (silence)"]
    points = {as_fraction(t) - cycle for h in haps for t in (h.part.begin, h.part.end)}
    steps = 1
    for p in points:
        steps = steps * p.denominator // math.gcd(steps, p.denominator)
    quantized = steps > MAX_GRID_STEPS
    steps = min(steps, MAX_GRID_STEPS)
    rows: dict[str, list[str]] = {}
    order: dict[str, tuple[float, str]] = {}
    for h in haps:
        label = _label(h.value)
        row = rows.setdefault(label, ["."] * steps)
        if label not in order:
            # Unpitched rows first by name, then pitched rows high to low, like a piano roll.
            pitch = value_pitch(h.value)
            order[label] = (-math.inf if pitch is None else -pitch, label)
        first = math.floor((as_fraction(h.part.begin) - cycle) * steps)
        if not _is_drum(h.value):
            last = max(first + 1, math.ceil((as_fraction(h.part.end) - cycle) * steps))
            for i in range(first, min(last, steps)):
                if row[i] == ".":
                    row[i] = "-"
        if h.has_onset():
            row[first] = "x"
    width = max(len(label) for label in rows)
    note = ", quantized" if quantized else ""
    lines = [f"cycle {cycle} ({steps} steps{note})"]
    lines += [
        f"  {label.ljust(width)} |{''.join(rows[label])}|"
        for label in sorted(rows, key=order.__getitem__)
    ]
    return lines


@app.command()
def show(
    code: str = CodeArg,
    cycles: int = typer.Option(4, "--cycles", min=1, max=64, help="How many cycles to draw."),
) -> None:
    """Draw CODE as a readable grid, one block per cycle."""
    pattern = _evaluate(code)
    for cycle in range(cycles):
        for line in _grid(pattern, cycle):
            typer.echo(line)


@app.command()
def render(
    code: str = CodeArg,
    cycles: int = typer.Option(8, "--cycles", min=1, max=1024, help="How many cycles to render."),
    bpm: float = typer.Option(
        120.0, "--bpm", min=1.0, max=1000.0, help="Tempo in quarter notes per minute."
    ),
    beats_per_cycle: int = typer.Option(
        4, "--beats-per-cycle", min=1, max=64, help="Beats in one cycle."
    ),
    out: Path = typer.Option(..., "--out", help="The MIDI file to write (e.g. loop.mid)."),
    wav: Path | None = typer.Option(None, "--wav", help="Also render audio to this WAV file."),
) -> None:
    """Render CODE to a Standard MIDI File (and optionally a WAV file)."""
    from bandstand.midi import write_midi
    from bandstand.patterns.to_score import pattern_to_song

    pattern = _evaluate(code)
    song = pattern_to_song(
        pattern, cycles, bpm=bpm, beats_per_cycle=beats_per_cycle, title="pattern"
    )
    notes = sum(len(t.notes) for t in song.tracks)
    write_midi(song, out)
    typer.echo(
        f"wrote {out} ({len(song.tracks)} tracks, {notes} notes, {cycles} cycles at {bpm:g} bpm)"
    )
    if wav is not None:
        from bandstand.render import render_wav

        render_wav(song, wav)
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
    from bandstand.patterns.validate import validate_pattern

    report = validate_pattern(_code(code), scale=scale, cycles=cycles)
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
