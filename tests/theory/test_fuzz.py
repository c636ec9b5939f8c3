"""Every parser either returns a value or raises TheoryError pointing inside its input."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import TheoryError
from bandstand.theory import (
    format_chord,
    get_scale,
    note_to_midi,
    parse_chord,
    parse_interval,
    parse_key,
    parse_roman,
    roman_to_chord,
)

ALPHABET = st.sampled_from(list("ABCDEFGHIMNOVabcdefgimnorsux0123456789#♭♯°øΔ^+-/(), :"))
texts = st.one_of(st.text(ALPHABET, max_size=12), st.text(max_size=8))

PARSERS: dict[str, Callable[[str], object]] = {
    "chord": parse_chord,
    "note": lambda t: note_to_midi(t, default_octave=4),
    "interval": parse_interval,
    "key": parse_key,
    "scale": get_scale,
    "roman": parse_roman,
    "roman_in_key": lambda t: roman_to_chord(t, "C minor"),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
@settings(deadline=None)  # the machine may be busy: no per-example time limit
@given(text=texts)
def test_parsers_fail_only_with_a_positioned_theory_error(name: str, text: str) -> None:
    try:
        value = PARSERS[name](text)
    except TheoryError as exc:
        assert exc.position is not None
        assert 0 <= exc.position <= len(exc.text)
        assert "\n" not in str(exc)
        return
    assert value is not None
    if name == "chord":
        chord = parse_chord(text)
        assert parse_chord(format_chord(chord)) == chord
