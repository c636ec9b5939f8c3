"""The style knobs through compose's part entry point: an override turns its
role (and only its role) where it is scoped — "make the bass busier", "half-time
drums in the bridge", "higher", "shorter notes" — and nothing else moves."""

from __future__ import annotations

from collections import Counter
from statistics import fmean

import pytest

from bandstand.compose.harmony import build_harmony
from bandstand.compose.parts import CORE_ROLES, generate_part
from bandstand.craft import StyleOverride
from bandstand.craft.kit import CLAP, CLOSED_HAT, SNARE

from .musicfix import make_arrangement, make_intent

BRIDGE_FORM = (
    ("Verse", "verse", 8, 0.6, list(CORE_ROLES), "cut"),
    ("Bridge", "bridge", 8, 0.6, list(CORE_ROLES), "cut"),
    ("Chorus", "chorus", 8, 0.9, list(CORE_ROLES), "cut"),
)
BRIDGE_BARS = range(8, 15)  # 0-based, the bridge's fill bar left out


def _song(genre: str, seed: int = 1):
    intent = make_intent(genre)
    harmony = build_harmony(intent, seed)
    return intent, harmony, make_arrangement([c.bars for c in harmony.chords], form=BRIDGE_FORM)


def _bar(n) -> int:
    return int((n.start + 0.06) // 4)


@pytest.mark.parametrize("genre", ["pop", "rock", "house", "funk", "jazz", "trap", "reggae", "afrobeat", "bossa nova"])
def test_a_busier_bass_plays_at_least_a_third_more_notes_on_the_same_roots(genre):
    intent, harmony, plan = _song(genre)
    plain = generate_part("bass", intent, harmony, plan, 5).track.notes
    busy = generate_part("bass", intent, harmony, plan, 5, [StyleOverride(role="bass", knobs={"density": 0.3})]).track.notes
    assert len(busy) >= 1.3 * len(plain), (len(plain), len(busy))
    first = {b: min(ns, key=lambda n: n.start).pitch % 12 for b, ns in _by_bar(plain).items()}
    again = {b: min(ns, key=lambda n: n.start).pitch % 12 for b, ns in _by_bar(busy).items()}
    assert first == again  # the same roots
    sparse = generate_part("bass", intent, harmony, plan, 5, [StyleOverride(role="bass", knobs={"density": -0.3})])
    assert len(sparse.track.notes) < len(plain)


def _by_bar(notes):
    out: dict[int, list] = {}
    for n in notes:
        out.setdefault(_bar(n), []).append(n)
    return out


@pytest.mark.parametrize("genre", ["pop", "rock", "hip-hop", "funk"])
def test_half_time_drums_in_the_bridge_put_the_backbeat_on_three_there_only(genre):
    intent, harmony, plan = _song(genre)
    half = [StyleOverride(role="drums", time_feel=0.5, sections=("bridge",))]
    plain = generate_part("drums", intent, harmony, plan, 3).track.notes
    turned = generate_part("drums", intent, harmony, plan, 3, half).track.notes
    back = [n for n in turned if n.pitch in (SNARE, CLAP) and n.velocity >= 70 and _bar(n) in BRIDGE_BARS]
    assert back and all(abs((n.start % 4) - 2.0) < 0.1 for n in back), [round(n.start % 4, 2) for n in back]
    hats = Counter(_bar(n) for n in turned if n.pitch == CLOSED_HAT)
    hats_before = Counter(_bar(n) for n in plain if n.pitch == CLOSED_HAT)
    assert sum(hats[b] for b in BRIDGE_BARS) < sum(hats_before[b] for b in BRIDGE_BARS)
    outside = [n for n in turned if _bar(n) < 8]
    assert outside == [n for n in plain if _bar(n) < 8]


def test_an_override_turns_only_its_own_role():
    intent, harmony, plan = _song("pop")
    everyone = [StyleOverride(role="bass", knobs={"density": 0.4, "register": 0.3}),
                StyleOverride(role="drums", time_feel=2.0)]
    for role in ("chords", "lead", "pad"):
        assert generate_part(role, intent, harmony, plan, 9, everyone).track == \
            generate_part(role, intent, harmony, plan, 9).track


@pytest.mark.parametrize("role", ["bass", "chords", "lead", "pad"])
def test_register_and_articulation_move_a_pitched_part(role):
    intent, harmony, plan = _song("pop")
    plain = generate_part(role, intent, harmony, plan, 4).track.notes
    high = generate_part(role, intent, harmony, plan, 4, [StyleOverride(role=role, knobs={"register": 0.3})]).track.notes
    short = generate_part(role, intent, harmony, plan, 4,
                          [StyleOverride(role=role, knobs={"articulation": -0.4})]).track.notes
    assert fmean(n.pitch for n in high) >= fmean(n.pitch for n in plain) + 10
    assert fmean(n.duration for n in short) < 0.8 * fmean(n.duration for n in plain)


def test_overrides_scoped_to_bars_change_only_those_bars():
    intent, harmony, plan = _song("rock")
    scoped = [StyleOverride(role="lead", knobs={"register": 0.3}, bars=(17, 24))]
    plain = generate_part("lead", intent, harmony, plan, 2).track.notes
    turned = generate_part("lead", intent, harmony, plan, 2, scoped).track.notes
    assert [n for n in turned if _bar(n) < 16] == [n for n in plain if _bar(n) < 16]
    assert fmean(n.pitch for n in turned if _bar(n) >= 16) > fmean(n.pitch for n in plain if _bar(n) >= 16) + 6


@pytest.mark.parametrize(("genre", "role"), [("metal", "bass"), ("metal", "chords"), ("funk", "bass"),
                                             ("afrobeat", "pad")])
def test_a_busy_mood_does_not_fill_a_steady_figure_but_a_busier_request_does(genre, role):
    """The mood's density leaves chugs, a written-out funk line and a held pad as the section
    plays them (#30: too busy); "make the bass busier" in the studio still makes it busier."""
    intent, harmony, plan = _song(genre)
    angry = intent.model_copy(update={"style": {**intent.style, "density": 0.4}})
    plain = generate_part(role, intent, harmony, plan, 5).track.notes
    moody = generate_part(role, angry, harmony, plan, 5).track.notes
    assert len(moody) == len(plain)
    busier = generate_part(role, angry, harmony, plan, 5, [StyleOverride(role=role, knobs={"density": 0.3})])
    assert len(busier.track.notes) > len(plain)
