"""A seed's take on a genre's form: the same idiom's sections, shaped differently from
song to song — as written, the last chorus (or hook, or drop) twice as long, a break before
it, a short intro, a verse fewer, a longer first peak — so that by the tenth song of a
genre the template is not what is heard. The choice is the seed's alone (same seed,
same form) and is made before the prompt's structure hints, which still win.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

__all__ = ["VARIANTS", "vary_form"]

S = TypeVar("S", bound=Any)  # an arrangement slot: kind, name, bars (a frozen dataclass)
PEAKS = ("chorus", "drop", "hook")


def _peaks(slots: Sequence[Any]) -> list[int]:
    return [i for i, s in enumerate(slots) if s.kind in PEAKS]


def _as_written(slots: list[S]) -> list[S]:
    return slots


def _last_peak_twice(slots: list[S]) -> list[S]:
    peaks = _peaks(slots)
    if not peaks:
        return slots
    last = peaks[-1]  # one chorus twice as long: it answers itself in its second half
    return [*slots[:last], replace(slots[last], bars=slots[last].bars * 2), *slots[last + 1:]]


def _break_before_last_peak(slots: list[S]) -> list[S]:
    peaks = _peaks(slots)
    if len(peaks) < 2 or slots[peaks[-1] - 1].kind in ("break", "bridge", "build"):
        return slots
    brk = replace(slots[peaks[-1]], kind="break", name="Break", bars=4, activation="break")
    return [*slots[:peaks[-1]], brk, *slots[peaks[-1]:]]


def _short_intro(slots: list[S]) -> list[S]:
    return [replace(s, bars=max(4, s.bars // 2)) if s.kind == "intro" and i == 0 else s for i, s in enumerate(slots)]


def _verse_fewer(slots: list[S]) -> list[S]:
    body = [i for i, s in enumerate(slots) if s.kind in ("verse", "loop", "solo")]
    if len(body) < 3 or len(slots) < 5:  # a song of two verses keeps both (the motif needs its returns)
        return slots
    cut = body[-1]
    return slots[:cut] + slots[cut + 1:]


def _long_first_peak(slots: list[S]) -> list[S]:
    peaks = _peaks(slots)
    if not peaks:
        return slots
    first = peaks[0]
    return [*slots[:first], replace(slots[first], bars=slots[first].bars * 2), *slots[first + 1:]]


# name → how it reshapes the sections; "as written" twice: the genre's own form stays the likeliest
VARIANTS: tuple[tuple[str, Callable[[list[Any]], list[Any]]], ...] = (
    ("as written", _as_written), ("as written", _as_written), ("the last peak twice as long", _last_peak_twice),
    ("a break before the last peak", _break_before_last_peak), ("a short intro", _short_intro),
    ("a verse fewer", _verse_fewer), ("a longer first peak", _long_first_peak),
)


def vary_form(slots: Sequence[S], seed: int, form: str, keep: frozenset[str] = frozenset()) -> tuple[list[S], str]:
    """`slots` (the form named `form`) as the seed's variant shapes them, and the variant's
    name; each form draws its own (one seed does not shape every genre alike). A variant that
    would lose a section named in `keep` (the idiom's own: a salsa's montuno) is not one of them."""
    written = list(slots)
    shaped = [(name, shape(written)) for name, shape in VARIANTS]
    kept = [s.name for s in written if s.name in keep]
    options = [(name, out) for name, out in shaped  # only real changes, keeping what the idiom keeps
               if name == "as written" or (out != written and [s.name for s in out if s.name in keep] == kept)]
    name, out = random.Random(f"form:{form}:{seed}").choice(options)
    return out, name
