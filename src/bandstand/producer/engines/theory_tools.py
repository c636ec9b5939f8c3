"""`TheoryTools`: what `bandstand theory` shows (`App.theory()`) — chord symbols read, scales spelled,
Roman numerals in a key, the key heard in a MIDI file. Each fact lives once in `bandstand.theory`
(reached through `producer.engines.music_theory`, which no client imports); what a client would
otherwise decide for itself lives here: a chord's canonical spelling, which notes of a file the key
is heard from (its pitched tracks' notes, weighted by duration) and the one line when it has none.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bandstand.theory import Chord, Key, KeyEstimate, Scale

__all__ = ["KeyHeard", "Romans", "TheoryTools"]


@dataclass(frozen=True, slots=True)
class Romans:
    """Roman figures read in a key: the key and each figure with the chord it names, in order."""

    key: Key
    chords: tuple[tuple[str, Chord], ...]


@dataclass(frozen=True, slots=True)
class KeyHeard:
    """The key heard in a MIDI file's pitched notes: the estimate, how many notes it heard and the key
    the file declares (None: none)."""

    estimate: KeyEstimate
    notes: int
    declared_key: str | None


class TheoryTools:
    """See the module docstring. A mistake in a symbol, name or figure is a `TheoryError` with its place."""

    __slots__ = ()

    @staticmethod
    def chords(symbols: Sequence[str]) -> list[Chord]:
        """Each chord symbol read: root, quality, notes, bass."""
        from bandstand.producer.engines.music_theory import parse_chord

        return [parse_chord(s) for s in symbols]

    @staticmethod
    def canonical(chord: Chord) -> str:
        """The chord's symbol as bandstand spells it."""
        from bandstand.producer.engines.music_theory import format_chord

        return format_chord(chord)

    @staticmethod
    def scales(names: Sequence[str]) -> list[Scale]:
        """Each scale named ("Eb dorian", "A minor pentatonic", "C4:major") spelled."""
        from bandstand.producer.engines.music_theory import get_scale

        return [get_scale(n) for n in names]

    @staticmethod
    def romans(figures: Sequence[str], key: str) -> Romans:
        """The chord each Roman figure names in `key` ("C major", "F# minor", "Eb")."""
        from bandstand.producer.engines.music_theory import parse_key, roman_to_chord

        k = parse_key(key)
        return Romans(k, tuple((f, roman_to_chord(f, k)) for f in figures))

    @staticmethod
    def key_heard(path: str | os.PathLike[str], profile: str = "combined") -> KeyHeard:
        """The key of a Standard MIDI File: its pitched tracks' notes weighted by duration, against the key
        `profile` (combined — the default, temperley, krumhansl or aarden), the bass of its first and last
        sonority leaning towards their tonic; a file without pitched notes is an `InvalidInput`."""
        from bandstand.errors import InvalidInput
        from bandstand.midi import read_midi
        from bandstand.producer.engines.music_theory import detect_key

        song = read_midi(path)
        notes = [n for t in song.tracks if not t.is_drum for n in t.notes]
        if not notes:
            raise InvalidInput(f"{path}: no pitched notes to detect a key from (only drums or an empty file)")
        return KeyHeard(detect_key(notes, profile=profile), len(notes), song.key)
