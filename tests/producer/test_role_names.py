"""Roles by any name: bass / sub / sub bass / 808 / low end reach the song's one low-end part
whatever its role is called (with a note saying which part plays it); "make the sub bass
busier" makes the low end busier — it never swaps an instrument or touches every part."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.craft.edits import InstrumentEdit, StyleEdit
from bandstand.craft.requests import parse_request


@pytest.mark.parametrize("words", ["make the sub bass busier", "make the 808 busier", "make the sub busier"])
def test_a_low_end_word_is_a_style_change_of_that_part_only(words: str) -> None:
    from bandstand.producer.requests.iteration import vocabulary

    edits = parse_request(words, vocabulary(), studio=True).edits
    assert not [e for e in edits if isinstance(e, InstrumentEdit)]
    styles = [e for e in edits if isinstance(e, StyleEdit)]
    assert [e.override.role for e in styles] == ["sub_bass"]


def test_swaps_still_read() -> None:
    from bandstand.producer.requests.iteration import vocabulary

    for words, role, name in [("make the piano a rhodes", "chords", "rhodes"),
                              ("make the bass into a slap bass", "bass", "slap bass")]:
        edits = [e for e in parse_request(words, vocabulary(), studio=True).edits if isinstance(e, InstrumentEdit)]
        assert [(e.role, e.name) for e in edits] == [(role, name)], words


@pytest.mark.parametrize("words", ["make the bass busier", "make the 808 busier", "make the sub bass busier",
                                   "make the low end busier"])
def test_every_name_reaches_the_songs_low_end(words: str, composed_copy: Callable[..., Path]) -> None:
    from bandstand.producer.requests.iteration import edit

    outcome = edit(composed_copy("funk groove", 3, 16), words)
    assert outcome.affected == ("bass",), outcome.affected
    if "808" in words or "sub" in words:
        assert "this song has no sub bass part: its bass plays that role" in outcome.notes
