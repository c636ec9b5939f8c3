"""Structured prompts: the header, `Key: value` YAML read safely, each field and
block; mistakes named by line or field; budgets on size, depth and aliases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.producer.requests.structured import MAX_TEXT, is_structured, parse_structured

FULL = """BANDSTAND PROMPT
Mode: compose
Request: a groove for the verse
Style: funk
Key: E minor
Tempo: 96 bpm
Roles: drums, bass, keys
Bars: 16
Section: Verse
Energy: high
Vibe: sweaty, late night
Constraints: [no_effects]
Effects:
  drums: compressor
  keys: [{type: chorus, mix: 0.3}, reverb]
MidiExpressiveness:
  - track: keys
    cc: expression
    from: 40
    to: 110
Automation:
  - track: bass
    parameter: pan
    from: 0.3
    to: 0.7
"""


def test_every_field_is_read() -> None:
    p = parse_structured(FULL)
    assert (p.mode, p.request, p.style, p.key, p.tempo, p.bars, p.section) == (
        "compose", "a groove for the verse", "funk", "E minor", 96.0, 16, "Verse")
    assert p.roles == ["drums", "bass", "keys"] and p.energy == 0.75 and p.vibe == "sweaty, late night"
    assert p.no_effects and p.complete
    assert [(e.track, e.type, e.params) for e in p.effects] == [
        ("drums", "compressor", {}), ("keys", "chorus", {"mix": 0.3}), ("keys", "reverb", {})]
    assert p.expressiveness[0].controller == 11 and (p.expressiveness[0].start, p.expressiveness[0].end) == (40, 110)
    assert p.automation[0].parameter == "pan"


@pytest.mark.parametrize(("text", "words"), [
    ("BANDSTAND PROMPT\nMode: compose\nTempo: [96", "not valid YAML at line 3"),
    ("BANDSTAND PROMPT\nMode: jam", "Mode: Input should be 'compose', 'edit' or 'ask'"),
    ("BANDSTAND PROMPT\nStyle: funk", "has no Mode"),
    ("BANDSTAND PROMPT\nMode: compose\nBars: 9999", "Bars: Input should be less than or equal to 512"),
    ("BANDSTAND PROMPT\nMode: compose\nEnergy: loud", "Energy: 'loud' is not an energy"),
    ("BANDSTAND PROMPT\nMode: compose\nMidiExpressiveness:\n  - track: x\n    cc: wobble", "MidiExpressiveness.0.cc"),
    ("BANDSTAND PROMPT\nMode: compose\nA: &a [1]\nB: *a", "alias (*) at line 4"),
    ("BANDSTAND PROMPT\nMode: compose\nx: !!python/object:os.system 'ls'", "not valid YAML"),
    ("BANDSTAND PROMPT\nMode: compose\nEffects:\n  - 1", "Effects: each entry"),
    ("BANDSTAND PROMPT\nMode: compose\nRoles: {a: {b: {c: {d: {e: {f: 1}}}}}}", "nests deeper"),
])
def test_mistakes_are_named(text: str, words: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_structured(text)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_an_unknown_block_is_a_warning_naming_it_not_a_refusal() -> None:
    read = parse_structured("MAESTRO PROMPT\nMode: compose\nTempoo: 96\nHarmony: jazzier")
    assert read.warnings == ("unknown block 'Tempoo' in the structured prompt was ignored; did you mean 'Tempo'?",)
    assert read.dimensions == {"harmony": "jazzier"} and read.tempo is None
    with pytest.raises(InvalidInput, match="at most 64"):
        parse_structured("STORI PROMPT\nMode: edit\n" + "".join(f"B{i}: 1\n" for i in range(10_000))[:15_000])


def test_the_size_is_budgeted() -> None:
    with pytest.raises(InvalidInput, match=f"at most {MAX_TEXT}"):
        parse_structured("BANDSTAND PROMPT\nMode: compose\nVibe: " + "x" * MAX_TEXT)
    assert is_structured("  bandstand prompt\nMode: ask") and not is_structured("make it funky")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_body_reads_or_is_refused_in_one_line(body: str) -> None:
    try:
        parse_structured("BANDSTAND PROMPT\n" + body)
    except InvalidInput as exc:
        assert str(exc) and "\n" not in str(exc)
