"""Issue #30, funk read by an audio tagger: its horns played the first and the last chorus only
(`arrangement.TURNS`), which took "funk" out of the tagger's top 5. A funk arranger puts the horns
in every chorus and makes room for them: under the horns the guitar scratches the 'and's alone
and plays its accented chops, not its ghosted ones (`craft.comping._scratch`), so the band stays
under funk's notes-per-bar ceiling. The horns (a funk section's stabs) and a metal guitar's riff are played
dry, without the tempo-synced echo other leads get (`compose.sound.DRY_LINES`)."""

from __future__ import annotations

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.parts import ROLES, generate_part
from bandstand.compose.sound import build_sound

PROMPT = "a funky 70s groove with slap bass"


def test_the_horns_play_every_funk_chorus() -> None:
    for seed in range(10):
        intent = decompose(PROMPT, seed=seed)
        plan = build_arrangement(intent, build_harmony(intent, seed), resolve_roles(intent, None, ROLES), seed)
        choruses = [s for s in plan.sections if s.kind == "chorus"]
        assert len(choruses) >= 2, (seed, plan.sections)
        for chorus in choruses:  # the chorus before the last opens on drums and bass, the band back halfway
            assert "lead" in chorus.roles and chorus.entries.get("lead", 0) <= chorus.bars // 2, (seed, chorus)


@pytest.mark.parametrize("horns", [True, False])
def test_the_funk_guitar_thins_under_the_horns(horns: bool) -> None:
    """Where the horns play, the guitar scratches the 'and's alone (four strokes a bar at most, none
    on the beat or between the eighths) and keeps its accented chops; a band without horns (drums,
    bass and guitar asked for) scratches every eighth between its chops in the chorus."""
    under: list[int] = []
    alone: list[int] = []
    for seed in range(4):
        intent = decompose(PROMPT, seed=seed)
        harmony = build_harmony(intent, seed)
        roles = resolve_roles(intent, None if horns else ("drums", "bass", "chords"), ROLES)
        plan = build_arrangement(intent, harmony, roles, seed)
        chords = generate_part("chords", intent, harmony, plan, seed + roles.index("chords")).track.notes
        bpb = intent.beats_per_bar
        choruses = [s for s in plan.sections if s.kind == "chorus"]
        horn_bars = {b for s in choruses if "lead" in s.roles
                     for b in range(s.start_bar - 1 + s.entries.get("lead", 0), s.end_bar)}
        scratches = [n for n in chords if n.duration < 0.1]
        for bar in {b for s in choruses for b in range(s.start_bar - 1, s.end_bar)}:
            steps = [round((n.start - bar * bpb) * 4) for n in scratches if int(n.start // bpb + 0.01) == bar]
            (under if bar in horn_bars else alone).append(len(steps))
            if bar in horn_bars:
                assert all(step % 4 == 2 for step in steps), (seed, bar, steps)
    if horns:
        # the horns play every chorus bar the guitar does (a double last chorus opens on drums and bass)
        assert under and 0 < max(under) <= 4 and not any(alone), (under, alone)
    else:
        assert alone and not under and sum(alone) / len(alone) > 4, alone


def test_funk_horns_and_a_metal_lead_play_dry_other_leads_echo() -> None:
    for prompt, dry in ((PROMPT, True), ("a heavy metal anthem with double kick drums", True), ("a synthpop song", False)):
        lead = build_sound(decompose(prompt), {"drums": 0, "bass": 33, "chords": 28, "lead": 61}).for_role("lead")
        assert lead is not None
        assert (not any(e.type == "delay" for e in lead.effects)) == dry, prompt
