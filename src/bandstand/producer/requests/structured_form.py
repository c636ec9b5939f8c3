"""The `Form:` block of a structured prompt: the song's sections in order, each with its bars.

It is written as words joined by dashes, commas or arrows
(`intro-verse-chorus-verse-chorus-bridge-chorus-outro`), or as a YAML list whose entries
are a section (`- verse`), a section and its bars (`- verse: 8`, `- chorus 16`) or a
mapping (`- {section: bridge, bars: 4}`). Section words are the request parser's
(`craft.requests.SECTION_WORDS`: "pre-chorus", "refrain", "middle 8" …) and the
arrangement's kinds; a section without bars gets the length that kind has in most of the
arrangement's forms. The result is the arrangement's own `Slot`s, so a new song is built
with exactly these sections (`compose.arrangement.build_arrangement(form=…)`).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, get_args

from bandstand.errors import InvalidInput

__all__ = ["MAX_FORM_BARS", "MAX_FORM_SECTIONS", "MAX_SECTION_BARS", "FormSection", "form_slots", "read_form",
           "section_kind"]

MAX_FORM_SECTIONS = 64
MAX_SECTION_BARS = 64
MAX_FORM_BARS = 512
_JOINED = {"pre-chorus": "prechorus", "pre chorus": "prechorus", "build-up": "buildup", "middle eight": "bridge",
           "middle 8": "bridge"}
"""Section words that hold a dash or a space, read as one word before the form is split."""
_SPLIT = re.compile(r"\s*(?:->|→|[-,;|/+>:]|\s)\s*")


@dataclass(frozen=True, slots=True)
class FormSection:
    """One section of a form of the user's own: its kind, its name and its bars."""

    kind: str
    name: str
    bars: int
    said: bool = True
    """Whether the bars were given (else they are the kind's usual length)."""


@cache
def _tables() -> tuple[dict[str, str], dict[str, int], dict[str, str]]:
    """Word → kind, kind → usual bars, kind → name, from the request words and the arrangement's forms."""
    from bandstand.compose.api import FORMS, SectionKind
    from bandstand.craft.requests import SECTION_WORDS

    kinds: tuple[str, ...] = get_args(SectionKind)
    words = {k: k for k in kinds}
    for kind, said in SECTION_WORDS.items():
        for word in said:
            words[word.removeprefix("the ").rstrip("s") if word.endswith("es") else word.removeprefix("the ")] = kind
    slots = [s for form in FORMS.values() for s in form]
    bars = {k: Counter(s.bars for s in slots if s.kind == k).most_common(1)[0][0] if any(
        s.kind == k for s in slots) else 8 for k in kinds}
    names = {k: next((s.name for s in slots if s.kind == k and not s.name[-1].isdigit() and " " not in s.name),
                     k.capitalize()) for k in kinds}
    return words, bars, names


def section_kind(word: str) -> str | None:
    """The section kind a word names ("Pre-Chorus" → prechorus, "refrain" → chorus), None if none."""
    words, _, _ = _tables()
    said = " ".join(word.lower().split())
    said = _JOINED.get(said, said)
    return words.get(said) or words.get(said.rstrip("s"))


def _kind(word: str) -> str:
    words, _, _ = _tables()
    found = section_kind(word)
    if found is None:
        said = " ".join(word.lower().split())
        near = difflib.get_close_matches(said, list(words), n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise InvalidInput(f"Form: '{word[:40]}' is not a section{hint} Sections: "
                           f"{', '.join(sorted(set(words.values())))}", field="Form")
    return found


def _bars(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().isdigit():
        raise InvalidInput(f"Form: {where} has bars {value!r}; give a whole number of bars, e.g. '- verse: 8'",
                           field="Form")
    bars = int(value)
    if not 1 <= bars <= MAX_SECTION_BARS:
        raise InvalidInput(f"Form: {where} has {bars} bars; a section has 1 to {MAX_SECTION_BARS}", field="Form")
    return bars


def _entry(item: Any) -> tuple[str, int | None]:
    """One list entry: (section word, bars or None)."""
    if isinstance(item, Mapping):
        if "section" in item or "name" in item:
            word = str(item.get("section") or item.get("name") or "")
            return word, _bars(item["bars"], f"'{word}'") if item.get("bars") is not None else None
        if len(item) == 1:
            ((word, bars),) = item.items()
            return str(word), _bars(bars, f"'{word}'") if bars is not None else None
        raise InvalidInput(f"Form: {dict(item)!r} is not a section; write '- verse: 8' or "
                           "'- {section: verse, bars: 8}'", field="Form")
    text = " ".join(str(item).split())
    text = _JOINED.get(text.lower(), text)
    m = re.fullmatch(r"(.+?)\s*[:x×(]?\s*(\d+)\s*(?:bars?)?\)?", text, re.I)
    return (m.group(1), _bars(m.group(2), f"'{m.group(1)}'")) if m else (text, None)


def _words(text: str) -> list[Any]:
    """`intro-verse-chorus 16-outro` as entries; a number after a section is its bars."""
    low = " ".join(text.lower().split())
    for joined, word in _JOINED.items():
        low = low.replace(joined, word)
    items: list[Any] = []
    for token in (t for t in _SPLIT.split(low) if t):
        if token.isdigit() and items and isinstance(items[-1], str):
            items[-1] = {items[-1]: token}
        else:
            items.append(token)
    return items


def read_form(value: Any) -> tuple[FormSection, ...]:
    """The sections a `Form:` block asks for (see the module docstring); `InvalidInput` naming the
    entry when one does not read, or when the form is too long."""
    if isinstance(value, str):
        items: list[Any] = _words(value)
    elif isinstance(value, list):
        items = value
    elif isinstance(value, Mapping):
        items = [{k: v} for k, v in value.items()]
    else:
        raise InvalidInput("Form: give the sections in order, e.g. 'intro-verse-chorus-outro' or a list "
                           "('- verse: 8')", field="Form")
    if not items:
        raise InvalidInput("Form: no sections given; e.g. 'intro-verse-chorus-outro'", field="Form")
    if len(items) > MAX_FORM_SECTIONS:
        raise InvalidInput(f"Form: at most {MAX_FORM_SECTIONS} sections; this one has {len(items)}", field="Form")
    _, usual, names = _tables()
    out: list[FormSection] = []
    for item in items:
        word, bars = _entry(item)
        kind = _kind(word)
        out.append(FormSection(kind, names[kind], bars if bars is not None else usual[kind], bars is not None))
    total = sum(s.bars for s in out)
    if total > MAX_FORM_BARS:
        raise InvalidInput(f"Form: {total} bars; a song has at most {MAX_FORM_BARS}", field="Form")
    return tuple(out)


def form_slots(form: tuple[FormSection, ...]) -> tuple[Any, ...]:
    """The form as the arrangement's `Slot`s."""
    from bandstand.compose.api import Slot

    return tuple(Slot(s.kind, s.name, s.bars, s.kind) for s in form)  # type: ignore[arg-type]
