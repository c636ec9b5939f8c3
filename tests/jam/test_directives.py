"""Directive parsing and routing: @mentions by name, role or alias; intents; context changes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.jam.context import MusicalContext, apply_directive
from bandstand.jam.directives import parse_directive
from bandstand.jam.persona import builtin_personas

BAND = list(builtin_personas().values())


@pytest.mark.parametrize(
    ("text", "to"),
    [
        ("@BEAT double time", ("BEAT",)),
        ("@beat double time", ("BEAT",)),
        ("@drums half time", ("BEAT",)),
        ("@bass @Aria simpler", ("GROOVE", "ARIA")),
        ("@groove, @glitch: drop out", ("GROOVE", "GLITCH")),
        ("@noise come back", ("GLITCH",)),
        ("more energy", ()),
        ("give @BEAT a break", ()),  # a mention that does not lead is not routing
    ],
)
def test_mentions_route_by_name_role_or_alias(text: str, to: tuple[str, ...]) -> None:
    assert parse_directive(text, BAND).to == to


def test_unknown_mention_is_a_clear_user_error() -> None:
    with pytest.raises(InvalidInput, match="@TRUMPET"):
        parse_directive("@TRUMPET play louder", BAND)


@pytest.mark.parametrize(
    ("text", "intents"),
    [
        ("simpler please", {"simpler"}),
        ("busier!", {"busier"}),
        ("double time", {"double_time"}),
        ("half-time feel", {"half_time"}),
        ("add some swing", {"swing"}),
        ("play it straight", {"straight"}),
        ("drop out for a bit", {"drop_out"}),
        ("come back in", {"come_back"}),
        ("take a solo", {"solo"}),
    ],
)
def test_style_intents(text: str, intents: set[str]) -> None:
    assert parse_directive(text, BAND).intents == intents


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Switch to D major, more energy!", ("d", "major")),
        ("key of F# minor", ("f#", "minor")),
        ("go to Eb dorian", ("eb", "dorian")),
        ("play in A minor", ("a", "minor")),
        ("make a minor adjustment", None),
        ("more energy", None),
    ],
)
def test_key_changes(text: str, key: tuple[str, str] | None) -> None:
    assert parse_directive(text, BAND).key == key


def test_the_progression_keeps_its_shape_through_many_key_changes() -> None:
    ctx = MusicalContext()
    for text in ["switch to D# major", "switch to Gb lydian", "switch to E locrian", "go to F mixolydian", "switch to B phrygian"]:
        ctx, _ = apply_directive(ctx, parse_directive(text, BAND))
    assert ctx.key == "B phrygian" and ctx.chords == ["Bm", "G", "D", "Am"]
    ctx, _ = apply_directive(ctx, parse_directive("chords Em C G D in E minor", BAND))
    ctx, _ = apply_directive(ctx, parse_directive("switch to A minor", BAND))
    assert ctx.chords == ["Am", "F", "C", "G"]


def test_a_mode_change_keeps_the_tonic() -> None:
    directive = parse_directive("switch to dorian", BAND)
    assert directive.key is None and directive.mode == "dorian"
    ctx, changed = apply_directive(MusicalContext(), directive)
    assert ctx.key == "C dorian" and ctx.scale == ["c", "d", "eb", "f", "g", "a", "bb"] and changed == ["key"]
    assert parse_directive("switch to D major", BAND).mode is None


def test_context_changes_are_applied_before_the_members_are_asked() -> None:
    ctx, changed = apply_directive(MusicalContext(), parse_directive("Switch to D major, more energy!", BAND))
    assert ctx.key == "D major" and ctx.scale == ["d", "e", "f#", "g", "a", "b", "c#"]
    assert ctx.chords == ["D", "Bm", "F#m", "A"]  # the progression keeps its degrees (i VI III VII → I vi iii V)
    assert ctx.energy == 7 and changed == ["key", "energy"]
    ctx, changed = apply_directive(ctx, parse_directive("chords Bm G D A at 96 bpm, energy 3", BAND))
    assert (ctx.chords, ctx.bpm, ctx.energy) == (["Bm", "G", "D", "A"], 96.0, 3)
    with pytest.raises(InvalidInput, match="root outside"):
        apply_directive(ctx, parse_directive("chords Bb Eb", BAND))


@given(st.text(max_size=120))
def test_any_text_parses_or_fails_with_a_user_error(text: str) -> None:
    try:
        directive = parse_directive(text, BAND)
    except InvalidInput:
        return
    ctx = MusicalContext()
    try:
        new, _ = apply_directive(ctx, directive)
    except InvalidInput:
        return
    assert 1 <= new.energy <= 10 and 30 <= new.bpm <= 300 and new.chords


@given(st.integers(-20, 20), st.integers(1, 10))
def test_energy_stays_in_range(delta: int, start: int) -> None:
    text = "more energy" if delta > 0 else "calm down" if delta < 0 else "energy 5"
    ctx, _ = apply_directive(MusicalContext(energy=start), parse_directive(text, BAND))
    assert 1 <= ctx.energy <= 10


@pytest.mark.parametrize(
    ("text", "bpm", "energy"),
    [
        ("tempo 99999", 300.0, 5),  # was ignored without a word: any number is clamped to 30-300 (score.TEMPO_RANGE)
        ("5 bpm", 30.0, 5),
        ("energy 999", 120.0, 10),  # was ignored: clamped to 1-10
        ("energy 0", 120.0, 1),
        ("energy 8/10", 120.0, 8),
    ],
)
def test_out_of_range_numbers_are_clamped_not_ignored(text: str, bpm: float, energy: int) -> None:
    directive = parse_directive(text, BAND)
    context, changed = apply_directive(MusicalContext(), directive)
    assert (context.bpm, context.energy) == (bpm, energy)
    assert changed and directive.changes_context
