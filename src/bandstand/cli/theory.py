"""`bandstand theory …` — chords, scales, Roman numerals and key detection from the shell.

Each command takes several inputs and prints one line per input, or with
`--json` a JSON list of objects (one object for `key`). Bad input is a
`TheoryError`; the CLI root prints it on one line with a caret under it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from bandstand.producer.app import Chord, TheoryTools

app = typer.Typer(
    help="Music theory: chord symbols, scales, Roman numerals, key detection.",
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the root
    add_completion=False,
    rich_markup_mode=None,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _theory() -> TheoryTools:
    from bandstand.producer import App

    return App().theory()


def _emit(payload: Any) -> None:
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))


def _chord_json(chord: Chord) -> dict[str, Any]:
    return {
        "symbol": chord.symbol,
        "canonical": _theory().canonical(chord),
        "root": chord.root,
        "root_name": chord.root_name,
        "quality": chord.quality,
        "notes": list(chord.notes),
        "intervals": list(chord.intervals),
        "pitch_classes": list(chord.pitch_classes),
        "bass": chord.bass,
        "bass_name": chord.bass_name,
        "extensions": list(chord.extensions),
        "alterations": list(chord.alterations),
    }


def _chord_line(chord: Chord) -> str:
    return (
        f"{chord.symbol}  root {chord.root_name}  quality {chord.quality}  "
        f"notes {' '.join(chord.notes)}  bass {chord.bass_name}"
    )


@app.command("chord")
def chord_command(
    symbols: Annotated[list[str], typer.Argument(metavar="SYMBOL", help="Chord symbols, e.g. Cm7b5/Gb F#13#11 'Bb6/9'.")],
    as_json: JsonOpt = False,
) -> None:
    """Parse chord symbols: root, quality, notes, bass."""
    chords = _theory().chords(symbols)
    if as_json:
        _emit([_chord_json(c) for c in chords])
    else:
        for chord in chords:
            typer.echo(_chord_line(chord))


@app.command("scale")
def scale_command(
    names: Annotated[list[str], typer.Argument(metavar="SCALE", help="Scales, e.g. 'Eb dorian' 'A minor pentatonic' C4:major.")],
    as_json: JsonOpt = False,
) -> None:
    """Spell scales: notes and pitch classes."""
    scales = _theory().scales(names)
    if as_json:
        _emit([
            {
                "name": s.name,
                "tonic": s.tonic,
                "mode": s.mode_name,
                "notes": list(s.notes),
                "pitch_classes": list(s.pitch_classes),
                "intervals": list(s.intervals),
            }
            for s in scales
        ])
    else:
        for s in scales:
            pcs = " ".join(str(pc) for pc in s.pitch_classes)
            typer.echo(f"{s.name}  notes {' '.join(s.notes)}  pitch classes {pcs}")


@app.command("roman")
def roman_command(
    figures: Annotated[list[str], typer.Argument(metavar="FIGURE", help="Roman figures, e.g. ii7 V7/ii bVII N6 It6.")],
    key: Annotated[str, typer.Option("--key", "-k", metavar="KEY", help="The key, e.g. 'C major', 'F# minor', 'Eb'.")],
    as_json: JsonOpt = False,
) -> None:
    """The chord each Roman numeral names in a key."""
    read = _theory().romans(figures, key)
    k, chords = read.key, read.chords
    if as_json:
        _emit([{"figure": f, "key": k.name, **_chord_json(c)} for f, c in chords])
    else:
        for figure, chord in chords:
            typer.echo(f"{figure} in {k.name}: {_chord_line(chord)}")


@app.command("key")
def key_command(
    path: Annotated[str, typer.Argument(metavar="FILE.mid", help="A Standard MIDI File.")],
    as_json: JsonOpt = False,
    profile: Annotated[str, typer.Option("--profile", metavar="NAME", help="Key profile: combined (temperley + aarden, the default), temperley, krumhansl or aarden.")] = "combined",
) -> None:
    """Detect the key of a MIDI file (pitched tracks, weighted by duration)."""
    heard = _theory().key_heard(path, profile)
    estimate = heard.estimate
    if as_json:
        _emit({
            "file": path,
            "key": estimate.key.name,
            "tonic": estimate.key.tonic,
            "mode": estimate.key.mode,
            "confidence": estimate.confidence,
            "correlation": round(estimate.correlation, 6),
            "notes": heard.notes,
            "declared_key": heard.declared_key,
            "ranking": [{"key": k.name, "correlation": round(r, 6)} for k, r in estimate.ranking[:5]],
        })
    else:
        others = ", ".join(f"{k.name} {r:.2f}" for k, r in estimate.ranking[1:3])
        typer.echo(
            f"{path}: {estimate.key.name}  confidence {estimate.confidence:.2f}  "
            f"(correlation {estimate.correlation:.2f}; next: {others})"
        )
