"""`main.progression`: the harmony plan as a documented, human-readable text
file — a header with key, family and dial, then one line per chord with its
bars, symbol, Roman numeral, colour, tension and voicing (note names and MIDI
numbers). Lines starting with ``#`` are comments; the chord lines are
whitespace-separated columns so a script can read them back."""

from __future__ import annotations

from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.errors import TheoryError
from bandstand.theory import midi_to_note

DIAL_WORDS = ((0.9, "free chromaticism"), (0.75, "polytonal colour"), (0.5, "modal interchange"),
              (0.25, "borrowed chords"), (0.0, "diatonic"))


def dial_word(dial: float) -> str:
    return next(word for edge, word in DIAL_WORDS if dial >= edge)


def _name(midi: int, key: str) -> str:
    try:
        return midi_to_note(midi, key)
    except TheoryError:
        return midi_to_note(midi)


def progression_file(plan: HarmonyPlan) -> str:
    """The text of `progression/main.progression` for `plan`."""
    key = f"{plan.key} {plan.mode}"
    lines = [
        "# bandstand progression — the harmony plan of this session (stage 2)",
        f"# key: {key}",
        f"# family: {plan.family} vocabulary",
        f"# harmonic dial: {plan.harmonic_dial:.2f} ({dial_word(plan.harmonic_dial)})",
        f"# length: {len(plan.chords)} chords, {plan.total_bars} bars per cycle; the arrangement loops it",
        "#",
        "# columns: bar  bars  symbol  roman  colour  tension  voicing (low → high; MIDI numbers in brackets)",
        "# roman: case = quality (ii minor, V major), ø half-diminished, ° diminished, /3 = third in the bass",
        "# tension: 0 = at rest on the tonic … 1 = maximal pull towards the next chord",
        "# colour: diatonic | borrowed (parallel mode) | modal (another mode) | polytonal | chromatic",
        "",
    ]
    bar = 1
    width = max(len(c.symbol) for c in plan.chords) if plan.chords else 1
    rwidth = max(len(c.roman) for c in plan.chords) if plan.chords else 1
    for c in plan.chords:
        names = " ".join(_name(p, key) for p in c.pitches)
        midi = " ".join(str(p) for p in c.pitches)
        lines.append(f"{bar:<4} {c.bars:<4} {c.symbol:<{width}}  {c.roman:<{rwidth}}  {c.colour:<9} "
                     f"{c.tension:.2f}  {names}  [{midi}]")
        bar += c.bars
    lines += ["", f"# {plan.summary}", ""]
    return "\n".join(lines)
