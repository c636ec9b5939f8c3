"""One tempo range for every client (`score.TEMPO_RANGE`, 30–300 BPM): a tempo the words ask
for outside it is set to the nearest end and said once, with the headline and the diff
agreeing; the studio tool, the structured prompt, the jam and `compose --tempo` take the same
range."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from bandstand.craft.edits import TempoEdit
from bandstand.craft.requests import parse_request
from bandstand.errors import InvalidInput
from bandstand.score import TEMPO_RANGE


@pytest.mark.parametrize(("words", "bpm", "asked"), [
    ("set the tempo to 10000", 300.0, 10000.0), ("slow it down to 0 bpm", 30.0, 0.0),
    ("set the tempo to 96", 96.0, None), ("300 bpm", 300.0, None)])
def test_words_are_read_into_the_range(words: str, bpm: float, asked: float | None) -> None:
    edits = [e for e in parse_request(words).edits if isinstance(e, TempoEdit)]
    assert len(edits) == 1 and edits[0].bpm == bpm and edits[0].asked == asked


def test_an_edit_outside_the_range_is_said_once_and_the_numbers_agree(composed_copy: Callable[..., Path]) -> None:
    from bandstand.producer.requests.iteration import edit

    outcome = edit(composed_copy("funk groove", 3, 16), "set the tempo to 10000")
    assert outcome.variation is not None
    assert outcome.variation.intent == "tempo 300"
    notes = [n for n in outcome.notes if "BPM" in n]
    assert notes == ["10000 BPM is outside the tempo range 30–300 BPM: the tempo is set to 300"]


def test_every_client_takes_the_same_range() -> None:
    from bandstand.compose.intent.decompose import Overrides
    from bandstand.jam.context import MusicalContext
    from bandstand.producer.requests.structured import StructuredPrompt
    from bandstand.studio.tools.params import SetTempo

    low, high = TEMPO_RANGE
    assert (low, high) == (30.0, 300.0)
    for ok in (low, high):
        assert SetTempo(tempo=ok).tempo == ok
        assert MusicalContext(bpm=ok).bpm == ok
        assert Overrides(tempo=ok).validated().tempo == ok
    for bad in (low - 1, high + 1):
        with pytest.raises(ValidationError):
            SetTempo(tempo=bad)
        with pytest.raises(ValidationError):
            MusicalContext(bpm=bad)
        with pytest.raises(InvalidInput, match="use 30–300 BPM"):
            Overrides(tempo=bad).validated()
    assert StructuredPrompt.model_fields["tempo"].metadata  # bounded by the same range
