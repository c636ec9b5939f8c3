"""Stage 5 — sound: presets that are the instruments heard, levels, pans and effect chains
that follow the genre, the tempo and the prompt's constraints, written into the song's mix."""

from __future__ import annotations

import pytest

from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import GENRES
from bandstand.compose.sound import (
    LOUDNESS,
    LOUDNESS_BY_GENRE,
    PRESET_PROGRAMS,
    apply_sound,
    build_sound,
    delay_ms,
)
from bandstand.craft.balance import FADER_RANGE, balance_targets, top_gap
from bandstand.score import Effect, Note, Song, Track

ROLES = {"drums": 0, "bass": 33, "chords": 4, "lead": 80, "pad": 89, "arp": 81, "sub_bass": 38,
         "percussion": 0, "counter_melody": 73}


@pytest.mark.parametrize("genre", [g.name for g in GENRES])
def test_every_genre_and_role_gets_a_preset_that_is_heard_and_a_valid_chain(genre: str) -> None:
    plan = build_sound(decompose(genre), ROLES)
    assert [p.role for p in plan.parts] == list(ROLES)
    for part in plan.parts:
        assert part.preset.name and 0 < part.preset.confidence <= 1 and part.preset.reasoning
        assert part.preset.program == part.program == ROLES[part.role]  # the preset named is the one heard
        if part.preset.name in PRESET_PROGRAMS and part.role not in ("drums", "percussion"):
            assert PRESET_PROGRAMS[part.preset.name] == part.program
        assert len(part.alternatives) == 2
        assert all(a.confidence < part.preset.confidence for a in part.alternatives)
        assert part.effects and all(Effect(e.type, e.params) for e in part.effects)  # valid score.mix effects
        assert FADER_RANGE[0] <= part.level_db <= FADER_RANGE[1] and 0 <= part.pan <= 1
    assert -16.0 <= plan.target_lufs <= -10.0


def test_loudness_targets_span_at_most_six_lu() -> None:
    targets = [*LOUDNESS.values(), *LOUDNESS_BY_GENRE.values()]
    assert max(targets) - min(targets) <= 6.0
    assert build_sound(decompose("techno"), {"drums": 0}).target_lufs > build_sound(
        decompose("ambient"), {"pad": 89}).target_lufs


def test_delay_times_follow_the_tempo() -> None:
    assert delay_ms(120, "1/8") == 250.0
    assert delay_ms(120, "1/8d") == 375.0
    assert delay_ms(90, "1/4") == pytest.approx(666.7)
    lead = build_sound(decompose("pop at 120 bpm"), {"lead": 80}).parts[0]
    delay = next(e for e in lead.effects if e.type == "delay")
    assert delay.params["time_beats"] == 0.75 and "375.0 ms" in delay.reason


def test_four_on_the_floor_genres_pump_the_bass_and_pads_on_the_beat() -> None:
    house = build_sound(decompose("house at 124 bpm"), {"bass": 38, "pad": 89, "lead": 81})
    pump = next(e for e in house.for_role("bass").effects if e.type == "tremolo")  # type: ignore[union-attr]
    assert pump.params["rate_hz"] == pytest.approx(124 / 60, abs=1e-3) and "sidechain" in pump.reason
    assert any(e.type == "tremolo" for e in house.for_role("pad").effects)  # type: ignore[union-attr]
    assert not any(e.type == "tremolo" for e in house.for_role("lead").effects)  # type: ignore[union-attr]
    trap = build_sound(decompose("trap"), {"bass": 38})
    assert not any(e.type == "tremolo" for e in trap.parts[0].effects)
    assert any(e.type == "overdrive" for e in trap.parts[0].effects)


def test_no_reverb_and_no_delay_constraints() -> None:
    dry = build_sound(decompose("deep house, no reverb, no delay"), {"chords": 4, "lead": 80, "pad": 89})
    assert dry.buses == []
    assert not any(p.sends for p in dry.parts)
    assert not any(e.type in ("reverb", "delay") for p in dry.parts for e in p.effects)
    wet = build_sound(decompose("deep house"), {"pad": 89})
    assert [b.name for b in wet.buses] == ["Reverb"] and wet.buses[0].effects[0].type == "reverb"
    assert [s.bus for s in wet.parts[0].sends] == ["Reverb"]


def test_a_program_no_preset_plays_is_named_by_its_gm_sound() -> None:
    neo = build_sound(decompose("neo soul"), {"chords": 4}).parts[0]
    assert neo.preset.name == "Rhodes Mk I" and neo.preset.confidence > 0.8
    odd = build_sound(decompose("neo soul"), {"chords": 105}).parts[0]  # a banjo
    assert odd.preset.name == "GM Banjo" and odd.preset.program == 105


def test_apply_sound_writes_the_mix_into_the_song() -> None:
    song = Song(tracks=[Track("Bass", "bass", program=38), Track("Pad", "pad", program=89), Track("X", "fx")])
    plan = build_sound(decompose("house"), {"bass": 38, "pad": 89})
    mixed = apply_sound(song, plan)
    assert song.tracks[0].mix.inserts == ()  # the song given is left alone
    bass, pad, other = mixed.tracks
    assert bass.mix.volume == pytest.approx(10 ** (plan.parts[0].level_db / 20), abs=1e-3)
    assert [fx.type for fx in bass.mix.inserts] == [e.type for e in plan.parts[0].effects]
    assert [s.bus for s in pad.mix.sends] == ["Reverb"] and [b.name for b in mixed.buses] == ["Reverb"]
    assert other.mix == song.tracks[2].mix


def _level(prompt: str, role: str, program: int, notes: list[Note] | None = None) -> float:
    tracks = {role: Track(role.title(), role, program=program, notes=notes)} if notes is not None else None
    return build_sound(decompose(prompt), {role: program}, tracks).parts[0].level_db


def test_each_fader_is_set_for_the_sound_and_the_notes_behind_it() -> None:
    # a loud GM sound (a saxophone) gets a lower fader than a soft one (a piano) for the same role
    assert _level("pop song", "lead", 65) < _level("pop song", "lead", 0) - 8
    # four-note chords on every beat stand out more than one note a bar: their fader comes down
    busy = [Note(b + 0.0, 0.9, p, 100) for b in range(16) for p in (60, 64, 67, 71)]
    sparse = [Note(b * 4.0, 0.9, 60, 100) for b in range(4)]
    assert _level("pop song", "chords", 89, busy) < _level("pop song", "chords", 89, sparse) - 9
    # softer notes get more fader
    soft = [Note(n.start, n.duration, n.pitch, 50) for n in busy]
    assert _level("pop song", "chords", 89, soft) == pytest.approx(_level("pop song", "chords", 89, busy) + 6.0, abs=0.1)


def test_the_balance_targets_put_the_drums_and_bass_on_top_and_the_pad_behind() -> None:
    pop = balance_targets(["drums", "bass", "chords", "lead", "pad"], "pop")
    assert pop["drums"] > pop["lead"] > pop["chords"] > pop["pad"] and top_gap(pop) == 1.0
    ambient = balance_targets(["drums", "pad", "lead"], "ambient")
    assert ambient["pad"] > ambient["drums"]
