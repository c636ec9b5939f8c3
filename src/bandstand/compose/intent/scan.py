"""Find lexicon entries (genres, artists, moods, instruments, object nouns) in a prompt.

All phrases of all lexicons go into one alternation, longest first, so at
every position the longest phrase wins ("deep house" over "house", "Swedish
House Mafia" over "house") and no text is read twice.

That alternation (some nine hundred phrases) takes tens of milliseconds to
compile, and a prompt can match few of its phrases: a phrase matches only
where a word starts with its first letters. So a prompt is scanned with the
alternation of just the phrases whose first letters (up to three, before any
space) start one of its words, in the same order; the others could not match
anywhere in it, so the matches are the same as the whole alternation's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

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


PREFIX = 3  # letters of a phrase (before its first space) that must start a word for the phrase to match there


@cache
def _lexicon() -> tuple[dict[str, list[tuple[str, str]]], tuple[tuple[str, str], ...]]:
    """Every phrase (normalized) with what it names, and the phrases longest first (the
    alternation's order), each with its first letters."""
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
    ordered = sorted(entries, key=len, reverse=True)
    return entries, tuple((phrase, phrase.split(" ", 1)[0][:PREFIX]) for phrase in ordered)


@lru_cache(maxsize=32)
def _alternation(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """The phrases (in this order) as one pattern: a phrase's spaces match any run of spaces
    and hyphens, and a match neither starts nor ends inside a word."""
    alternatives = "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in phrases)
    return re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])", re.IGNORECASE)


_WORD_START = re.compile(r"(?<!\w).", re.DOTALL)  # where a phrase may start: not inside a word


def _candidates(text: str) -> tuple[str, ...]:
    """The phrases that may match in `text`, in the alternation's order: those whose first
    letters start one of its words. Phrases are lower case and their first letters ASCII or
    letters no ASCII one matches case-insensitively, so an ASCII word start is compared
    lower-cased; a word starting with any other character may case-fold to anything, so then
    every phrase is a candidate."""
    phrases = _lexicon()[1]
    starts: set[str] = set()
    for m in _WORD_START.finditer(text):
        window = text[m.start():m.start() + PREFIX]
        if not window.isascii():
            return tuple(phrase for phrase, _ in phrases)
        window = window.lower()
        starts.update(window[:n] for n in range(1, PREFIX + 1))
    return tuple(phrase for phrase, first in phrases if first in starts)


def mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the given spans blanked out (kept the same length)."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = "|" * (b - a)
    return "".join(chars)


def scan(text: str) -> list[Hit]:
    """Every lexicon hit in `text`, in order of appearance."""
    entries = _lexicon()[0]
    candidates = _candidates(text)
    hits: list[Hit] = []
    for m in _alternation(candidates).finditer(text) if candidates else ():
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
