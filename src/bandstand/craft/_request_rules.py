"""The rule families of the request parser, one function per family, each reading
its words out of a `_Clause` (and blanking them, so no two rules read the same
words): scope (bars, sections, parts), freeze, alternatives, regenerate,
swap / add / remove a part, key and mode, chords, tempo, metre, genre,
energy, style knobs and time feel, presence, mix.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import ValidationError

from bandstand.craft._request_words import (
    _BARS,
    _CHORDS,
    _ENERGY_ABS,
    _KEY_BARE,
    _KEY_IN,
    _KEY_TRIGGER,
    _MODE_ONLY,
    _MODES,
    _NUMBERS,
    _SECTION_BY_WORD,
    _SECTION_RE,
    _TEMPO_BY,
    _TEMPO_TO,
    _TIME_SIG,
    _TRANSPOSE,
    _WALTZ,
    BPM,
    ENERGY_WORDS,
    FEEL_WORDS,
    KNOB_WORDS,
    MIX_WORDS,
    PRESENCE_WORDS,
    TEMPO_FACTORS,
    TEMPO_WORDS,
    _Words,
)
from bandstand.craft.edits import (
    AddPartEdit,
    AlternativeEdit,
    Edit,
    EnergyEdit,
    GenreEdit,
    InstrumentEdit,
    KeyEdit,
    MetreEdit,
    ModeEdit,
    ProgressionEdit,
    RegenerateEdit,
    RemovePartEdit,
    TempoEdit,
    TransposeEdit,
)
from bandstand.errors import InvalidInput
from bandstand.score import clamp_tempo

# ----------------------------------------------------------------------------- a clause being read


@dataclass(slots=True)
class _Clause:
    """A clause's text (original case and lower case, the same length), what was read out of it
    so far, and its scope. Read spans are blanked so no two rules read the same words."""

    orig: str
    low: str
    edits: list[Edit] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    bars: tuple[int, int] | None = None
    freeze: list[str] = field(default_factory=list)
    freeze_to: bool = True
    mixer: list[Any] = field(default_factory=list)  # `craft.mixer_edits`, read for the studio only

    @classmethod
    def of(cls, text: str) -> _Clause:
        return cls(text, text.lower())

    def take(self, match: re.Match[str], group: int = 0) -> None:
        a, b = match.span(group)
        blank = " " * (b - a)
        self.orig = self.orig[:a] + blank + self.orig[b:]
        self.low = self.low[:a] + blank + self.low[b:]

    def find(self, pattern: str | re.Pattern[str]) -> re.Match[str] | None:
        regex = pattern if isinstance(pattern, re.Pattern) else re.compile(r"\b(?:" + pattern + r")\b", re.I)
        return regex.search(self.low)

    @property
    def empty(self) -> bool:
        return not re.search(r"\w", self.low)


_T = TypeVar("_T")


def _make(kind: Callable[..., _T], **fields: Any) -> _T:
    try:
        return kind(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInput(f"cannot do that: {first['msg']} ({'.'.join(str(p) for p in first['loc'])})") from exc


def _role_of(words: _Words, text: str) -> tuple[str, int | None, str] | None:
    """(role, program, name) of the thing a phrase names: "a string pad" → (pad, 48, "string pad")."""
    text = text.strip().lower()
    for word, (role, program) in sorted(words.thing_by_word.items(), key=lambda kv: -len(kv[0])):
        if re.search(r"\b" + re.escape(word) + r"\b", text):
            return role, program, re.sub(r"^(?:a|an|some|the|another|more)\s+", "", text)
    return None


# ----------------------------------------------------------------------------- scope


def _scope(c: _Clause) -> None:
    m = c.find(_BARS)
    if m:
        lo, hi = (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)), int(m.group(3)))
        if lo > hi:
            lo, hi = hi, lo
        if lo < 1:
            raise InvalidInput(f"bars start at 1, not {lo}; e.g. 'bars 9-16'")
        c.bars = (lo, hi)
        c.take(m)
    while (m := c.find(_SECTION_RE)) is not None:
        kind = _SECTION_BY_WORD[m.group(1).lower()]
        if kind not in c.sections:
            c.sections.append(kind)
        c.take(m)


def _roles(c: _Clause, words: _Words) -> list[str]:
    """Parts named in what is left of the clause (instrument words count for their role)."""
    regex = re.compile(r"\b(?:the\s+)?(" + words.things + r")\b", re.I)
    found: list[str] = []
    while (m := regex.search(c.low)) is not None:
        role = words.thing_by_word[m.group(1).lower()][0]
        if role not in found:
            found.append(role)
        c.take(m)
    return found


# ----------------------------------------------------------------------------- rule families


def _freeze_words(c: _Clause, words: _Words) -> None:
    """"keep the drums": remember the parts and blank the verb only (the parts stay in the
    clause, so "keep the drums simple" still reads as a change of the drums)."""
    for verb, frozen in ((r"unfreeze|unlock|release|let go of|free up|you can (?:change|touch)", False),
                         (r"keep|freeze|lock|hold on to|hold|don'?t (?:touch|change)|leave", True)):
        m = re.search(r"\b(" + verb + r")\s+(?:the\s+)?(" + words.things + r")\b", c.low, re.I)
        if m:
            c.freeze = [words.thing_by_word[m.group(2).lower()][0]]
            c.freeze_to = frozen
            c.take(m, group=1)
            return


def _alternative(c: _Clause, words: _Words) -> None:
    m = c.find(r"(?:try\s+|give me\s+|play\s+)?(?:something|anything)\s+(?:else|different|new)|surprise me"
               r"|(?:another|next|different)\s+(?:one|take|version|idea|alternative|option)|mix it up|shake it up")
    target: str | None = None
    if m is None:
        thing = r"(?:the\s+)?(" + words.things + r"|progression|chord progression|arrangement|form)"
        m = c.find(r"(?:try\s+)?(?:a\s+)?(?:different|another|other|alternative)\s+" + thing)
        if m is None:
            return
        word = m.group(1).lower()
        target = {"chord progression": "progression", "form": "arrangement"}.get(
            word, word if word in ("progression", "arrangement") else words.thing_by_word[word][0])
    c.take(m)
    c.edits.append(AlternativeEdit(target=target))


def _regenerate(c: _Clause, words: _Words) -> None:
    thing = r"(?:the\s+)?(?:a\s+)?(chord progression|progression|chord changes|chords|arrangement|structure|form|" \
        + words.things + r")"
    m = c.find(r"(regenerate|re-?generate|redo|re-?do|rewrite|re-?write|re-?roll|new|fresh|change)\s+" + thing)
    if m is None:
        return
    verb, word = m.group(1).lower(), m.group(2).lower()
    if word in ("chord progression", "progression", "chord changes") or (
            word == "chords" and verb in ("new", "fresh", "change")):
        target = "progression"
    elif word in ("arrangement", "structure", "form"):
        target = "arrangement"
    else:
        target = words.thing_by_word[word][0]
    c.take(m)
    c.edits.append(_make(RegenerateEdit, target=target))


def _swap(c: _Clause, words: _Words) -> None:
    thing = r"(?:the\s+)?(" + words.things + r")"
    new = r"(?:a\s+|an\s+|some\s+|the\s+)?((?:[\w-]+\s+)?(?:" + words.instrument_alt + r"))"
    for pattern in (r"\b(?:swap|replace|switch|change|exchange)\s+(?:out\s+)?" + thing + r"\s+(?:for|with|to|into|by)\s+"
                    + new + r"\b",
                    # "make the piano a rhodes", "… into / sound like / be …": never "make the sub bass busier"
                    r"\bmake\s+" + thing + r"\s+(?:into\s+|sound like\s+|be\s+|(?=an?\s))" + new + r"\b",
                    r"\b" + thing + r"\s+on\s+" + new + r"\b"):
        m = re.search(pattern, c.low, re.I)
        if m:
            old, replacement = _role_of(words, m.group(1)), _role_of(words, m.group(2))
            if old and replacement and replacement[1] is not None:
                c.edits.append(_make(InstrumentEdit, role=old[0], program=replacement[1], name=replacement[2]))
                c.take(m)
                return


def _add(c: _Clause, words: _Words) -> None:
    m = c.find(r"(?:add|bring in|introduce|layer(?: in)?|put in|throw in)\s+" + words.thing)
    if m is None:
        return
    found = _role_of(words, m.group(1))
    if found is None:
        return
    role, program, name = found
    c.take(m)
    c.edits.append(_make(AddPartEdit, role=role, program=program, name=name))


def _remove(c: _Clause, words: _Words) -> None:
    m = c.find(r"(?:remove|delete|drop|lose|get rid of|kill|cut|no more|without)\s+" + words.thing)
    if m is None:
        return
    found = _role_of(words, m.group(1))
    if found is None:
        return
    c.take(m)
    c.edits.append(_make(RemovePartEdit, role=found[0]))


def _tonic(letter: str, accidental: str | None) -> str:
    acc = (accidental or "").lower()
    acc = {"♯": "#", "sharp": "#", "♭": "b", "flat": "b"}.get(acc, acc)
    return letter.upper() + acc


def _key(c: _Clause) -> None:
    m = c.find(_TRANSPOSE)
    if m:
        amount = m.group(2)
        count = _NUMBERS.get(amount.lower(), 1) if amount and not amount.isdigit() else int(amount or 1)
        unit = m.group(3).lower()
        size = 2 if unit.startswith(("tone", "whole")) else 1
        semitones = max(-11, min(11, count * size * (1 if m.group(1).lower() == "up" else -1)))
        c.take(m)
        if semitones:
            c.edits.append(TransposeEdit(semitones=semitones))
        return
    for regex in (_KEY_TRIGGER, _KEY_BARE, _KEY_IN):
        m = regex.search(c.orig)
        if m and (regex is not _KEY_TRIGGER or m.group(3) or m.group(2) or m.group(1).isupper()):
            mode = _MODES.get(m.group(3).lower()) if m.group(3) else None
            if m.group(3) == "M":
                mode = "major"
            c.edits.append(_make(KeyEdit, tonic=_tonic(m.group(1), m.group(2)), mode=mode,
                                 sections=tuple(c.sections), bars=c.bars))
            c.take(m)
            return
    m = _MODE_ONLY.search(c.orig)
    if m:
        c.edits.append(ModeEdit(mode=_MODES[m.group(1).lower()]))  # type: ignore[arg-type]
        c.take(m)


def _chords(c: _Clause) -> None:
    m = _CHORDS.search(c.orig)
    if not m:
        return
    symbols = [s for s in re.split(r"[\s,|–]+|(?<=\w)-(?=[A-G])", m.group(1)) if s]
    symbols = [s.replace("♯", "#").replace("♭", "b") for s in symbols if re.match(r"^[A-G]", s)]
    if symbols:
        c.edits.append(_make(ProgressionEdit, chords=tuple(symbols[:64])))
        c.take(m)


def _tempo(c: _Clause) -> None:
    scope: dict[str, Any] = {"sections": tuple(c.sections), "bars": c.bars}  # "set the chorus to 140 BPM"
    m = c.find(_TEMPO_TO) or c.find(BPM)
    if m:
        asked = min(100000.0, float(next(g for g in m.groups() if g)))
        bpm = clamp_tempo(asked)  # one range (score.TEMPO_RANGE); the plan says so when it clamped
        c.edits.append(_make(TempoEdit, bpm=bpm, asked=asked if asked != bpm else None, **scope))
        c.take(m)
        return
    m = c.find(_TEMPO_BY)
    if m:
        sign = 1 if m.group(1).lower().startswith(("faster", "speed")) else -1
        c.edits.append(_make(TempoEdit, delta=sign * min(200, int(m.group(2))), **scope))
        c.take(m)
        return
    for pattern, factor in TEMPO_FACTORS:
        m = c.find(pattern)
        if m:
            c.edits.append(_make(TempoEdit, factor=factor, **scope))
            c.take(m)
            return
    for pattern, delta in TEMPO_WORDS:
        m = c.find(pattern)
        if m:
            c.edits.append(_make(TempoEdit, delta=delta, **scope))
            c.take(m)
            return


def _metre(c: _Clause) -> None:
    scope: dict[str, Any] = {"sections": tuple(c.sections), "bars": c.bars}  # "3/4 in the verse"
    m = _TIME_SIG.search(c.low)
    if m:
        c.edits.append(_make(MetreEdit, numerator=int(m.group(1)), denominator=int(m.group(2)), **scope))
        c.take(m)
    elif (m := c.find(_WALTZ)) is not None:
        c.edits.append(_make(MetreEdit, numerator=3, denominator=4, **scope))
        c.take(m)


def _genre(c: _Clause, words: _Words) -> None:
    m = c.find(r"(?:make it|turn it into|change (?:it|the genre|the style) to|switch (?:it |the genre )?to|"
               r"more like|as)\s+(?:a\s+|an\s+|some\s+)?(?:more\s+)?(" + words.genre_alt + r")"
               r"(?:\s+(?:track|song|tune|vibe|style|feel|thing))?")
    if m:
        c.edits.append(_make(GenreEdit, genre=words.genres[m.group(1).lower()]))
        c.take(m)


def _energy(c: _Clause) -> None:
    m = c.find(_ENERGY_ABS)
    if m:
        c.edits.append(EnergyEdit(level=min(10, max(1, int(m.group(1))))))
        c.take(m)
        return
    for pattern, delta in ENERGY_WORDS:
        m = c.find(pattern)
        if m:
            c.edits.append(EnergyEdit(delta=delta))
            c.take(m)
            return


def _knobs(c: _Clause) -> tuple[dict[str, float], float | None]:
    knobs: dict[str, float] = {}
    for pattern, deltas in KNOB_WORDS:
        m = c.find(pattern)
        if m and not set(deltas) & set(knobs):
            knobs.update(deltas)
            c.take(m)
    feel = None
    for pattern, value in FEEL_WORDS:
        m = c.find(pattern)
        if m:
            feel = value
            c.take(m)
            break
    return knobs, feel


def _presence(c: _Clause) -> bool | None:
    found: bool | None = None
    for pattern, present in PRESENCE_WORDS:
        m = c.find(pattern)
        if m:
            found = present if found is None else (found or present)  # "come back" wins over "drop out"
            c.take(m)
    return found


def _mix(c: _Clause) -> float | None:
    for pattern, volume in MIX_WORDS:
        m = c.find(pattern)
        if m:
            c.take(m)
            return volume
    return None


