"""A compose request in words ("a funk groove at 96 bpm") reads its tempo as a prompt does: one
reading of a tempo (`bandstand.craft.requests.BPM`) for requests, prompts and edits."""

from __future__ import annotations

import pytest

from bandstand.compose.intent.explicit import find_explicit
from bandstand.producer.composing.compose_plan import spec_from_words


@pytest.mark.parametrize(("text", "bpm"), [
    ("a funk groove at 96 bpm", 96.0), ("house, tempo 124", 124.0), ("ambient at 70 beats per minute", 70.0),
    ("a waltz, 84.5 bpm", 84.5), ("hip-hop at 90 BPM with drums and bass", 90.0)])
def test_a_compose_request_reads_its_tempo_as_a_prompt_does(text: str, bpm: float) -> None:
    assert spec_from_words(text).tempo == bpm == find_explicit(text).bpm


def test_a_request_without_a_tempo_has_none() -> None:
    assert spec_from_words("a funk groove with drums, bass and keys, 16 bars").tempo is None
