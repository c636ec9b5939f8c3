"""Find lexicon entries (genres, artists, moods, instruments, object nouns) in a prompt.

All phrases of all lexicons go into one alternation, longest first, so at
every position the longest phrase wins ("deep house" over "house", "Swedish
House Mafia" over "house") and no text is read twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from bandstand.compose.lexicon.artists import ARTISTS, CASE_SENSITIVE_NAMES
from bandstand.compose.lexicon.genres import ALIASES
from bandstand.compose.lexicon.instruments import INSTRUMENTS, MODIFIERS
from bandstand.compose.lexicon.moods import MOODS, OBJECT_DEFAULTS


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str  # genre | artist | mood | instrument | object
    target: str  # canonical genre / artist name / mood label / instrument index / object word
    text: str
    start: int
    end: int


def _norm(phrase: str) -> str:
    return re.sub(r"\s+", " ", phrase.strip().lower())


@cache
def _table() -> tuple[re.Pattern[str], dict[str, list[tuple[str, str]]]]:
    entries: dict[str, list[tuple[str, str]]] = {}

    def add(phrase: str, kind: str, target: str) -> None:
        entries.setdefault(_norm(phrase), []).append((kind, target))

    for alias, name in ALIASES.items():
        add(alias, "genre", name)
    for artist in ARTISTS:
        for name in (artist.name, *artist.aliases):
            add(name, "artist", artist.name)
            plain = re.sub(r"[^\w\s&'-]", "", name)
            if plain != name:
                add(plain, "artist", artist.name)
    for mood in MOODS:
        for word in mood.words:
            add(word, "mood", mood.label)
    for index, instrument in enumerate(INSTRUMENTS):
        for word in instrument.words:
            add(word, "instrument", str(index))
    for word in OBJECT_DEFAULTS:
        add(word, "object", word)
    alternation = "|".join(
        re.escape(p).replace(r"\ ", r"[\s-]+") for p in sorted(entries, key=len, reverse=True)
    )
    return re.compile(rf"(?<![\w])(?:{alternation})(?![\w])", re.IGNORECASE), entries


def mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the given spans blanked out (kept the same length)."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = "|" * (b - a)
    return "".join(chars)


def scan(text: str) -> list[Hit]:
    """Every lexicon hit in `text`, in order of appearance."""
    pattern, entries = _table()
    hits: list[Hit] = []
    for m in pattern.finditer(text):
        key = _norm(re.sub(r"[\s-]+", " ", m.group(0)))
        options = entries.get(key) or entries.get(_norm(m.group(0)), [])
        for kind, target in options:
            if kind == "artist" and target in CASE_SENSITIVE_NAMES and not m.group(0)[:1].isupper():
                continue
            hits.append(Hit(kind, target, m.group(0), m.start(), m.end()))
    return hits


def modifier_before(text: str, start: int) -> str | None:
    """The adjective right before position `start` if it is a known instrument modifier."""
    m = re.search(r"([\w-]+)\s+$", text[:start])
    if m and m.group(1).lower() in MODIFIERS:
        return m.group(1)
    return None
