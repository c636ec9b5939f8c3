"""Naming chords from sounding notes.

`chord_from_pitches` tries every pitch class as the root, reads each interval
above it in the ways a chord symbol can (3 semitones is a minor third or a
sharp ninth, 9 a sixth, a thirteenth or a diminished seventh …), and keeps the
reading with the simplest canonical name, preferring the one whose root is in
the bass. Roots are spelled for a key when one is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import product

from bandstand.errors import TheoryError
from bandstand.theory._chord_grammar import BASE_SUFFIXES, format_suffix
from bandstand.theory._chords import Chord, make_chord
from bandstand.theory._keys import Key, parse_key
from bandstand.theory._notes import ROOT_NAMES, NoteName, parse_note_name

#: semitones above the root → the chord tones that interval can be, most usual first
READINGS: dict[int, tuple[str, ...]] = {
    0: ("1P",), 1: ("9m",), 2: ("9M", "2M"), 3: ("3m", "9A"), 4: ("3M",), 5: ("11P", "4P"),
    6: ("5d", "11A"), 7: ("5P",), 8: ("5A", "13m"), 9: ("13M", "6M", "7d"), 10: ("7m",), 11: ("7M",),
}
_BASES = frozenset(BASE_SUFFIXES)
_SLASH_PENALTY = 3
_FOREIGN_BASS_PENALTY = 2


def _cost(quality: str, root: int, bass: int) -> tuple[int, int]:
    """Simpler names first; a name from the base table costs less than an equally long built one."""
    length = 0 if quality == "maj" else len(quality)
    if quality not in _BASES:
        length += 2
    return (length + (_SLASH_PENALTY if root != bass else 0), root != bass)


@lru_cache(maxsize=4096)
def _best(pcs: frozenset[int], bass: int) -> tuple[int, frozenset[str]] | None:
    best: tuple[tuple[int, int], int, frozenset[str]] | None = None
    # the bass as a chord tone, or (costing more) as a foreign bass under the others: F/G
    for upper, extra in ((pcs, 0), (pcs - {bass}, _FOREIGN_BASS_PENALTY)):
        if len(upper) < 2:
            continue
        for root in sorted(upper):
            rel = sorted((pc - root) % 12 for pc in upper)
            for reading in product(*(READINGS[r] for r in rel)):
                tones = frozenset(reading)
                try:
                    quality = format_suffix(tones)
                except TheoryError:
                    continue
                cost, slash = _cost(quality, root, bass)
                rank = (cost + extra, slash)
                if best is None or (rank, root) < (best[0], best[1]):
                    best = (rank, root, tones)
    return None if best is None else (best[1], best[2])


def chord_from_pitches(pitches: Iterable[int], key: Key | str | None = None) -> Chord:
    """The chord a set of MIDI notes spells, the lowest note as its bass.

    ``chord_from_pitches([52, 55, 60]).symbol == "C/E"``; raises `TheoryError`
    for fewer than two pitch classes or a cluster no chord symbol names.
    """
    notes = sorted(set(pitches))
    pcs = frozenset(n % 12 for n in notes)
    if len(pcs) < 2:
        raise TheoryError(f"a chord needs at least two pitch classes, got {notes}", text=str(notes), position=0)
    found = _best(pcs, notes[0] % 12)
    if found is None:
        raise TheoryError(f"no chord symbol names the notes {notes}", text=str(notes), position=0)
    root_pc, tones = found
    k = parse_key(key) if key is not None else None

    def spell(pc: int) -> NoteName:
        return k.spell_name(pc) if k is not None else parse_note_name(ROOT_NAMES[pc])

    root = spell(root_pc)
    chord = make_chord(root, tones)
    # spell the bass as the chord tone it is, or for the key when it is not one
    bass_pc = notes[0] % 12
    bass = next((parse_note_name(n) for n in chord.notes if parse_note_name(n).pc == bass_pc), spell(bass_pc))
    return make_chord(root, tones, bass)
