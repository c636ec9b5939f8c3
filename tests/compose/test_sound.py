"""Stage 5 — sound: presets with alternatives for every role and genre, effect chains
that follow the genre, the tempo and the prompt's constraints."""

from __future__ import annotations

import pytest

from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import GENRES
from bandstand.compose.sound import build_sound, delay_ms

ROLES = {"drums": 0, "bass": 33, "chords": 4, "lead": 80, "pad": 89, "arp": 81, "sub_bass": 38,
         "percussion": 0, "counter_melody": 73}


@pytest.mark.parametrize("genre", [g.name for g in GENRES])
def test_every_genre_and_role_gets_a_preset_and_two_alternatives(genre: str) -> None:
    plan = build_sound(decompose(genre), ROLES)
    assert [p.role for p in plan.parts] == list(ROLES)
    for part in plan.parts:
        assert part.preset.name and 0 < part.preset.confidence <= 1 and part.preset.reasoning
        assert len(part.alternatives) == 2
        assert all(a.confidence < part.preset.confidence for a in part.alternatives)
        assert part.program == ROLES[part.role] and part.program_name
        assert {e.type for e in part.effects} >= {"eq", "compressor"}


def test_delay_times_follow_the_tempo() -> None:
    assert delay_ms(120, "1/8") == 250.0
    assert delay_ms(120, "1/8d") == 375.0
    assert delay_ms(90, "1/4") == pytest.approx(666.7)
    lead = build_sound(decompose("pop at 120 bpm"), {"lead": 80}).parts[0]
    delay = next(e for e in lead.effects if e.type == "delay")
    assert delay.params["time_ms"] == 375.0


def test_four_on_the_floor_genres_sidechain_the_bass_and_pads() -> None:
    house = build_sound(decompose("house"), {"bass": 38, "pad": 89, "lead": 81})
    assert any(e.type == "sidechain" for e in house.for_role("bass").effects)  # type: ignore[union-attr]
    assert any(e.type == "sidechain" for e in house.for_role("pad").effects)  # type: ignore[union-attr]
    assert not any(e.type == "sidechain" for e in house.for_role("lead").effects)  # type: ignore[union-attr]
    trap = build_sound(decompose("trap"), {"bass": 38})
    assert not any(e.type == "sidechain" for e in trap.parts[0].effects)
    assert any(e.type == "saturation" for e in trap.parts[0].effects)


def test_no_reverb_and_no_delay_constraints() -> None:
    dry = build_sound(decompose("deep house, no reverb, no delay"), {"chords": 4, "lead": 80, "pad": 89})
    assert dry.buses == []
    assert not any(e.type in ("reverb_send", "delay") for p in dry.parts for e in p.effects)
    wet = build_sound(decompose("deep house"), {"pad": 89})
    assert [b.name for b in wet.buses] == ["Reverb"]
    assert any(e.type == "reverb_send" for e in wet.parts[0].effects)


def test_genre_specific_presets_are_more_confident_than_fallbacks() -> None:
    neo = build_sound(decompose("neo soul"), {"chords": 4}).parts[0]
    assert neo.preset.name == "Rhodes Mk I" and neo.preset.confidence > 0.8
    salsa = build_sound(decompose("salsa"), {"chords": 0}).parts[0]
    assert salsa.preset.confidence < neo.preset.confidence
