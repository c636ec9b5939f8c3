"""Words a producer uses are read, never dropped: tempo words move a genre's tempo to the end
of its range they name (a ballad below it), "late at night" is the late-night mood, and a key
that does not exist is a warning naming it."""

from __future__ import annotations

import pytest

from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import GENRE_BY_NAME
from bandstand.compose.models.intent import Intent


def intent_of(prompt: str) -> Intent:
    return decompose(prompt)


@pytest.mark.parametrize(("prompt", "genre", "where"), [
    ("a slow jazz ballad in Bb", "jazz", "below"), ("slow funk", "funk", "bottom"), ("fast bluegrass", "bluegrass", "top"),
    ("uptempo house", "house", "top"), ("laid-back house", "house", "lower half")])
def test_tempo_words_move_the_tempo_where_they_say(prompt: str, genre: str, where: str) -> None:
    intent = intent_of(prompt)
    lo, hi = GENRE_BY_NAME[genre].tempo_range
    assert intent.genre[0] == genre
    bpm = intent.tempo
    near = (hi - lo) / 16  # the seed places it within a quarter step of the end the word names
    assert {"below": bpm < lo, "bottom": lo <= bpm <= lo + near, "top": hi - near <= bpm <= hi,
            "lower half": lo < bpm < (lo + hi) / 2}[where], \
        (prompt, bpm, (lo, hi))


def test_late_at_night_is_a_mood() -> None:
    assert "late-night" in intent_of("funk groove late at night").mood


def test_a_key_that_does_not_exist_is_a_warning_naming_it() -> None:
    result = intent_of("funk groove in H# minor")
    assert any("'H# minor' is not a key" in a.reason for a in result.ambiguities)
