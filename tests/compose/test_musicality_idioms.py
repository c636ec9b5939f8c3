"""Idioms a listener hears at once: the half-time feel played at the perceived
tempo, choruses that lift and verses that thin, Rhodes that sustain under a
neo-soul song, jazz that walks ii–V–I, chord roots spelled from the key,
afrobeats that breathes, 808s that hold and glide, and arrangements that add
players as the energy rises (with the seed free to vary who enters first)."""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from statistics import fmean, median

import pytest

from bandstand.compose.arrangement import FORMS, build_arrangement, resolve_roles
from bandstand.compose.assembly import assemble
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import GENRES, primary_genre
from bandstand.compose.parts import CORE_ROLES, ROLES, generate_part
from bandstand.compose.validation import evaluate_quality
from bandstand.craft.kit import (
    CLAP,
    CLOSED_HAT,
    CRASH,
    KICK,
    LOW_CONGA,
    MUTE_CONGA,
    OPEN_CONGA,
    OPEN_HAT,
    RIM,
    SHAKER,
    SNARE,
)
from bandstand.theory import parse_key

from .musicfix import make_arrangement, make_intent

BURIAL = "Frank Ocean meets Burial, late-night vibes"

# verse (0.5) and chorus (0.9) both with the whole band, so only the playing differs
LIFT_FORM = (
    ("Intro", "intro", 4, 0.2, ["pad", "chords"], "cut"),
    ("Verse", "verse", 8, 0.5, list(CORE_ROLES), "cut"),
    ("Chorus", "chorus", 8, 0.9, list(CORE_ROLES), "cut"),
    ("Verse 2", "verse", 8, 0.5, list(CORE_ROLES), "cut"),
    ("Chorus 2", "chorus", 8, 0.9, list(CORE_ROLES), "cut"),
    ("Outro", "outro", 4, 0.2, ["pad", "drums"], "cut"),
)
VERSE_BARS = [*range(4, 11), *range(20, 27)]  # the fill bar at each section end left out
CHORUS_BARS = [*range(12, 19), *range(28, 35)]


@cache
def _prompt_song(prompt: str, seed: int = 1):
    """The song as `bandstand compose` makes it: the roles the prompt resolves to."""
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, [c.bars for c in harmony.chords], roles, seed)
    parts = {r: generate_part(r, intent, harmony, plan, seed * 10 + i) for i, r in enumerate(roles)}
    return intent, harmony, plan, parts


def _section_bars(plan, kinds: tuple[str, ...], role: str) -> list[int]:
    """0-based bars of sections of `kinds` where `role` plays, the last bar of each left out (fills)."""
    return [s.start_bar - 1 + b for s in plan.sections if s.kind in kinds and role in s.roles
            for b in range(s.bars - 1)]


def _per_bar(notes, bars: list[int], pitches: frozenset[int] | None = None, bpb: float = 4.0) -> float:
    wanted = set(bars)
    hits = sum(1 for n in notes if int((n.start + 0.05) // bpb) in wanted and (pitches is None or n.pitch in pitches))
    return hits / max(1, len(bars))


def _step(n, bpb: float = 4.0) -> int:
    return round((n.start % bpb) * 4) % 16


# 1 — half-time: the backbeat on 3, sparse hats, the groove of the perceived tempo

def test_half_time_feel_puts_the_backbeat_on_three_with_sparse_hats():
    intent, _, plan, parts = _prompt_song(BURIAL)
    assert intent.tempo_analysis.half_time and intent.tempo == 135
    notes = parts["drums"].track.notes
    bars = _section_bars(plan, ("verse", "chorus", "prechorus"), "drums")
    back = [n for n in notes if n.pitch in (SNARE, CLAP) and n.velocity >= 70 and int((n.start + 0.05) // 4) in bars]
    assert len(back) / len(bars) == pytest.approx(1.0, abs=0.15), "one snare per bar at 135"
    assert sum(1 for n in back if _step(n) == 8) >= 0.9 * len(back), "the backbeat sits on beat 3"
    hats = _per_bar(notes, bars, frozenset({CLOSED_HAT, OPEN_HAT}))
    assert hats <= 9.0, f"{hats:.1f} hats per bar is the density of 135, not of 67.5"
    kicks = [n for n in notes if n.pitch == KICK and int((n.start + 0.05) // 4) in bars]
    assert any(_step(n) % 4 for n in kicks), "2-step kicks skip off the beat"


# 2 — choruses lift, verses thin out

@cache
def _lift(genre: str, seed: int = 3):
    intent = make_intent(genre)
    harmony = build_harmony(intent, seed)
    plan = make_arrangement([c.bars for c in harmony.chords], LIFT_FORM)
    return {r: generate_part(r, intent, harmony, plan, seed + i).track for i, r in enumerate(CORE_ROLES)}


@pytest.mark.parametrize("genre", ["rock", "bossa nova", "lo-fi"])
def test_choruses_lift_and_verses_thin_out(genre):
    tracks = _lift(genre)
    for role, ratio in (("drums", 1.3), ("chords", 1.25), ("lead", 1.15)):
        verse, chorus = _per_bar(tracks[role].notes, VERSE_BARS), _per_bar(tracks[role].notes, CHORUS_BARS)
        assert chorus >= ratio * verse, (genre, role, verse, chorus)
    lead = tracks["lead"].notes
    up = fmean(n.pitch for n in lead if int(n.start // 4) in CHORUS_BARS)
    down = fmean(n.pitch for n in lead if int(n.start // 4) in VERSE_BARS)
    assert up >= down + 3, (genre, down, up)
    crash_or_ride = {n.start for n in tracks["drums"].notes if n.pitch in (CRASH, 51)}
    assert any(abs(t - 48) < 0.1 for t in crash_or_ride), "a cymbal marks the chorus arrival"


@pytest.mark.parametrize("genre", [g.name for g in GENRES])
def test_density_follows_the_energy_in_every_genre(genre):
    tracks = _lift(genre)
    for role, ratio in (("drums", 1.2), ("chords", 1.25), ("lead", 1.15)):
        notes = tracks[role].notes
        assert _per_bar(notes, CHORUS_BARS) >= ratio * _per_bar(notes, VERSE_BARS), (genre, role)


# 3 — neo-soul keys sustain with extended voicings whatever the drums are

def test_neo_soul_keys_sustain_over_garage_drums():
    _, _, plan, parts = _prompt_song(BURIAL)
    chords = parts["chords"]
    assert chords.stats.style != "house_chops"
    assert chords.track.program in (4, 5), "a Rhodes"
    bars = _section_bars(plan, ("verse", "chorus", "prechorus", "bridge"), "chords")
    notes = [n for n in chords.track.notes if int((n.start + 0.05) // 4) in bars]
    assert median(n.duration for n in notes) >= 1.5, "held chords, not stabs"
    onsets = {round(n.start, 1) for n in notes}
    assert len(onsets) / len(bars) <= 3.0, "lightly comped"
    sizes = [sum(1 for n in notes if abs(n.start - t) < 0.05) for t in sorted({n.start for n in notes})]
    assert median(sizes) >= 4, "extended voicings (7ths, 9ths, 11ths)"


# 4 — jazz walks ii–V–I; roots are spelled from the key

def _is_two_five(a, b) -> bool:
    return (b.root - a.root) % 12 == 5 and a.pitch_classes and ((a.root + 3) % 12) in a.pitch_classes \
        and ((b.root + 4) % 12) in b.pitch_classes and ((b.root + 10) % 12) in b.pitch_classes


@pytest.mark.parametrize("key, mode", [("Bb", "major"), ("C", "minor"), ("F", "major"), ("Eb", "major")])
def test_jazz_progressions_are_two_five_ones_with_sevenths(key, mode):
    thirteens = 0
    for seed in range(12):
        plan = build_harmony(make_intent("jazz", key=key, mode=mode, harmonic=0.6), seed)
        chords = plan.chords
        assert all(len(c.pitch_classes) >= 4 for c in chords), plan.summary
        loop = [*chords, chords[0]]
        assert any(_is_two_five(a, b) for a, b in pairwise(loop)), plan.summary
        assert not any(c.colour == "polytonal" for c in chords), plan.summary
        thirteens += any("13" in c.symbol for c in chords)
    assert thirteens >= 4, "resolving dominants sing their 13th"


def test_jazz_tritone_subs_only_at_a_high_dial():
    low = [build_harmony(make_intent("jazz", harmonic=h), s) for s in range(20) for h in (0.6, 0.75)]
    high = [build_harmony(make_intent("jazz", harmonic=0.95), s) for s in range(20)]
    assert not any(c.colour == "polytonal" for p in low for c in p.chords)
    assert any(c.colour == "polytonal" for p in high for c in p.chords)


@pytest.mark.parametrize("genre", [g.name for g in GENRES])
@pytest.mark.parametrize("key", ["C#", "F#", "G#", "Eb", "Ab"])
@pytest.mark.parametrize("harmonic", [0.3, 0.95])
def test_chord_roots_in_the_scale_are_spelled_from_the_key(genre, key, harmonic):
    for seed in range(3):
        plan = build_harmony(make_intent(genre, key=key, mode="minor", harmonic=harmonic), seed)
        k = parse_key(f"{plan.key} minor")
        scale_names = {k.spell(pc) for pc in k.scale.pitch_classes}
        for c in plan.chords:
            name = c.symbol[:2] if c.symbol[1:2] in ("b", "#") else c.symbol[:1]
            if c.root in k.scale.pitch_classes:
                assert name == k.spell(c.root), plan.summary  # B13 and Emaj9 in C# minor, not Cb13, Fbmaj9
            else:  # a chromatic root takes the plain name a player writes
                assert name not in ("Cb", "Fb", "E#", "B#") or name in scale_names, plan.summary


# 5 — afrobeats breathes

def test_afrobeats_drums_are_clear_and_light():
    intent, harmony, plan, parts = _prompt_song("afrobeats party")
    notes = parts["drums"].track.notes
    bars = _section_bars(plan, ("verse", "hook", "chorus"), "drums")
    assert _per_bar(notes, bars) <= 34, "a clear groove, not a wall"
    shakers = [n for n in notes if n.pitch in (SHAKER, CLOSED_HAT)]
    assert fmean(n.velocity for n in shakers) <= 72, "shaker/hat 16ths sit low"
    assert _per_bar(notes, bars, frozenset({OPEN_CONGA, LOW_CONGA, MUTE_CONGA})) <= 4, "congas sparse"
    rims = {_step(n) for n in notes if n.pitch in (RIM, CLAP, SNARE) and n.velocity >= 60
            and int((n.start + 0.05) // 4) in bars}
    assert rims and rims <= {3, 4, 6, 10, 11, 12, 14}, rims
    tracks = [p.track for p in parts.values()]
    q = evaluate_quality(assemble(tracks, intent, harmony, plan), intent, harmony, plan)
    assert q.axes["vibe"] >= 0.7, q.metrics


@pytest.mark.parametrize("seed", range(4))
def test_afrobeats_is_heard_in_its_key_and_groove(seed):
    intent, harmony, plan, parts = _prompt_song("afrobeats party", seed)
    q = evaluate_quality(assemble([p.track for p in parts.values()], intent, harmony, plan), intent, harmony, plan)
    assert q.axes["vibe"] >= 0.75, (harmony.summary, q.metrics)


# 6 — trap 808s hold and glide

@pytest.mark.parametrize("prompt", ["dark trap with 808s", "trap beat"])
def test_trap_808_holds_follows_the_kick_and_glides(prompt):
    _, _, plan, parts = _prompt_song(prompt)
    role = "bass" if "bass" in parts else "sub_bass"  # an 808 asked for takes the bass's place
    bass = parts[role].track
    assert parts[role].stats.style == "sub_808"
    assert median(n.duration for n in bass.notes) >= 1.5, "long sub notes"
    bars = _section_bars(plan, ("verse", "hook"), role)
    held = sum(n.duration for n in bass.notes if int((n.start + 0.05) // 4) in bars)
    assert held / (4 * len(bars)) >= 0.85, "the sub fills the bar"
    glides = sum(1 for b in bass.pitch_bends if b.value == 0)
    assert glides >= 0.25 * len(bass.notes), (glides, len(bass.notes))
    moves = {abs(b.pitch - a.pitch) for a, b in pairwise(bass.notes)}
    assert 12 in moves, "octave slides"


# 7 — the arrangement adds players as the energy rises; the seed varies what is free

@pytest.mark.parametrize("form", sorted(FORMS))
def test_roles_are_added_as_the_energy_rises(form):
    intent = make_intent("pop")
    plan = build_arrangement(intent, [1, 1, 1, 1], list(CORE_ROLES), 0, form=form)
    for a in plan.sections:
        for b in plan.sections:
            if a.energy > b.energy + 0.02 and b.kind not in ("intro", "outro"):
                assert len(a.roles) >= len(b.roles), (form, a.name, a.roles, b.name, b.roles)


def test_jazz_solos_keep_the_band_the_heads_have():
    intent = make_intent("jazz")
    plan = build_arrangement(intent, [1, 1, 1, 1], list(CORE_ROLES), 0)
    heads = [s for s in plan.sections if s.kind == "head"]
    solos = [s for s in plan.sections if s.kind == "solo"]
    assert heads and solos
    assert all(set(h.roles) <= set(s.roles) for h in heads for s in solos)


def test_the_seed_varies_the_form_and_who_enters_first():
    intent = make_intent("pop")
    plans = [build_arrangement(intent, [1, 1, 1, 1], list(CORE_ROLES), seed) for seed in range(8)]
    shapes: dict[str, set[tuple[object, ...]]] = {}
    for p in plans:  # one form per variant of the genre's form: the seed shapes it, nothing else does
        shapes.setdefault(p.form_variant, set()).add(tuple((s.name, s.kind, s.bars) for s in p.sections))
    assert len(shapes) >= 3 and all(len(v) == 1 for v in shapes.values()), shapes
    edges = {tuple(tuple(s.roles) for s in p.sections if s.kind in ("intro", "outro")) for p in plans}
    assert len(edges) >= 2  # who opens and who plays out is the seed's too
    afro = [build_arrangement(make_intent("afrobeat"), [1, 1, 1, 1], list(CORE_ROLES), seed) for seed in range(8)]
    for kind in ("intro", "break", "outro"):  # each free choice is really taken by the seed
        assert len({tuple(s.roles) for p in afro for s in p.sections if s.kind == kind}) >= 2, kind
    again = build_arrangement(intent, [1, 1, 1, 1], list(CORE_ROLES), 5)
    assert again == plans[5]


def test_primary_genre_takes_comping_from_the_harmony_genre():
    intent = decompose(BURIAL, seed=1)
    traits = primary_genre(intent)
    assert traits.harmony_family == "neosoul" and traits.comp_style != "house_chops"
