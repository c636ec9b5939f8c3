"""`main.progression`: the harmony plan as a documented, human-readable text
file — a header with key, family and dial, the progression of each section
function and the ending, then one line per chord of the song's vocabulary
with its number, bars, symbol, Roman numeral, colour, tension and voicing
(note names spelled as the chord spells them, and MIDI numbers). Lines
starting with ``#`` are comments; the chord lines are whitespace-separated
columns so a script can read them back."""

from __future__ import annotations

from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.errors import TheoryError
from bandstand.theory import midi_to_note, parse_chord, pitch_class

DIAL_WORDS = ((0.9, "free chromaticism"), (0.75, "polytonal colour"), (0.5, "modal interchange"),
              (0.25, "borrowed chords"), (0.0, "diatonic"))


def dial_word(dial: float) -> str:
    return next(word for edge, word in DIAL_WORDS if dial >= edge)


def _name(midi: int, key: str) -> str:
    try:
        return midi_to_note(midi, key)
    except TheoryError:
        return midi_to_note(midi)


def spelled(midi: int, symbol: str, key: str) -> str:
    """`midi` named as the chord spells that tone (F# in D13 whatever the key), with its
    octave (B#3 is the C of octave 4); a tone the chord lacks is spelled by the key."""
    try:
        names = parse_chord(symbol).notes
    except TheoryError:
        return _name(midi, key)
    name = next((n for n in names if pitch_class(n) == midi % 12), None)
    if name is None:
        return _name(midi, key)
    octave = midi // 12 - 1
    letter = name[0].upper()
    if letter == "B" and midi % 12 < 3:  # B# or Bx: the letter belongs to the octave below
        octave -= 1
    elif letter == "C" and midi % 12 > 9:  # Cb or Cbb: the letter belongs to the octave above
        octave += 1
    return f"{name}{octave}"


def progression_file(plan: HarmonyPlan) -> str:
    """The text of `progression/main.progression` for `plan`."""
    key = f"{plan.key} {plan.mode}"
    lines = [
        "# bandstand progression — the harmony plan of this session (stage 2)",
        f"# key: {key}",
        f"# family: {plan.family} vocabulary",
        f"# harmonic dial: {plan.harmonic_dial:.2f} ({dial_word(plan.harmonic_dial)})",
        f"# form: {plan.grammar or 'loop'}; {len(plan.chords)} chords, the main loop {plan.total_bars} bars",
        "#",
        "# sections (one chord per bar of one pass; each section plays its own from its first bar):",
        *[f"#   {s.function:<10} {' | '.join(plan.chords[i].symbol for i in s.chords)}" for s in plan.sections],
        *([f"#   {'ending':<10} {' | '.join(plan.chords[i].symbol for i in plan.ending)}   ({plan.ending_name})"]
          if plan.ending else []),
        "#",
        "# columns: chord  bars  symbol  roman  colour  tension  voicing (low → high; MIDI numbers in brackets)",
        "# roman: case = quality (ii minor, V major), ø half-diminished, ° diminished, /3 = third in the bass",
        "# tension: 0 = at rest on the tonic … 1 = maximal pull towards the next chord",
        "# colour: diatonic | borrowed (parallel mode) | modal (another mode) | polytonal | chromatic",
        "",
    ]
    width = max(len(c.symbol) for c in plan.chords) if plan.chords else 1
    rwidth = max(len(c.roman) for c in plan.chords) if plan.chords else 1
    for number, c in enumerate(plan.chords, start=1):
        names = " ".join(spelled(p, c.symbol, key) for p in c.pitches)
        midi = " ".join(str(p) for p in c.pitches)
        lines.append(f"{number:<4} {c.bars:<4} {c.symbol:<{width}}  {c.roman:<{rwidth}}  {c.colour:<9} "
                     f"{c.tension:.2f}  {names}  [{midi}]")
    lines += ["", f"# {plan.summary}", ""]
    return "\n".join(lines)
