"""Writer: phrase → pattern code (Strudel mini-notation, as the jam plays it and
the studio shows it), so a phrase can be read and edited as code.

Drums become one `s("…")` layer per drum sound (accents and ghost notes apart,
each with its gain), stacked. Pitched parts become `note("…")` — or
`n("…").scale("C4:minor")` in scale degrees when every note is in the scale —
with chords stacked as `[c3,eb3,g3]`. A bar is one cycle; bars that differ
alternate as `<[bar 1] [bar 2] …>`; each counting unit of the metre (a beat,
or an eighth in x/8) is written at the finest subdivision its notes need. When
every bar plays the same rhythm with one pitch, the pitches and the rhythm are
written apart: `note("<c2 ab1 eb2 bb1>").struct("x ~ ~ x")`.

Swing becomes `.swingBy(x, n)`; a time feel is either written into the notes
or, with `feel_as_speed`, said as `.fast(2)` / `.slow(2)`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bandstand.craft.knobs import SWING_FULL
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.to_track import apply_time_feel
from bandstand.theory import FLAT_NAMES, SHARP_NAMES

__all__ = ["DRUM_SOUNDS", "GHOST", "note_name", "to_pattern"]

# GM drum keys → the pattern engine's drum names.
DRUM_SOUNDS: dict[int, str] = {
    35: "bd", 36: "bd", 37: "rim", 38: "sd", 40: "sd", 39: "cp", 42: "hh", 44: "hh", 46: "oh",
    49: "cr", 52: "cr", 55: "cr", 57: "cr", 51: "rd", 53: "rd", 59: "rd", 41: "lt", 43: "lt", 45: "lt",
    47: "mt", 48: "mt", 50: "ht", 56: "cb", 69: "sh", 70: "sh", 54: "tb",
}
OTHER_DRUM = "perc"
GHOST = 60  # velocities below this form their own, quieter layer
SUBDIVISIONS = (1, 2, 3, 4, 6, 8, 12, 16, 24)


def note_name(pitch: int, sharps: bool = False) -> str:
    """A MIDI pitch as a mini-notation note (`c4` = 60, `ab1` = 32)."""
    return f"{(SHARP_NAMES if sharps else FLAT_NAMES)[pitch % 12].lower()}{pitch // 12 - 1}"


def _num(x: float) -> str:
    return f"{x:g}"


TICKS = 96  # per beat: sixteenths, eighth- and sixteenth-triplets and thirty-seconds all land on it


def _unit_cell(tokens: list[tuple[int, str]], length: int) -> str:
    """One counting unit (`length` ticks) as mini-notation: its notes at the coarsest
    subdivision that holds them all (`~`, `bd`, `[bd ~ sd ~]`, `hh*4`)."""
    if not tokens:
        return "~"
    for d in SUBDIVISIONS:
        if all(t * d % length == 0 for t, _ in tokens):
            break
    else:
        d = SUBDIVISIONS[-1]
    slots: list[list[str]] = [[] for _ in range(d)]
    for t, tok in tokens:
        slots[min(d - 1, t * d // length)].append(tok)
    cells = ["~" if not s else s[0] if len(s) == 1 else "[" + ",".join(dict.fromkeys(s)) + "]" for s in slots]
    if d == 1:
        return cells[0]
    if all(c == cells[0] for c in cells) and cells[0] != "~":
        return f"{cells[0]}*{d}"
    if all(c == "~" for c in cells[1:]):
        return cells[0]
    return "[" + " ".join(cells) + "]"


def _bar_text(events: Sequence[NoteEvent], bar: int, phrase: Phrase, token: dict[int, str],
              sustain: bool = False) -> str:
    """One bar as mini-notation, unit by unit; with `sustain`, a unit whose notes ring
    through the silent units after it takes their time as its weight (`[c3,e3,g3]@4`)."""
    unit = max(1, round(phrase.pulse * TICKS))
    units = max(1, round(phrase.beats_per_bar / phrase.pulse))
    origin = round(bar * phrase.beats_per_bar * TICKS)
    cells: list[list[tuple[int, str]]] = [[] for _ in range(units)]
    ends = [0] * units
    for e in sorted(events, key=lambda e: (e.start, e.pitch)):
        rel = round(e.start * TICKS) - origin
        k = min(units - 1, max(0, rel // unit))
        cells[k].append((rel - k * unit, token[e.pitch]))
        ends[k] = max(ends[k], rel + round(e.duration * TICKS))
    texts = [_unit_cell(c, unit) for c in cells]
    if not sustain:
        return " ".join(texts)
    out: list[str] = []
    k = 0
    while k < units:
        weight = 1
        on_the_unit = all(t == 0 for t, _ in cells[k])  # a subdivided unit cannot be stretched
        while cells[k] and on_the_unit and k + weight < units and not cells[k + weight] \
                and ends[k] > (k + weight) * unit:
            weight += 1
        out.append(texts[k] if weight == 1 else f"{texts[k]}@{weight}")
        k += weight
    if len(out) == 1:  # one cell for the whole bar: it fills the cycle without a weight
        return texts[0]
    return " ".join(out)


def _sequence(bars: list[str]) -> str:
    """Bars as one cycle each: a single bar bare, several alternating (a silent bar as `~`)."""
    bars = ["~" if set(b.split()) == {"~"} else b for b in bars]
    if all(b == bars[0] for b in bars):
        return bars[0]
    return "<" + " ".join(f"[{b}]" if " " in b or "@" in b else b for b in bars) + ">"


def _by_bar(events: Sequence[NoteEvent], phrase: Phrase) -> list[list[NoteEvent]]:
    out: list[list[NoteEvent]] = [[] for _ in range(max(1, phrase.bars))]
    for e in events:
        b = int((e.start + 1e-6) // phrase.beats_per_bar)
        if 0 <= b < len(out):
            out[b].append(e)
    return out


def _gain(events: Sequence[NoteEvent]) -> str:
    return _num(round(sum(e.velocity for e in events) / len(events) / 127, 2))


def _drums(events: list[NoteEvent], phrase: Phrase) -> list[str]:
    layers: dict[tuple[str, bool], list[NoteEvent]] = {}
    for e in events:
        name = DRUM_SOUNDS.get(e.pitch, OTHER_DRUM)
        layers.setdefault((name, e.velocity < GHOST), []).append(e)
    order = list(dict.fromkeys([*DRUM_SOUNDS.values(), OTHER_DRUM]))
    out = []
    for (name, _ghost), evs in sorted(layers.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        token = {e.pitch: name for e in evs}
        bars = [_bar_text(b, i, phrase, token) for i, b in enumerate(_by_bar(evs, phrase))]
        out.append(f's("{_sequence(bars)}").gain({_gain(evs)})')
    return out


def _degree_tokens(pitches: set[int], scale: tuple[int, ...], tonic: int, octave: int) -> dict[int, str] | None:
    """Scale degrees (0 = the tonic in `octave`) of each pitch, or None if one is off the scale."""
    ladder = sorted((pc - tonic) % 12 for pc in scale)
    root = (octave + 1) * 12 + tonic
    out = {}
    for p in pitches:
        rel = p - root
        octs, within = divmod(rel, 12)
        if within not in ladder:
            return None
        out[p] = str(octs * len(ladder) + ladder.index(within))
    return out


def _pitched(events: list[NoteEvent], phrase: Phrase, scale: tuple[int, ...] | None, tonic: int,
             scale_name: str | None, sharps: bool) -> str:
    pitches = {e.pitch for e in events}
    octave = sorted(e.pitch for e in events)[len(events) // 2] // 12 - 1
    degrees = _degree_tokens(pitches, scale, tonic, octave) if scale and scale_name else None
    token = degrees or {p: note_name(p, sharps) for p in pitches}
    bars = _by_bar(events, phrase)
    onsets = [tuple(sorted({round(e.start - i * phrase.beats_per_bar, 4) for e in b})) for i, b in enumerate(bars)]
    single = all(len({e.pitch for e in b}) == 1 for b in bars)
    if single and all(o == onsets[0] for o in onsets):
        roots = _sequence([token[b[0].pitch] for b in bars])
        rhythm = _bar_text(bars[0], 0, phrase, {e.pitch: "x" for e in bars[0]}, sustain=True)
        head = f'{"n" if degrees else "note"}("{roots}")'
        code = head if rhythm == "x" else f'{head}.struct("{rhythm}")'
    else:
        line = _sequence([_bar_text(b, i, phrase, token, sustain=True) for i, b in enumerate(bars)])
        code = f'{"n" if degrees else "note"}("{line}")'
    if degrees:
        code += f'.scale("{_scale_arg(scale_name or "", octave)}")'
    return code


def _scale_arg(scale_name: str, octave: int) -> str:
    """`C:minor` with an octave → `C4:minor`."""
    tonic, _, mode = scale_name.partition(":")
    return f"{tonic}{octave}:{mode}"


def _swing(phrase: Phrase) -> str:
    amounts = Counter(round(x, 4) for x in phrase.feel.swing)
    if not amounts:
        return ""
    amount, _ = amounts.most_common(1)[0]
    if amount <= 0:
        return ""
    per_cycle = max(1, round(phrase.beats_per_bar / (2 * phrase.feel.swing_unit)))
    text = "1/3" if abs(amount - SWING_FULL) < 0.01 else _num(round(amount, 3))
    return f".swingBy({text}, {per_cycle})"


def to_pattern(phrase: Phrase, *, sound: str | None = None, scale: tuple[int, ...] | None = None,
               tonic: int = 0, scale_name: str | None = None, sharps: bool = False, effects: str = "",
               feel_as_speed: bool = False) -> str:
    """The phrase as pattern code. `sound` names the voice (`.s("sawtooth")`) of a pitched
    part; `scale`, `tonic` and `scale_name` ("C:minor") let a melody be written in scale
    degrees; `effects` is appended as written (".lpf(800).room(0.3)"). With
    `feel_as_speed` a uniform half or double time is written as `.slow(2)` / `.fast(2)`
    after the notes as they are at normal time; otherwise the notes carry it."""
    feels = set(phrase.feel.time_feel) or {1.0}
    speed = ""
    if feel_as_speed and len(feels) == 1 and feels != {1.0}:
        events = list(phrase.events)
        speed = ".fast(2)" if feels == {2.0} else ".slow(2)"
    else:
        events = apply_time_feel(phrase)
    if not events:
        return "silence"
    if phrase.is_drum:
        layers = _drums(events, phrase)
        code = layers[0] if len(layers) == 1 else "stack(" + ", ".join(layers) + ")"
    else:
        code = _pitched(events, phrase, scale, tonic, scale_name, sharps)
        if sound:
            code += f'.s("{sound}")'
    return code + effects + speed + _swing(phrase)
