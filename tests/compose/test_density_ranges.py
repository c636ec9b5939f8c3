"""Notes per bar against the idiom's reference range (issue #30, `bandstand.craft.density`):
over every genre of the lexicon, a composed song (every part, the whole form) plays within
its drum family's range — all but a few busy Latin dance bands and wall-of-sound genres,
which stay within reach of it — and the same prompt and seed give the same count."""

from __future__ import annotations

from functools import cache

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import GENRES, primary_genre
from bandstand.compose.parts import ROLES, generate_part
from bandstand.craft.density import notes_per_bar_range

SEED = 1
IN_RANGE_SHARE = 0.8  # the songwriting benchmark's target
REACH = (0.5, 1.75)  # the furthest any genre may sit from its range: half its floor, 1.75× its ceiling


@cache
def notes_per_bar(prompt: str, seed: int = SEED) -> tuple[float, tuple[str, str]]:
    """Every part's notes over the song's bars, and the drum family the song was played as (and its genre)."""
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed)
    notes = sum(len(generate_part(r, intent, harmony, plan, seed + i).track.notes) for i, r in enumerate(roles))
    return notes / plan.total_bars, (primary_genre(intent).drum_family, primary_genre(intent).name)


def test_songs_of_every_genre_play_within_their_idioms_range_of_notes_per_bar():
    inside, far = [], []
    for genre in sorted(g.name for g in GENRES):
        npb, (family, name) = notes_per_bar(genre)
        lo, hi = notes_per_bar_range(family, name)
        inside.append(lo <= npb <= hi)
        if not REACH[0] * lo <= npb <= REACH[1] * hi:
            far.append((genre, family, round(npb, 1)))
    assert sum(inside) / len(inside) >= IN_RANGE_SHARE, sum(inside) / len(inside)
    assert not far


def test_busy_idioms_are_busier_than_sparse_ones():
    """The range is per idiom: a drill hi-hat roll or a metal chug plays more than a waltz or an ambient wash."""
    assert notes_per_bar("metal")[0] > 1.5 * notes_per_bar("waltz")[0]
    assert notes_per_bar("drill")[0] > 1.5 * notes_per_bar("ambient")[0]


def test_the_count_is_the_same_for_the_same_prompt_and_seed():
    notes_per_bar.cache_clear()
    first = notes_per_bar("house", 5)
    notes_per_bar.cache_clear()
    assert notes_per_bar("house", 5) == first


@cache
def _by_kind(prompt: str, seed: int) -> tuple[float, dict[str, float], tuple[str, str]]:
    """Notes per bar over the song, notes per bar by section kind, and the drum family."""
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed)
    starts = [n.start for i, r in enumerate(roles) for n in generate_part(r, intent, harmony, plan, seed + i).track.notes]
    bpb = intent.beats_per_bar
    notes: dict[str, int] = {}
    bars: dict[str, int] = {}
    for s in plan.sections:
        lo, hi = (s.start_bar - 1) * bpb, s.end_bar * bpb
        notes[s.kind] = notes.get(s.kind, 0) + sum(1 for t in starts if lo <= t < hi)
        bars[s.kind] = bars.get(s.kind, 0) + s.bars
    genre = primary_genre(intent)
    return len(starts) / plan.total_bars, {k: notes[k] / bars[k] for k in notes}, (genre.drum_family, genre.name)


# Issue #30's busy bands: a metal guitar chugging sixteenths through its verses under a double kick, a
# bossa kit playing ride, bell, shaker and cabasa at once; an afrobeats pad re-struck on every half bar
# of a hook; a rain texture of thirty drops a bar; a salsa band held to a bossa trio's range; a chiptune
# with a string pad under its arpeggiator, held to a rock band's range; a robot lullaby (new age's harp
# arpeggios and an arpeggiator) held to a drone's (gospel and zydeco are not there yet: a gospel chorus's
# sixteenth hats and shout still sit above).
BUSY = ("something angry", "bossa nova with nylon guitar", "afrobeats party song", "lo-fi beat with rain",
        "salsa with piano montuno", "8-bit video game theme", "a robot lullaby")


@pytest.mark.parametrize("prompt", BUSY)
@pytest.mark.parametrize("seed", (1, 2))
def test_once_busy_bands_play_within_their_idioms_range_and_verses_thinner_than_choruses(prompt: str, seed: int):
    npb, kinds, (family, genre) = _by_kind(prompt, seed)
    lo, hi = notes_per_bar_range(family, genre)
    assert lo <= npb <= hi, (prompt, seed, family, round(npb, 1))
    if "verse" in kinds:  # a lo-fi loop has no verse: its sections are loops
        assert kinds["verse"] < kinds.get("chorus", kinds.get("hook", 0.0)), kinds


def test_salsa_is_held_to_a_percussion_sections_range_not_a_bossa_trios():
    """Salsa plays the "bossa" family's feel with a percussion section (timbales, congas, bongos, clave)
    over a piano montuno and a tumbao: its range is afrobeat's, a bossa nova's stays the bossa family's."""
    assert notes_per_bar_range("bossa", "salsa") == notes_per_bar_range("afrobeat")
    assert notes_per_bar_range("bossa", "bossa nova") == notes_per_bar_range("bossa")
    assert notes_per_bar_range("funk", "salsa") == notes_per_bar_range("funk")  # played on another feel


def test_a_chiptune_is_a_consoles_four_voices_on_a_synth_bands_range():
    """A game console's voices — a pulse lead, an arpeggio, a triangle bass, noise drums — and the
    stabs: no pad; its rock backbeat is played by synthpop's band (pulse bass, arpeggiator), so its
    range is synthpop's, a rock song's stays rock's."""
    intent = decompose("8-bit video game theme", seed=1)
    assert "pad" not in resolve_roles(intent, None, ROLES)
    assert notes_per_bar_range("rock_backbeat", "chiptune") == notes_per_bar_range("synthpop")
    assert notes_per_bar_range("rock_backbeat", "indie rock") == notes_per_bar_range("rock_backbeat")


def test_new_age_is_a_small_orchestras_range_not_a_drones():
    """New age floats without drums as ambient music does, but a harpist's running arpeggios under a
    flute and a cello play the film score's range; an ambient soundscape keeps the drone's."""
    assert notes_per_bar_range("ambient", "new age") == notes_per_bar_range("cinematic")
    assert notes_per_bar_range("ambient", "ambient") == notes_per_bar_range("ambient")


@pytest.mark.parametrize(("prompt", "below"), [("afrobeats party song", "verse"), ("something angry", "verse"),
                                               ("salsa", "verse"), ("trance", "build")])
def test_a_band_that_fills_its_ceiling_takes_turns_and_its_choruses_still_lift(prompt: str, below: str):
    """Afrobeat, punk, salsa and trance bands, everyone playing, sit at their idiom's ceiling; arranged to
    take turns (`arrangement.TURNS`: a part sits a verse out or comes in halfway, trance's layers come in
    every eight bars, the last peak has everyone), a song lands in the middle third of the range over ten
    seeds, none over it, and every peak section still plays more than 1.5 times as many notes a bar as the
    verses (trance: its builds)."""
    rows = [_by_kind(prompt, seed) for seed in range(10)]
    lo, hi = notes_per_bar_range(*rows[0][2])
    npb = sorted(row[0] for row in rows)
    assert lo + (hi - lo) / 3 <= (npb[4] + npb[5]) / 2 <= hi - (hi - lo) / 3 and npb[-1] <= hi, npb
    for _, kinds, _ in rows:
        peak = kinds.get("chorus", kinds.get("hook", kinds.get("drop", 0.0)))
        assert peak > 1.5 * kinds[below], kinds


def test_a_funk_band_breathes_below_its_ceiling_and_its_choruses_lift():
    """Funk takes turns too (the verse on drums and bass, the guitar joining, the horns in every chorus with
    the guitar thinned under them, the bridge a breakdown to drums and bass): no song over the ceiling over
    ten seeds. Its median (43.8) sits in the lower half of the range's top third, not its middle: the chorus
    kit's sixteenth hats and tambourine alone play about thirty notes a bar, so the choruses, half the song,
    lift well over the ceiling."""
    rows = [_by_kind("funk", seed) for seed in range(10)]
    lo, hi = notes_per_bar_range(*rows[0][2])
    npb = sorted(row[0] for row in rows)
    assert (npb[4] + npb[5]) / 2 <= hi - (hi - lo) / 6 and npb[-1] <= hi, npb
    for _, kinds, _ in rows:
        assert kinds["chorus"] > 1.5 * kinds["verse"] and kinds["bridge"] < kinds["verse"], kinds
