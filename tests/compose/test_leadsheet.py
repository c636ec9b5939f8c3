"""The lead sheet's chord symbols are named from what the chords part sounds, bar by bar."""

from __future__ import annotations

import pytest

from bandstand.compose.leadsheet import chords_from_track
from bandstand.score import Note, Song, Track


def _bars(*chords: tuple[int, ...]) -> Track:
    notes = [Note(bar * 4.0, 4.0, p, 80) for bar, pitches in enumerate(chords) for p in pitches]
    return Track("Chords", "chords", notes=notes)


@pytest.mark.parametrize(("pitches", "symbol"), [
    ((40, 47), "E5"),            # root and fifth: a power chord, neither major nor minor
    ((40, 47, 52), "E5"),        # doubled root
    ((40, 43, 47), "Em"),
    ((40, 44, 47), "E"),
    ((38, 42, 45, 48), "D7"),
    ((43, 47, 50, 54), "Gmaj7"),
    ((40, 43), "Em"),            # a minor third says minor even without its fifth
])
def test_a_bar_is_named_by_the_chord_that_explains_its_notes(pitches: tuple[int, ...], symbol: str) -> None:
    track = _bars(pitches)
    assert chords_from_track(Song(tracks=[track]), track) == [(0.0, symbol)]


def test_only_changes_are_listed() -> None:
    track = _bars((40, 47), (40, 47), (43, 50), (40, 43, 47))
    assert chords_from_track(Song(tracks=[track]), track) == [(0.0, "E5"), (8.0, "G5"), (12.0, "Em")]


@pytest.mark.parametrize(("key", "symbols"), [
    ("C# minor", ["C#m7", "F#m7", "G#7"]),  # not Dbm7, Gbm7, Ab7 (issue #25)
    ("Ab major", ["Dbmaj7", "Ebm7", "Ab"]),
    (None, ["Dbm7", "Gbm7", "Ab7"]),  # no key: flats, as before
])
def test_chord_roots_are_spelled_for_the_songs_key(key: str | None, symbols: list[str]) -> None:
    chords = {"C#m7": (61, 64, 68, 71), "F#m7": (66, 69, 73, 76), "G#7": (68, 72, 75, 78),
              "Dbmaj7": (61, 65, 68, 72), "Ebm7": (63, 66, 70, 73), "Ab": (68, 72, 75)}
    spelled = {"Dbm7": "C#m7", "Gbm7": "F#m7", "Ab7": "G#7"}
    track = _bars(*(chords[spelled.get(s, s)] for s in symbols))
    named = chords_from_track(Song(tracks=[track], key=key), track)
    assert [symbol for _, symbol in named] == symbols
