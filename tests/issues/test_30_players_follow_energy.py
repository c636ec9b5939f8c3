"""Issue #30, "too busy": a band that takes turns (`arrangement.TURNS`) still adds players as the
energy rises. A section louder than another has at least as many players (a part that comes in
part of the way through it is one of them), unless the idiom calls for a breakdown there (a break,
funk's bridge on drums and bass, the guitar back for its last phrase: `arrangement.BREAKDOWNS`);
intros and outros build and thin out as they do. A punk solo used to be the exception: the rhythm
guitar sat it out, so the solo, louder than a verse, had a player fewer."""

from __future__ import annotations

import pytest

from bandstand.compose.arrangement import BREAKDOWNS, build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.parts import ROLES

PROMPTS = ("something angry", "punk", "classic rock anthem in E", "indie rock", "funk", "salsa", "trance",
           "afrobeats party song")


def _plan(prompt: str, seed: int) -> tuple[ArrangementPlan, str]:
    intent = decompose(prompt, seed=seed)
    roles = resolve_roles(intent, None, ROLES)
    return build_arrangement(intent, build_harmony(intent, seed), roles, seed), primary_genre(intent).name


def _players(roles: list[str]) -> int:
    return sum(1 for r in roles if r != "texture")


@pytest.mark.parametrize("prompt", PROMPTS)
def test_a_louder_section_has_no_fewer_players_unless_it_is_a_breakdown(prompt: str) -> None:
    for seed in range(10):
        plan, genre = _plan(prompt, seed)
        breakdowns = BREAKDOWNS.get(genre, {})
        body = [s for s in plan.sections if s.kind not in ("intro", "outro", "break") and s.kind not in breakdowns]
        for louder in body:
            for quieter in body:
                if quieter.energy < louder.energy - 0.02:
                    assert _players(louder.roles) >= _players(quieter.roles), (seed, louder, quieter)


@pytest.mark.parametrize("prompt", ["something angry", "punk"])
def test_a_punk_solo_keeps_the_verse_s_band_the_rhythm_guitar_back_for_its_last_phrase(prompt: str) -> None:
    for seed in range(10):
        plan, _ = _plan(prompt, seed)
        verses = [s for s in plan.sections if s.kind == "verse"]
        for solo in (s for s in plan.sections if s.kind == "solo"):
            assert all(_players(solo.roles) >= _players(v.roles) for v in verses), (seed, solo, verses)
            assert "chords" in solo.roles and 0 < solo.entries.get("chords", 0) < solo.bars, solo


def test_funk_breaks_down_to_drums_and_bass_in_its_bridge_the_guitar_back_for_its_last_phrase() -> None:
    bridges = 0
    for seed in range(10):
        plan, _ = _plan("funk", seed)
        for bridge in (s for s in plan.sections if s.kind == "bridge"):
            bridges += 1
            assert bridge.roles == ["drums", "bass", "chords"], (seed, bridge)
            assert bridge.entries == {"chords": bridge.bars * 3 // 4}, (seed, bridge)
    assert bridges
