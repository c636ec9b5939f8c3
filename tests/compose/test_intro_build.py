"""Intros that build (issue #30): the parts enter one by one and the energy rises through the
intro's bars, so its second half plays more than its first, and no bar sounds softer than the one
before it (`craft.intro`) — for every seed of several genres."""

from __future__ import annotations

import itertools

import pytest

from bandstand.compose.arrangement import INTRO_RISE, build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import Overrides, decompose
from bandstand.compose.parts import ROLES, build_situation, generate_part
from bandstand.craft.intro import sounding


@pytest.mark.parametrize("prompt", ["pop song", "dark trap beat", "classic rock anthem", "neo-soul jam", "a lullaby"])
@pytest.mark.parametrize("seed", [1, 2])
def test_an_intro_builds(prompt, seed):
    intent = decompose(prompt, seed=seed, overrides=Overrides(bars=32))
    harmony = build_harmony(intent, seed)
    plan = build_arrangement(intent, harmony, resolve_roles(intent, None, ROLES), seed)
    intro = plan.sections[0]
    assert intro.kind == "intro" and intro.bars >= 4 and len(intro.roles) == 2
    energy = plan.bar_energy[:intro.bars]
    assert energy[0] == pytest.approx(INTRO_RISE[0]) and all(b > a for a, b in itertools.pairwise(energy))
    bars = build_situation(intent, harmony, plan).bars[:intro.bars]
    assert bars[0].roles < bars[-1].roles  # a voice joins on the way
    half = intro.bars // 2
    beats = bars[0].start, bars[half].start, bars[-1].start + (bars[1].start - bars[0].start)
    notes = [n for i, role in enumerate(intro.roles)
             for n in generate_part(role, intent, harmony, plan, seed + i).track.notes if n.start < beats[2]]
    def sounding(a: float, b: float) -> int:  # notes heard in a..b (a held chord in both halves)
        return sum(n.start < b and n.start + n.duration > a for n in notes)

    first, second = sounding(beats[0], beats[1]), sounding(beats[1], beats[2])
    assert second >= 1.2 * first, (prompt, first, second)


@pytest.mark.parametrize("prompt", ["pop song", "chicago house track", "classic rock anthem", "neo-soul jam",
                                    "afrobeats party song", "something angry", "lofi hip hop"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_intro_never_drops_back(prompt, seed):
    """Bar by bar through the intro, the band sounds no softer than in the bar before (the sum of the
    velocities of the notes sounding in a bar, struck there or held into it: `craft.intro`)."""
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed)
    intro = plan.sections[0]
    if intro.kind != "intro":
        pytest.skip("no intro")
    s = build_situation(intent, harmony, plan)
    notes = [n for i, role in enumerate(roles) for n in generate_part(role, intent, harmony, plan, seed + i).track.notes]
    levels = [sum(n.velocity for n in notes if sounding(n, bar, s.beats_per_bar)) for bar in range(intro.bars)]
    assert all(a <= b for a, b in itertools.pairwise(levels)), (prompt, levels)
    assert levels[-1] > levels[0], (prompt, levels)  # it builds
