"""Named instruments are heard and change the notes (issue #30): a ukulele, banjo, mandolin,
accordion, bandoneon, harpsichord, distorted guitar, music box, güiro and shaker each give a
part whose instrument (GM program, or drum keys for hand percussion) AND note pattern differ
from what the genre plays for the same seed — and each plays the way its instrument does."""

from __future__ import annotations

import statistics

import pytest

from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import COMP_STYLES, primary_genre
from bandstand.craft.plays_instruments import INSTRUMENT_COMPS
from bandstand.score import Track
from tests.compose.test_lexicon_distinct import composed

BASE = "pop song"


def pattern(track: Track, tonic: int) -> set[tuple[int, int]]:
    """(sixteenth, pitch above the tonic — or drum key) of every note: what is played, whatever the key."""
    shift = 0 if track.is_drum else tonic
    return {(round(n.start * 4), n.pitch - shift) for n in track.notes}


def overlap(a: set[tuple[int, int]], b: set[tuple[int, int]]) -> float:
    return len(a & b) / max(1, len(a | b))


@pytest.mark.parametrize("word, role, base", [
    ("ukulele", "chords", BASE), ("banjo", "chords", BASE), ("mandolin", "chords", BASE),
    ("accordion", "chords", BASE), ("harpsichord", "chords", BASE), ("distorted guitars", "chords", BASE),
    ("bandoneon", "chords", BASE), ("bandoneon", "lead", BASE), ("music box", "lead", BASE),
    ("güiro", "percussion", f"{BASE} with percussion"), ("shakers", "percussion", f"{BASE} with percussion"),
])
def test_a_named_instrument_changes_the_instrument_and_the_notes(word, role, base):
    named, plain = composed(f"{BASE} with {word}"), composed(base)
    part, default = named[role], plain.get(role)
    assert part.notes, word
    if default is None:
        return
    if part.is_drum:  # hand percussion: the drum keys are the instrument
        assert {n.pitch for n in part.notes} != {n.pitch for n in default.notes}, word
    elif word != "bandoneon" or role == "lead":  # the bandoneon's band keeps the piano, marcato
        assert part.program != default.program, (word, part.program)
    assert overlap(pattern(part, named.tonic), pattern(default, plain.tonic)) < 0.5, word


def _notes(prompt: str, role: str):
    return composed(prompt)[role].notes


def test_each_instrument_plays_its_way():
    uke = _notes("pop song with ukulele", "chords")
    assert statistics.median(n.pitch for n in uke) >= 60 and max(n.pitch for n in uke) <= 79  # re-entrant, high
    banjo = _notes("pop song with banjo", "chords")
    assert len({n.start for n in banjo}) > 0.9 * len(banjo)  # rolls: one string at a time
    harpsichord = _notes("pop song with harpsichord", "chords")
    assert max(n.duration for n in harpsichord[:-8]) <= 0.5  # plucked and released, no sustain
    mandolin = _notes("pop song with mandolin", "chords")
    again = sum(any(m.pitch == n.pitch and 0 < m.start - n.start <= 0.6 for m in mandolin[i + 1:i + 8])
                for i, n in enumerate(mandolin))
    assert again > 0.6 * len(mandolin)  # tremolo: the same double stop re-struck
    box = _notes("pop song with a music box", "lead")
    assert min(n.pitch for n in box) >= 72 and max(n.duration for n in box) <= 0.75
    guiro = {n.pitch for n in _notes("pop song with güiro", "percussion")}
    assert guiro <= {73, 74} and 74 in guiro
    wall = composed("shoegaze")["chords"]
    assert wall.program == 30 and statistics.median(
        len([m for m in wall.notes if abs(m.start - n.start) < 0.06]) for n in wall.notes) >= 5  # a wall of open chords


def test_the_instrument_styles_are_in_the_lexicon_vocabulary():
    assert set(INSTRUMENT_COMPS) <= COMP_STYLES
    assert primary_genre(decompose("a tango")).comp_style == "tango_marcato"
    assert primary_genre(decompose("bluegrass")).comp_style == "banjo_roll"


@pytest.mark.parametrize("prompt", ["pop song with ukulele", "pop song with banjo", "pop song with mandolin",
                                    "pop song with accordion", "pop song with harpsichord", "a tango", "shoegaze",
                                    "bluegrass", "baroque"])
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_no_note_is_struck_twice_at_once(prompt, seed):
    notes = composed(prompt, seed)["chords"].notes
    struck = [(round(n.start, 6), n.pitch) for n in notes]
    assert len(struck) == len(set(struck)), prompt
