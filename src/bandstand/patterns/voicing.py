"""Chord voicings as `@strudel/tonal` 1.2.6 renders them: `voicing()` and `rootNotes()`.

`chord("<Am7 D7>").voicing()` turns each chord symbol into the notes of one
voicing from a dictionary (`voicing_tables`; "ireal" unless the `dictionary`
control names another), chosen so that its top note (mode "below", the default)
or bottom note ("above", "root") lands nearest the `anchor` (c5 by default), or
the voicing's lowest note is dropped when it doubles the anchor ("duck").
`offset` picks the next voicings up, `n` picks one note by its index (a
number, over `octaves`). As in Strudel, a chord it cannot voice is silence,
and the dictionary's own anchor and mode are not used (Strudel passes the
controls over them).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from bandstand.patterns import voicing_tables as tables
from bandstand.patterns.constructors import pure, stack
from bandstand.patterns.pattern import Pattern, silence
from bandstand.patterns.values import norm_number, note_to_midi
from bandstand.theory._intervals import parse_interval
from bandstand.theory._notes import FLAT_NAMES

_FLATS: Final = FLAT_NAMES  # Strudel's voicings spell with flats
_PCS: Final = tuple(name.lower() for name in FLAT_NAMES)
_ACCIDENTALS: Final = {"b": -1, "#": 1}
_CHORD: Final = re.compile(r"^([A-G][b#]*)([^/]*)[/]?([A-G][b#]*)?$")
_ROOT: Final = re.compile(r"^([a-gA-G][b#]?).*$")
_VOICING_CONTROLS: Final = frozenset(
    {"dictionary", "chord", "anchor", "offset", "mode", "n", "octaves"}
)


def _aliased(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Strudel's aliases for the iReal tables: no symbol is major ("^"); "-" is also
    written "m", "^" also "M", "+" also "aug"."""
    out = dict(table)
    out[""] = out["^"]
    for symbol in table:
        for sign, word in (("-", "m"), ("^", "M"), ("+", "aug")):
            if sign in symbol:
                out[symbol.replace(sign, word, 1)] = table[symbol]
    return out


# The named dictionaries of Strudel's voicing registry.
DICTIONARIES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "lefthand": tables.LEFTHAND,
    "triads": tables.TRIADS,
    "guidetones": tables.GUIDETONES,
    "legacy": tables.LEGACY,
    "ireal": _aliased(tables.IREAL),
    "ireal-ext": _aliased(tables.IREAL_EXT),
}
DEFAULT_DICTIONARY: Final = "ireal"

# Which note of a voicing is compared with the anchor, per mode.
_MODE_TARGET: Final[dict[str, Callable[[Sequence[float]], float]]] = {
    "below": lambda v: v[-1],
    "duck": lambda v: v[-1],
    "above": lambda v: v[0],
    "root": lambda v: v[0],
}


class _Unvoiceable(Exception):
    """The chord, dictionary or controls cannot make a voicing (Strudel plays silence)."""


def _mod(n: float, m: int) -> float:
    return ((n % m) + m) % m


def _pc_chroma(pc: str) -> int:
    return _PCS.index(pc[0].lower()) + sum(_ACCIDENTALS[c] for c in pc[1:])


def _semitones(step: str) -> float:
    """A step as semitones: a number ("7") or an interval ("3M"), as tonleiter's step2semitones."""
    try:
        return float(step) if step.strip() else 0.0
    except ValueError:
        pass
    try:
        return parse_interval(step).semitones
    except Exception as exc:
        raise _Unvoiceable(f"not an interval: {step}") from exc


def _midi(x: Any, default_octave: int) -> float:
    if isinstance(x, int | float) and not isinstance(x, bool):
        return x
    if isinstance(x, str):
        try:
            return note_to_midi(x, default_octave)
        except ValueError as exc:
            raise _Unvoiceable(str(exc)) from exc
    raise _Unvoiceable(f"not a note: {x!r}")


def _note_name(midi: float) -> str:
    if midi != int(midi):
        raise _Unvoiceable(f"{midi} is not a whole note number")
    midi = int(midi)
    return f"{_FLATS[midi % 12]}{math.floor(midi / 12) - 1}"


def render_voicing(
    chord: Any,
    dictionary: dict[str, tuple[str, ...]],
    *,
    offset: Any = None,
    n: Any = None,
    mode: Any = None,
    anchor: Any = None,
    octaves: Any = None,
) -> list[Any]:
    """The notes of `chord` (names, or one MIDI number when `n` is given); tonleiter's
    renderVoicing."""
    offset = 0 if offset is None else offset
    mode = "below" if mode is None else mode
    anchor = "c5" if anchor is None else anchor
    octaves = 1 if octaves is None else octaves
    match = _CHORD.match(chord) if isinstance(chord, str) else None
    if match is None or match.group(2) not in dictionary or mode not in _MODE_TARGET:
        raise _Unvoiceable(f"cannot voice {chord!r}")
    root, symbol = match.group(1), match.group(2)
    root_chroma = _pc_chroma(root)
    anchor_midi = _midi(anchor.get("note") if isinstance(anchor, dict) else anchor, 4)
    anchor_chroma = anchor_midi % 12
    voicings = [[_semitones(s) for s in v.split(" ")] for v in dictionary[symbol]]
    if not voicings or not all(voicings):
        raise _Unvoiceable(f"no voicing for {symbol!r}")
    target = _MODE_TARGET[mode]
    diffs = [_mod(anchor_chroma - target(v) - root_chroma, 12) for v in voicings]
    best = 0 if mode == "root" else diffs.index(min(diffs))
    if not isinstance(offset, int | float) or not isinstance(octaves, int | float):
        raise _Unvoiceable("offset and octaves are numbers")
    octave_shift = math.ceil(offset / len(voicings)) * 12
    index = int(_mod(best + offset, len(voicings)))
    voicing = voicings[index]
    top = anchor_midi - diffs[index] + octave_shift
    midis = [top - target(voicing) + v for v in voicing]
    notes = [_note_name(m) for m in midis]
    if mode == "duck":
        notes = [name for name, m in zip(notes, midis, strict=True) if m != anchor_midi]
    if n is None:
        return notes
    if not isinstance(n, int | float) or not notes:
        raise _Unvoiceable("n picks a note by its index")
    numbers = [note_to_midi(name) for name in notes]
    shift = math.floor(n / len(numbers)) * octaves * 12
    picked = numbers[int(_mod(n, len(numbers)))] + shift
    return [picked]


def _voiced(value: Any, dictionaries: dict[str, dict[str, tuple[str, ...]]]) -> Pattern:
    value = {"chord": value} if isinstance(value, str) else value
    if not isinstance(value, dict):
        return silence
    name = value.get("dictionary", DEFAULT_DICTIONARY)
    if isinstance(name, str):
        dictionary = dictionaries.get(name)
    elif isinstance(name, dict):
        dictionary = {str(k): tuple(v) if isinstance(v, list) else (v,) for k, v in name.items()}
    else:
        dictionary = None
    rest = {k: v for k, v in value.items() if k not in _VOICING_CONTROLS}
    if dictionary is None:
        return silence
    try:
        notes = render_voicing(
            value.get("chord"),
            dictionary,
            offset=value.get("offset"),
            n=value.get("n"),
            mode=value.get("mode"),
            anchor=value.get("anchor"),
            octaves=value.get("octaves"),
        )
    except _Unvoiceable:
        return silence
    return stack(*(pure({"note": note, **rest}) for note in notes))


def voicing(pat: Pattern, dictionaries: dict[str, dict[str, tuple[str, ...]]] | None = None) -> Pattern:
    """Each chord symbol (or `chord` control) becomes the notes of its voicing; `dictionaries`
    by name (default: Strudel's; a program that adds its own passes them, looked up when
    the pattern is queried, as Strudel's registry is)."""
    known = DICTIONARIES if dictionaries is None else dictionaries
    return pat.fmap(lambda value: _voiced(value, known)).outer_join()


def voicing_dictionary(name: Any, table: Any) -> dict[str, tuple[str, ...]]:
    """A dictionary given to addVoicings/registerVoicings: symbol → voicings ("3M 5P 7m" or
    "0 4 7"); ValueError with the reason when it is not one."""
    if not isinstance(name, str) or not isinstance(table, dict):
        raise ValueError("takes a name in '…' and an object of chord symbols, e.g. {m7: ['3m 5P 7m']}")
    out: dict[str, tuple[str, ...]] = {}
    for symbol, voicings in table.items():
        items = voicings if isinstance(voicings, list) else [voicings]
        if not items or not all(isinstance(v, str) for v in items):
            raise ValueError(f"the voicings of '{symbol}' must be '…' strings such as '3M 5P 7m'")
        out[str(symbol)] = tuple(items)
    return out


def root_notes(octave: Any, pat: Pattern) -> Pattern:
    """The root of each chord symbol at `octave` (a `note` when the value is a `chord`)."""

    def root(value: Any) -> Any:
        chord = value.get("chord") if isinstance(value, dict) else value
        match = _ROOT.match(chord) if isinstance(chord, str) else None
        if match is None:
            raise ValueError(f"rootNotes: {chord!r} is not a chord symbol")
        note = f"{match.group(1)}{norm_number(octave) if isinstance(octave, float) else octave}"
        return {"note": note} if isinstance(value, dict) and value.get("chord") else note

    return pat.with_value(root)
