"""The chord-symbol grammar: token tables and the suffix parser.

A symbol is ROOT SUFFIX [/BASS]. The suffix is read left to right against
token tables: one quality word at the start (``m``, ``maj``, ``dim``, ``ø``,
``+`` …), then at most one extension number (6, 6/9, 7, 9, 11, 13) and any
modifiers (``sus4``, ``add9``, ``b9``, ``#11``, ``alt``, ``no3``), with
parentheses, commas and spaces ignored. The result is the set of chord tones
as interval names from the root (``1P 3m 5d 7m``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from bandstand.errors import TheoryError
from bandstand.theory._intervals import Interval, parse_interval

#: quality → (third, fifth, seventh used when an extension is written); None = no third.
QUALITY_TONES: dict[str, tuple[str | None, str, str]] = {
    "dom": ("3M", "5P", "7m"),
    "maj": ("3M", "5P", "7M"),
    "min": ("3m", "5P", "7m"),
    "minmaj": ("3m", "5P", "7M"),
    "dim": ("3m", "5d", "7d"),
    "half": ("3m", "5d", "7m"),
    "aug": ("3M", "5A", "7m"),
    "augmaj": ("3M", "5A", "7M"),
    "power": (None, "5P", "7m"),
}
#: words that may open a suffix → quality. Matched longest first, case-sensitively.
QUALITY_WORDS: dict[str, str] = {
    "major": "maj", "maj": "maj", "Maj": "maj", "MAJ": "maj", "M": "maj", "Δ": "maj", "^": "maj",
    "minor": "min", "min": "min", "mi": "min", "m": "min", "-": "min",
    "dim": "dim", "°": "dim", "o": "dim",
    "aug": "aug", "+": "aug",
    "ø": "half", "Ø": "half",
}
#: a major word after a minor or augmented quality makes it minor-major / augmented-major.
_MAJOR_AFTER: dict[str, str] = {"min": "minmaj", "aug": "augmaj"}
_WORDS_LONGEST_FIRST: tuple[str, ...] = tuple(sorted(QUALITY_WORDS, key=len, reverse=True))
_IMPLIES_SEVENTH = frozenset({"Δ", "^", "ø", "Ø"})
#: extension number → tones it adds ("7" stands for the quality's seventh).
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "6": ("6M",),
    "69": ("6M", "9M"),
    "6/9": ("6M", "9M"),
    "7": ("7",),
    "9": ("7", "9M"),
    "11": ("7", "9M", "11P"),
    "13": ("7", "9M", "11P?", "13M"),  # the 11th only under a minor third (it clashes with a major one)
}
#: (accidental, degree) → the altered tone; it replaces the natural tone of that degree.
ALTERATIONS: dict[tuple[int, str], str] = {
    (-1, "5"): "5d", (1, "5"): "5A",
    (-1, "9"): "9m", (1, "9"): "9A",
    (1, "11"): "11A",
    (-1, "13"): "13m", (-1, "6"): "6m", (1, "6"): "6A",
    (1, "4"): "4A",
}
NATURALS: dict[str, str] = {"5": "5P", "9": "9M", "11": "11P", "13": "13M", "6": "6M", "4": "4P"}
#: add-tones: "add9" etc.
ADDS: dict[str, str] = {"2": "2M", "4": "4P", "6": "6M", "9": "9M", "11": "11P", "13": "13M"}
ALT_TONES: tuple[str, ...] = ("9m", "9A", "11A", "13m")
_ACC: dict[str, int] = {"b": -1, "♭": -1, "-": -1, "#": 1, "♯": 1, "+": 1}
_SEPARATORS = frozenset("(), ")
_ALTER_RE = re.compile(r"(b|♭|-|#|♯|\+)(13|11|9|6|5|4)")
_ADD_RE = re.compile(r"add(b|♭|#|♯)?(13|11|9|6|4|2)")
_EXT_RE = re.compile(r"6/9|69|13|11|9|7|6")
_TENSION_RE = re.compile(r"13|11|9")
_WORD_RE = re.compile(r"sus2|sus4|sus|alt|no3|no5|omit3|omit5")


@cache
def tone(name: str) -> Interval:
    """The interval of a chord-tone name (cached)."""
    return parse_interval(name)


def tone_name(interval: Interval) -> str:
    """The chord-tone name of an upward interval: ``Interval(2, 4)`` → ``"3M"``."""
    return f"{interval.number}{interval.quality}"


def tone_number(name: str) -> int:
    return tone(name).number


def sort_tones(tones: set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(tones, key=lambda t: (tone(t).steps, tone(t).semitones)))


@dataclass(slots=True)
class _State:
    quality: str = "dom"
    extension: str | None = None
    implied_seventh: bool = False
    steps: list[tuple[str, str]] = field(default_factory=list)  # (kind, value) modifiers in order


def _fail(symbol: str, position: int, why: str) -> TheoryError:
    return TheoryError(f"{why} in chord {symbol!r} at position {position}", text=symbol, position=position)


def _read(suffix: str, symbol: str, offset: int) -> _State:
    state = _State()
    i = 0
    words = _WORDS_LONGEST_FIRST
    if suffix[:1] == "5":
        state.quality = "power"
        i = 1
    for word in words if i == 0 and not suffix.startswith("omit") else ():
        if suffix.startswith(word):
            state.quality = QUALITY_WORDS[word]
            state.implied_seventh = word in _IMPLIES_SEVENTH
            i = len(word)
            break
    while i < len(suffix):
        ch = suffix[i]
        if ch in _SEPARATORS:
            i += 1
            continue
        rest = suffix[i:]
        if state.quality in _MAJOR_AFTER and state.extension is None:
            major = next((w for w in words if QUALITY_WORDS[w] == "maj" and rest.startswith(w)), None)
            if major is not None:
                state.quality = _MAJOR_AFTER[state.quality]
                state.implied_seventh = major in _IMPLIES_SEVENTH
                i += len(major)
                continue
        if state.extension is None and not state.steps and (m := _EXT_RE.match(rest)):
            state.extension = m.group(0).replace("/", "")
            i += m.end()
            continue
        if m := _ALTER_RE.match(rest):
            if (_ACC[m.group(1)], m.group(2)) not in ALTERATIONS:
                raise _fail(symbol, offset + i, f"cannot alter the {m.group(2)} as {m.group(0)!r}")
            state.steps.append(("alter", m.group(0)))
        elif m := _ADD_RE.match(rest):
            if m.group(1) and (_ACC[m.group(1)], m.group(2)) not in ALTERATIONS:
                raise _fail(symbol, offset + i, f"cannot add {m.group(0)!r}")
            state.steps.append(("add", m.group(0)))
        elif m := _WORD_RE.match(rest):
            state.steps.append(("word", m.group(0)))
        elif state.extension is None and (m := _EXT_RE.match(rest)):
            state.extension = m.group(0).replace("/", "")
        elif m := _TENSION_RE.match(rest):  # "C7(9)", "Cm7(11)": a bare tension after the extension
            state.steps.append(("add", "add" + m.group(0)))
        else:
            what = "second extension" if _EXT_RE.match(rest) else "unknown chord quality"
            raise _fail(symbol, offset + i, f"{what} {rest!r}")
        i += m.end()
    return state


def suffix_tones(suffix: str, symbol: str = "", offset: int = 0) -> frozenset[str]:
    """Chord tones (interval names) of a suffix such as ``"m7b5"`` or ``"7(b9,#11)"``."""
    state = _read(suffix, symbol or suffix, offset)
    third, fifth, seventh = QUALITY_TONES[state.quality]
    tones: set[str] = {"1P", fifth} | ({third} if third else set())
    extension = state.extension
    if extension is None and (state.implied_seventh or state.quality == "half"):
        extension = "7"
    if extension is None and any(v == "alt" for _, v in state.steps):
        extension = "7"
    for added in EXTENSIONS.get(extension or "", ()):
        if added == "7":
            tones.add(seventh)
        elif added == "11P?":
            if third == "3m":
                tones.add("11P")
        else:
            tones.add(added)
    for kind, value in state.steps:
        _apply(tones, kind, value)
    return frozenset(tones)


def _apply(tones: set[str], kind: str, value: str) -> None:
    if kind == "alter":
        m = _ALTER_RE.fullmatch(value)
        assert m is not None
        acc, degree = _ACC[m.group(1)], m.group(2)
        altered = ALTERATIONS[(acc, degree)]
        tones.discard(NATURALS[degree])
        tones.add(altered)
    elif kind == "add":
        m = _ADD_RE.fullmatch(value)
        assert m is not None
        base = ADDS[m.group(2)]
        if m.group(1):
            base = ALTERATIONS[(_ACC[m.group(1)], m.group(2))]
        tones.add(base)
    elif value in ("sus4", "sus", "sus2"):
        tones.difference_update({"3M", "3m"})
        tones.add("2M" if value == "sus2" else "4P")
    elif value == "alt":
        tones.difference_update({"5P", "9M", "11P", "13M"})
        tones.update(ALT_TONES)
    elif value in ("no3", "omit3"):
        tones.difference_update({"3M", "3m"})
    else:  # no5 / omit5
        tones.difference_update({"5P", "5d", "5A"})


#: Base suffixes that `format` tries, in order of preference ("maj" prints as nothing).
BASE_SUFFIXES: tuple[str, ...] = (
    "maj", "m", "dim", "aug", "sus4", "sus2", "5",
    "7", "maj7", "m7", "m7b5", "dim7", "mMaj7", "aug7", "maj7#5", "7sus4",
    "6", "m6", "6/9", "m6/9",
    "9", "maj9", "m9", "mMaj9", "9sus4",
    "11", "maj11", "m11", "13", "maj13", "m13", "13sus4", "7alt",
)
#: Added or altered tone → the modifier that produces it on top of a base.
MODIFIER_FOR: dict[str, str] = {
    "5d": "b5", "5A": "#5", "9m": "b9", "9A": "#9", "11A": "#11", "13m": "b13", "6m": "b6", "6A": "#6", "4A": "#4",
    "9M": "add9", "11P": "add11", "13M": "add13", "2M": "add2", "4P": "add4", "6M": "add6",
}


@cache
def base_tones() -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((s, suffix_tones(s)) for s in BASE_SUFFIXES)


def _modifiers(base: frozenset[str], target: frozenset[str]) -> list[str] | None:
    removed, added = set(base - target), set(target - base)
    mods: list[str] = []
    thirds = removed & {"3M", "3m"}
    if thirds and not target & {"3M", "3m"}:
        removed -= thirds
        if "4P" in added:
            added.discard("4P")
            mods.append("sus4")
        elif "2M" in added:
            added.discard("2M")
            mods.append("sus2")
        else:
            mods.append("no3")
    fifths = removed & {"5P", "5d", "5A"} if not target & {"5P", "5d", "5A"} else set()
    # alterations before add-tones: an alteration replaces the natural tone an add would bring
    for name in sorted(sort_tones(added), key=lambda t: MODIFIER_FOR.get(t, "b")[0] not in "b#"):
        modifier = MODIFIER_FOR.get(name)
        if modifier is None:
            return None
        mods.append(modifier)
        natural = NATURALS.get(str(tone_number(name)))
        removed.discard(natural or "")
    if fifths & removed:
        removed -= fifths
        mods.append("no5")
    return None if removed else mods


@cache
def format_suffix(tones: frozenset[str]) -> str:
    """The shortest canonical suffix whose tones are exactly `tones` (``"maj"`` for a major triad)."""
    best: tuple[int, int, str] | None = None
    for index, (suffix, base) in enumerate(base_tones()):
        mods = _modifiers(base, tones)
        if mods is None:
            continue
        candidate = _join(suffix, mods)
        try:
            if suffix_tones(candidate) != tones:
                continue
        except TheoryError:
            continue
        rank = (len(mods), index, candidate)
        if best is None or rank < best:
            best = rank
    if best is None:
        names = " ".join(sort_tones(tones))
        raise TheoryError(f"cannot name a chord with tones {names}", text=names, position=0)
    return best[2]


def _join(suffix: str, mods: list[str]) -> str:
    if not mods:
        return suffix
    if suffix == "maj":
        return "(" + ",".join(mods) + ")" if mods[0][0] in "b#" else "".join(mods)
    if suffix == "5":
        return "5(" + ",".join(mods) + ")" if mods[0][0] in "b#" else "5" + "".join(mods)
    return suffix + "".join(mods)
