"""Sound words in a prompt become effect presets on the parts that carry them; constraints
win; a genre's own effect takes the word's parameters instead of being doubled."""

from __future__ import annotations

import pytest

from bandstand.compose import sound_words
from bandstand.compose.intent import decompose
from bandstand.compose.sound import build_sound
from bandstand.score import EFFECTS

ROLES = {"drums": 0, "bass": 33, "chords": 4, "lead": 80, "pad": 89}


def chains(prompt: str) -> dict[str, dict[str, dict[str, float | str]]]:
    plan = build_sound(decompose(prompt), ROLES)
    return {p.role: {e.type: e.params for e in p.effects} for p in plan.parts}


def test_exports_are_pinned() -> None:
    assert set(sound_words.__all__) == {"FX_WORDS", "REVERB_WORDS", "FxWord", "reverb_words", "word_effects"}


def test_every_preset_is_a_known_effect_with_known_parameters() -> None:
    for row in sound_words.FX_WORDS:
        assert set(row.params) <= set(EFFECTS[row.type])


@pytest.mark.parametrize(("prompt", "role", "effect"), [
    ("distorted garage rock", "lead", "distortion"),
    ("tape-saturated soul", "chords", "overdrive"),
    ("muffled house, like next door's party", "drums", "filter"),
    ("phased funk", "pad", "phaser"),
    ("flanged disco", "chords", "flanger"),
    ("pop with a chorus effect on the keys", "pad", "chorus"),
    ("indie with tremolo guitars", "chords", "tremolo"),
])
def test_a_sound_word_puts_its_effect_on_the_parts_it_reaches(prompt: str, role: str, effect: str) -> None:
    got = chains(prompt)
    assert effect in got[role]
    plain = chains(prompt.split()[-1])  # the genre alone
    assert effect not in plain[role]


def test_the_word_chorus_as_a_section_is_not_an_effect() -> None:
    assert "chorus" not in chains("pop with a catchy chorus")["pad"]


def test_dub_echoes_replace_the_leads_own_echo_and_no_delay_wins() -> None:
    lead = chains("dub reggae with heavy echoes")["lead"]
    assert list(lead).count("delay") == 1 and lead["delay"]["feedback"] == 0.5
    assert "delay" not in chains("dub reggae with heavy echoes, no delay")["lead"]


def test_reverb_words_make_the_room_larger_and_the_sends_stronger() -> None:
    wet = build_sound(decompose("pop piano drenched in reverb"), ROLES)
    dry = build_sound(decompose("pop piano"), ROLES)
    assert wet.buses[0].effects[0].params["room_size"] > dry.buses[0].effects[0].params["room_size"]
    assert all(w.sends[0].level >= d.sends[0].level for w, d in zip(wet.parts, dry.parts, strict=True) if d.sends)
    assert build_sound(decompose("pop piano drenched in reverb, no reverb"), ROLES).buses == []
    ambient = build_sound(decompose("ambient drenched in reverb"), ROLES).buses[0].effects[0].params
    assert ambient["room_size"] >= build_sound(decompose("ambient"), ROLES).buses[0].effects[0].params["room_size"]
