"""Shorthands that set several controls at once, as Strudel writes them.

`adsr("a:d:s:r")` is `@strudel/core`'s (it sets attack, decay, sustain and
release), so are `as("note:clip")` (a list value becomes named controls) and
`scrub` (begin, speed and clip from "begin:speed"), `partials`/`phases` (a
list of harmonic magnitudes or phases for the core synths); `.piano()` is the one strudel.cc's REPL defines in its prebake
(`@strudel/repl` 1.2.6): the piano sound, clip 1 unless set, release 0.1, and a
pan that follows the pitch.
"""

from __future__ import annotations

import math
from typing import Any, Final

from bandstand.patterns.constructors import pure, reify
from bandstand.patterns.controls import control_names
from bandstand.patterns.ops import apply_op
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.values import note_to_midi

_ENVELOPE: Final = ("attack", "decay", "sustain", "release")
_MAX_PAN_MIDI: Final = 108  # C8, the top of the piano's pan spread


def adsr(value: Any, pat: Pattern) -> Pattern:
    """Set attack, decay, sustain and release from "a:d:s:r" (or [a, d, s, r])."""
    if not isinstance(value, list | tuple) or len(value) != len(_ENVELOPE):
        raise ValueError(f'adsr needs four values "attack:decay:sustain:release", not {value!r}')
    return apply_op("set", "in", pat, pure(dict(zip(_ENVELOPE, value, strict=True))))


def _midi(value: dict[str, Any]) -> float:
    """Strudel's valueToMidi: freq first, then note (NaN when neither is set)."""
    freq, note = value.get("freq"), value.get("note")
    if isinstance(freq, int | float) and not isinstance(freq, bool):
        return 12 * math.log(freq / 440) / math.log(2) + 69 if freq > 0 else math.nan
    if isinstance(note, str):
        return note_to_midi(note)
    if isinstance(note, int | float) and not isinstance(note, bool):
        return note
    raise ValueError(".piano() needs notes (note or freq) to place them across the stereo field")


def _js_round(x: float) -> float:
    return math.floor(x + 0.5)


def _pan(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError(".piano() works on control values such as note(...)")
    spread = min(_js_round(_midi(value)) / _MAX_PAN_MIDI, 1) * 0.5 + 0.25
    pan = value.get("pan") or 1
    return {**value, "pan": pan * spread}


def piano(pat: Pattern) -> Pattern:
    """strudel.cc's `.piano()`: s("piano"), clip 1 unless set, release 0.1, pan by pitch."""

    def clip(value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError(".piano() works on control values such as note(...)")
        return value if value.get("clip") is not None else {**value, "clip": 1}

    played = apply_op("set", "in", pat.with_value(clip), pure({"s": "piano", "release": 0.1}))
    return played.with_value(_pan)


def as_controls(mapping: Any, pat: Pattern) -> Pattern:
    """Name the parts of each value: "c:.5".as("note:clip") is {note: "c", clip: 0.5}."""
    names = mapping if isinstance(mapping, list) else [mapping]
    table = control_names()
    keys = [table[str(n)][0] if str(n) in table else str(n) for n in names]

    def named(value: Any) -> dict[str, Any]:
        parts = value if isinstance(value, list) else [value]
        return {key: parts[i] for i, key in enumerate(keys) if i < len(parts) and parts[i] is not None}

    return pat.with_value(named)


def scrub(position: Pattern, pat: Pattern) -> Pattern:
    """Play from `begin` (0…1 of the sample) at a speed factor: "0.25:1.5"; clip 1."""

    def at(value: Any) -> Pattern:
        parts = value if isinstance(value, list) else [value]
        begin = parts[0] if parts else None
        factor = parts[1] if len(parts) > 1 and parts[1] is not None else 1
        started = apply_op("set", "in", pat, pure({"begin": begin}))
        sped = apply_op("mul", "in", started, pure({"speed": factor}))
        return apply_op("set", "in", sped, pure({"clip": 1}))

    return position.outer_bind(at)


def list_pattern(items: Any) -> Pattern:
    """Strudel's _ensureListPattern: a list of patterns becomes a pattern of lists (parray,
    structure from all of them); anything else is reified."""
    if not isinstance(items, list):
        return reify(items)
    acc = pure([])
    for item in items:
        acc = acc.fmap(lambda xs: lambda v, xs=xs: [*xs, v]).app_both(reify(item))
    return acc


def _list_control(name: str) -> Any:
    """partials/phases: `p.partials(list)` sets the control with structure from p;
    `partials(list)` alone is `list.as("partials")` (so its value is the list's first item)."""

    def control(*args: Any) -> Pattern:
        if len(args) == 1:
            return as_controls(name, list_pattern(args[0]))
        if len(args) != 2 or not isinstance(args[0], Pattern):
            raise ValueError(f"{name} takes one list, e.g. .{name}([1, 0.5, 0.25])")
        pat: Pattern = args[0]
        return pat.fmap(lambda v: lambda item: {**v, name: item}).app_left(list_pattern(args[1]))

    return control


partials = _list_control("partials")
phases = _list_control("phases")
