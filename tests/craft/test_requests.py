"""The one request parser: each family of words becomes the typed edits it means,
scope words limit them, and any text either reads or fails with one user error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.compose.lexicon import GENRE_BY_NAME
from bandstand.compose.lexicon.instruments import INSTRUMENTS
from bandstand.craft.edits import (
    EDIT_ADAPTER,
    ROLES,
    AddPartEdit,
    AlternativeEdit,
    EnergyEdit,
    FreezeEdit,
    GenreEdit,
    InstrumentEdit,
    KeyEdit,
    MetreEdit,
    MixEdit,
    ModeEdit,
    PraiseEdit,
    PresenceEdit,
    ProgressionEdit,
    RegenerateEdit,
    RemovePartEdit,
    Request,
    SoloEdit,
    StyleEdit,
    TempoEdit,
    TransposeEdit,
)
from bandstand.craft.requests import (
    EXAMPLES,
    MAX_CHARS,
    ROLE_WORDS,
    Vocabulary,
    not_understood,
    parse_request,
)
from bandstand.craft.style import StyleOverride
from bandstand.errors import InvalidInput

WORDS = Vocabulary(instruments=tuple((w, i.role, i.program) for i in INSTRUMENTS for w in i.words),
                   genres=tuple(GENRE_BY_NAME))


def style(role: str = "*", sections: tuple[str, ...] = (), bars: tuple[int, int] | None = None,
          time_feel: float | None = None, **knobs: float) -> StyleEdit:
    return StyleEdit(override=StyleOverride(role=role, knobs=knobs, time_feel=time_feel, sections=sections,
                                            bars=bars))


def edits(text: str) -> list[Any]:
    return list(parse_request(text, WORDS).edits)


@pytest.mark.parametrize(("text", "expected"), [
    ("make the bass busier", [style("bass", density=0.3)]),
    ("a bit busier", [style(density=0.15)]),
    ("bass too busy", [style("bass", density=-0.3)]),
    ("simpler drums", [style("drums", density=-0.3)]),
    ("darker", [style(brightness=-0.3)]),
    ("brighter chords", [style("chords", brightness=0.3)]),
    ("make the keys jazzier", [style("chords", complexity=0.3)]),
    ("more syncopated bass", [style("bass", syncopation=0.3)]),
    ("lead up an octave", [style("lead", register=0.3)]),
    ("swing it", [style(swing=0.5)]),
    ("play it straight", [style(swing=-1.0)]),
    ("double-time drums in the bridge", [style("drums", ("bridge",), time_feel=2.0)]),
    ("half-time feel", [style(time_feel=0.5)]),
    ("keep the drums simple", [style("drums", density=-0.3)]),
])
def test_how_a_part_plays_is_a_style_override(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("more energy", [EnergyEdit(delta=2)]),
    ("a little more energy", [EnergyEdit(delta=2)]),  # the jam's table: "more energy" is read first
    ("calm it down", [EnergyEdit(delta=-2)]),
    ("energy 8/10", [EnergyEdit(level=8)]),
    ("energy 999", [EnergyEdit(level=10)]),
    ("make the chorus bigger", [EnergyEdit(delta=2, sections=("chorus",))]),
    ("more energy in the verse and the chorus", [EnergyEdit(delta=2, sections=("verse", "chorus"))]),
])
def test_energy(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("change the key to F# minor", [KeyEdit(tonic="F#", mode="minor")]),
    ("key of Eb", [KeyEdit(tonic="Eb")]),
    ("play in A minor", [KeyEdit(tonic="A", mode="minor")]),
    ("switch to dorian", [ModeEdit(mode="dorian")]),
    ("make it major", [ModeEdit(mode="major")]),
    ("up a tone", [TransposeEdit(semitones=2)]),
    ("transpose down 3 semitones", [TransposeEdit(semitones=-3)]),
    ("make a minor adjustment", []),
    ("slow it down to 85", [TempoEdit(bpm=85)]),
    ("120 bpm", [TempoEdit(bpm=120)]),
    ("96 beats per minute", [TempoEdit(bpm=96)]),  # a tempo reads as it does in a prompt
    ("tempo 92.5", [TempoEdit(bpm=92.5)]),
    ("faster", [TempoEdit(delta=10)]),
    ("speed up by 6", [TempoEdit(delta=6)]),
    ("in 6/8", [MetreEdit(numerator=6, denominator=8)]),
    ("make it a waltz", [MetreEdit(numerator=3, denominator=4)]),
    ("chords Em, C, G, D", [ProgressionEdit(chords=("Em", "C", "G", "D"))]),
    ("make it house", [GenreEdit(genre="house")]),
])
def test_the_songs_facts(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("add a string pad to the chorus", [AddPartEdit(role="pad", program=48, name="string pad", sections=("chorus",))]),
    ("add an arp", [AddPartEdit(role="arp", program=81, name="arp")]),
    ("add bass and drums", [AddPartEdit(role="bass", program=33, name="bass"), AddPartEdit(role="drums", name="drums")]),
    ("swap the lead for a saxophone", [InstrumentEdit(role="lead", program=65, name="saxophone")]),
    ("make the keys an organ", [InstrumentEdit(role="chords", program=16, name="organ")]),
    ("change the bass to a synth bass", [InstrumentEdit(role="bass", program=38, name="synth bass")]),
    ("remove the pad", [RemovePartEdit(role="pad")]),
    ("get rid of the 808", [RemovePartEdit(role="sub_bass")]),
    ("drop the drums in the bridge", [PresenceEdit(role="drums", present=False, sections=("bridge",))]),
    ("the bass louder", [MixEdit(role="bass", volume=1.25)]),
    ("lead a bit quieter", [MixEdit(role="lead", volume=0.8)]),
])
def test_parts_and_instruments(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("regenerate the lead", [RegenerateEdit(target="lead")]),
    ("new drums for bars 9-16", [RegenerateEdit(target="drums", bars=(9, 16))]),
    ("new chord progression", [RegenerateEdit(target="progression")]),
    ("change the chords", [RegenerateEdit(target="progression")]),
    ("redo the chords", [RegenerateEdit(target="chords")]),
    ("regenerate the arrangement", [RegenerateEdit(target="arrangement")]),
    ("try something different", [AlternativeEdit()]),
    ("try a different bassline", [AlternativeEdit(target="bass")]),
    ("another progression", [AlternativeEdit(target="progression")]),
    ("keep the drums", [FreezeEdit(roles=("drums",))]),
    ("keep the drums and the bass", [FreezeEdit(roles=("drums", "bass"))]),
    ("unfreeze the drums", [FreezeEdit(roles=("drums",), frozen=False)]),
    ("love it!", [PraiseEdit()]),
    ("that's perfect, thanks", [PraiseEdit()]),
    ("take a solo", [SoloEdit()]),
    ("drop out for a bit", [PresenceEdit(present=False)]),
    ("come back in", [PresenceEdit(present=True)]),
])
def test_the_session_words(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("make the bass and drums busier", [style("drums", density=0.3), style("bass", density=0.3)]),
    ("make the bass busier and the drums simpler", [style("bass", density=0.3), style("drums", density=-0.3)]),
    ("busier in the verse and chorus", [style(sections=("verse", "chorus"), density=0.3)]),
    ("bars 9–16 simpler", [style(bars=(9, 16), density=-0.3)]),
    ("simpler from bar 17 to bar 9", [style(bars=(9, 17), density=-0.3)]),
    ("Switch to D major, more energy!", [KeyEdit(tonic="D", mode="major"), EnergyEdit(delta=2)]),
    ("chords Em C G D in E minor", [ProgressionEdit(chords=("Em", "C", "G", "D")), KeyEdit(tonic="E", mode="minor")]),
    ("darker, and keep the drums", [style(brightness=-0.3), FreezeEdit(roles=("drums",))]),
])
def test_scope_words_and_clauses(text: str, expected: list[Any]) -> None:
    assert edits(text) == expected


def test_without_a_vocabulary_instruments_and_genres_are_unknown_words() -> None:
    assert parse_request("swap the lead for a saxophone").edits == ()
    assert parse_request("make it house").edits == ()
    assert parse_request("add a pad").edits == (AddPartEdit(role="pad", name="pad"),)


def test_not_understood_is_one_line_with_the_closest_examples() -> None:
    request = parse_request("hello there", WORDS)
    assert isinstance(request, Request) and not request.understood
    error = not_understood("make the bas busyer")
    assert "\n" not in str(error) and "'make the bass busier'" in str(error)


@pytest.mark.parametrize(("text", "match"), [
    ("", "say what to change"), ("   ", "say what to change"), ("x" * (MAX_CHARS + 1), "at most"),
    ("simpler in bars 0-4", "bars start at 1"),
])
def test_bad_requests_are_user_errors(text: str, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        parse_request(text, WORDS)


def test_every_example_in_the_suggestions_is_understood() -> None:
    for example in EXAMPLES:
        assert parse_request(example, WORDS).understood, example


@given(st.text(max_size=200))
@settings(max_examples=300)
def test_any_text_reads_or_is_one_user_error(text: str) -> None:
    try:
        request = parse_request(text, WORDS)
    except InvalidInput as exc:
        assert "\n" not in str(exc)
        return
    for edit in request.edits:
        assert EDIT_ADAPTER.validate_json(EDIT_ADAPTER.dump_json(edit)) == edit


KNOB_PHRASES = {"busier": ("density", 0.3), "simpler": ("density", -0.3), "darker": ("brightness", -0.3),
                "brighter": ("brightness", 0.3), "more syncopated": ("syncopation", 0.3)}
SECTIONS = {"chorus": "chorus", "verse": "verse", "bridge": "bridge", "intro": "intro", "the drop": "drop"}


@given(st.sampled_from(sorted(KNOB_PHRASES)), st.sampled_from([r for r in ROLES if r != "sub_bass"]),
       st.sampled_from([None, *sorted(SECTIONS)]), st.booleans())
def test_generated_style_requests_read_back(phrase: str, role: str, section: str | None, role_first: bool) -> None:
    word = ROLE_WORDS[role][0]
    scope = f" in the {section.removeprefix('the ')}" if section else ""
    text = f"make the {word} {phrase}{scope}" if role_first else f"{phrase} {word}{scope}"
    knob, delta = KNOB_PHRASES[phrase]
    expected = style(role, (SECTIONS[section],) if section else (), **{knob: delta})
    assert edits(text) == [expected], text


@given(st.sampled_from(["C", "D", "Eb", "F#", "G", "Ab", "Bb", "B"]),
       st.sampled_from(["major", "minor", "dorian", "lydian", "mixolydian", "phrygian"]),
       st.sampled_from(["change the key to {k} {m}", "switch to {k} {m}", "key of {k} {m}", "modulate to {k} {m}"]))
def test_generated_key_requests_read_back(tonic: str, mode: str, template: str) -> None:
    assert edits(template.format(k=tonic, m=mode)) == [KeyEdit(tonic=tonic, mode=mode)]


@given(st.integers(40, 240), st.sampled_from(["{n} bpm", "tempo {n}", "slow it down to {n}", "set it to {n} bpm"]))
def test_generated_tempo_requests_read_back(bpm: int, template: str) -> None:
    assert edits(template.format(n=bpm)) == [TempoEdit(bpm=bpm)]

