"""Chord symbols: parse, name and spell.

`parse_chord` reads symbols such as ``Cm7b5/Gb``, ``F#13#11``, ``Bb6/9``,
``E7(b9,#13)``, ``Dø7``, ``Ab+``; `format_chord` writes the canonical symbol,
which parses back to the same chord. A `Chord` is compared by its root
spelling, its tones and its bass, not by how its symbol was written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from bandstand.errors import TheoryError
from bandstand.theory._chord_grammar import format_suffix, sort_tones, suffix_tones, tone, tone_name
from bandstand.theory._intervals import Interval, interval_of, transpose_name
from bandstand.theory._notes import NoteName, parse_note_name

_ROOT_RE = re.compile(r"[A-Ga-g][#b♯♭]*")
_BASS_RE = re.compile(r"/\s*([A-Ga-g][#b♯♭]*)\s*$")
_EXTENSION_LABELS: dict[str, str] = {"6M": "6", "9M": "9", "11P": "11", "13M": "13"}
_ALTERATION_RE = re.compile(r"alt|[b#](?:13|11|9|6|5|4)")


@dataclass(frozen=True, slots=True)
class Chord:
    """A chord: root, canonical quality, tones (interval names from the root) and bass.

    `intervals` are semitones from the root in tone order (a ninth is 14);
    `pitch_classes` are sorted and unique and include the bass; `notes` are the
    spelled chord tones from the root up.
    """

    root: int
    root_name: str
    quality: str
    tones: tuple[str, ...]
    bass: int
    bass_name: str
    symbol: str = field(compare=False)
    intervals: tuple[int, ...] = field(compare=False)
    pitch_classes: tuple[int, ...] = field(compare=False)
    notes: tuple[str, ...] = field(compare=False)
    extensions: tuple[str, ...] = field(compare=False)
    alterations: tuple[str, ...] = field(compare=False)

    @property
    def is_slash(self) -> bool:
        """True when the bass is not the root."""
        return self.bass_name != self.root_name

    def transpose(self, semitones: int) -> Chord:
        """The same chord moved by `semitones` (spelled with the usual interval for that distance)."""
        step = Interval.from_semitones(semitones)
        root = transpose_name(parse_note_name(self.root_name), step)
        bass = transpose_name(parse_note_name(self.bass_name), step)
        return make_chord(root, frozenset(self.tones), bass)

    def __str__(self) -> str:
        return self.symbol


def make_chord(root: NoteName, tones: frozenset[str], bass: NoteName | None = None,
               symbol: str | None = None, written: str | None = None) -> Chord:
    """Build a `Chord` from a spelled root, its tones and an optional spelled bass.

    `written` is the suffix as the user wrote it, kept as the quality when no
    canonical name covers these tones (it parses back to the same tones).
    """
    root = root.with_octave(None)
    bass = root if bass is None else bass.with_octave(None)
    ordered = sort_tones(tones)
    spelled = tuple(transpose_name(root, tone(t)) for t in ordered)
    try:
        quality = format_suffix(frozenset(ordered))
    except TheoryError:
        if written is None:
            raise
        quality = written
    pcs = {n.pc for n in spelled} | {bass.pc}
    canonical = _symbol(root, quality, bass)
    return Chord(
        root=root.pc,
        root_name=root.pc_name,
        quality=quality,
        tones=ordered,
        bass=bass.pc,
        bass_name=bass.pc_name,
        symbol=canonical if symbol is None else symbol,
        intervals=tuple(tone(t).semitones for t in ordered),
        pitch_classes=tuple(sorted(pcs)),
        notes=tuple(n.pc_name for n in spelled),
        extensions=tuple(_EXTENSION_LABELS[t] for t in ordered if t in _EXTENSION_LABELS),
        alterations=tuple(_ALTERATION_RE.findall(quality)),
    )


def _symbol(root: NoteName, quality: str, bass: NoteName) -> str:
    body = root.pc_name + ("" if quality == "maj" else quality)
    return body if bass == root else f"{body}/{bass.pc_name}"


def parse_chord(symbol: str | Chord) -> Chord:
    """Parse a chord symbol: ``parse_chord("Cm7b5/Gb").pitch_classes == (0, 3, 6, 10)``."""
    if isinstance(symbol, Chord):
        return symbol
    return _parse_chord(symbol)


@lru_cache(maxsize=4096)
def _parse_chord(symbol: str) -> Chord:
    lead = len(symbol) - len(symbol.lstrip())
    text = symbol.strip()
    if not text:
        raise TheoryError("empty chord symbol (expected a root like C, F# or Bb and a quality)",
                          text=symbol, position=0)
    m = _ROOT_RE.match(text)
    if m is None:
        raise TheoryError(
            f"chord {symbol!r} must start with a root note A-G at position {lead}", text=symbol, position=lead
        )
    root = parse_note_name(m.group(0), offset=lead, source=symbol)
    body_end = len(text)
    bass: NoteName | None = None
    slash = _BASS_RE.search(text, m.end())
    if slash is not None:
        bass = parse_note_name(slash.group(1), offset=lead + slash.start(1), source=symbol)
        body_end = slash.start()
    stray = text[m.end():body_end].replace("6/9", "6_9").find("/")
    if stray >= 0:
        at = m.end() + stray + 1
        raise TheoryError(
            f"the bass after '/' must be a note A-G in chord {symbol!r} at position {lead + at}",
            text=symbol, position=lead + at,
        )
    written = text[m.end():body_end]
    tones = suffix_tones(written, symbol, lead + m.end())
    return make_chord(root, tones, bass, symbol=symbol.strip(), written=written.strip() or "maj")


def format_chord(chord: Chord | str) -> str:
    """The canonical symbol of a chord; it parses back to an equal `Chord`."""
    c = parse_chord(chord) if isinstance(chord, str) else chord
    return _symbol(parse_note_name(c.root_name), c.quality, parse_note_name(c.bass_name))


def chord_from_notes(notes: Sequence[NoteName | str], bass: NoteName | str | None = None) -> Chord:
    """The chord whose root is the first spelled note and whose tones are the others above it."""
    spelled = [parse_note_name(n) if isinstance(n, str) else n for n in notes]
    if not spelled:
        raise TheoryError("a chord needs at least one note", text="", position=0)
    root = spelled[0].with_octave(None)
    tones = {tone_name(interval_of(root, note.with_octave(None))) for note in spelled}
    if any(t.startswith("7") for t in tones):
        # above a seventh, seconds, fourths and sixths are the 9th, 11th and 13th
        tones = {_compound(t) for t in tones}
    bass_name = parse_note_name(bass) if isinstance(bass, str) else bass
    return make_chord(root, frozenset(tones), bass_name)


_COMPOUND: dict[str, str] = {"2M": "9M", "2m": "9m", "2A": "9A", "4P": "11P", "4A": "11A", "6M": "13M", "6m": "13m"}


def _compound(name: str) -> str:
    return _COMPOUND.get(name, name)
