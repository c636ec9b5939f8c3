"""Genres that sound like themselves (issue #30: an audio tagger heard blues, country, boom
bap, funk, neo-soul, classic rock, R&B and prog as "electronic"): each idiom's band is the one
a producer would book — an amped guitar's boogie in a blues, a scratching muted guitar over
slap bass in funk, a steel-string and a fiddle in country, a Hammond and a guitar solo in prog —
and no synth pad where the genre has none."""

from __future__ import annotations

from collections import defaultdict

import pytest

from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.sound import AMPS, build_sound
from bandstand.craft.density import GUITAR_FLOOR
from bandstand.score import Note
from tests.compose.test_lexicon_distinct import composed

BAND = {"drums": 0, "bass": 33, "chords": 29, "lead": 22}


def onsets(notes: tuple[Note, ...]) -> dict[float, list[Note]]:
    """The notes struck together (within a 32nd: the humanised hand is never exact), by the
    first one's onset in beats."""
    out: dict[float, list[Note]] = defaultdict(list)
    first = -1.0
    for n in sorted(notes, key=lambda n: n.start):
        if n.start - first > 0.125:
            first = n.start
        out[first].append(n)
    return out


@pytest.mark.parametrize("prompt", ["a slow twelve-bar blues", "a funky 70s groove", "a classic country song",
                                    "a boom bap hip hop beat"])
def test_genres_without_a_synth_pad_have_none(prompt):
    assert "pad" not in composed(prompt), prompt


@pytest.mark.parametrize("prompt, role, programs", [
    ("a slow twelve-bar blues", "chords", {29}),  # the overdriven electric, not a piano strummed like a guitar
    ("a funky 70s groove", "bass", {36, 37}), ("a funky 70s groove", "chords", {28}),
    ("a classic country song", "chords", {25}), ("a classic country song", "lead", {110}),
    ("a progressive rock epic", "chords", {29}), ("a progressive rock epic", "pad", {16, 17, 18}),
    ("a progressive rock epic", "lead", {29, 30}), ("an R&B slow jam", "lead", {66}),
    ("a classic country song", "drums", {8}), ("a heavy metal anthem", "drums", {0}),
    ("a neo soul ballad with warm Rhodes", "chords", {4}),
    ("an R&B slow jam", "drums", {40}), ("an R&B slow jam", "bass", {33}),  # brushes, a finger bass
])
def test_each_idiom_plays_its_own_band(prompt, role, programs):
    assert composed(prompt)[role].program in programs, (prompt, role, composed(prompt)[role].program)


@pytest.mark.parametrize("prompt, program", [("a classic rock song with a big guitar riff", 29),
                                             ("a twelve-bar blues on guitar", 29), ("a metal song with guitars", 30),
                                             ("a pop song with guitar", 25), ("a house track with guitar", 25),
                                             ("a rock song with an acoustic guitar", 25)])
def test_a_bare_guitar_is_the_genres_own_guitar_when_it_has_one(prompt, program):
    """"guitar" in a rock song is the rock band's overdriven electric; in a genre without a
    guitar of its own it is the steel-string; "acoustic guitar" is always the acoustic."""
    assert composed(prompt)["chords"].program == program, prompt


def test_the_blues_guitar_plays_the_shuffle_boogie_on_its_low_strings():
    chords = composed("a slow twelve-bar blues")["chords"]
    struck = list(onsets(chords.notes).values())
    pairs = [sorted(n.pitch for n in hit) for hit in struck if len(hit) == 2]
    assert len(pairs) >= 0.9 * len(struck)  # a few suspensions and the final chord aside
    assert all(GUITAR_FLOOR <= low < GUITAR_FLOOR + 12 for low, _ in pairs)  # the first octave of the neck, E2 up
    shapes = {high - low for low, high in pairs}
    assert {7, 9} <= shapes <= {7, 9, 10}  # root-fifth, root-sixth, the flat seventh reached for


def test_the_funk_guitar_scratches_muted_strokes_between_its_chord_chops():
    chords = composed("a funky 70s groove")["chords"]
    struck = onsets(chords.notes)
    chops = [t for t, hit in struck.items() if len(hit) >= 3]
    scratches = [hit[0] for hit in struck.values() if len(hit) == 1 and hit[0].duration < 0.1]
    # the choruses scratch (on the 'and's alone under the horns, which play every chorus); a verse
    # chops with rests (#30)
    assert chops and len(scratches) >= len(chops) / 5
    assert max(n.velocity for n in scratches) < min(n.velocity for t in chops for n in struck[t])


@pytest.mark.parametrize("prompt", ["a slow twelve-bar blues", "a classic rock song"])
def test_an_overdriven_guitar_plays_through_an_amp(prompt):
    intent = decompose(prompt)
    program = primary_genre(intent).program("chords")
    plan = build_sound(intent, {**BAND, "chords": program})
    chords = plan.for_role("chords")
    assert program in AMPS and chords is not None
    assert any(e.type == "overdrive" for e in chords.effects), prompt


def test_a_clean_guitar_a_piano_or_a_distortion_guitar_sample_has_no_amp_drive():
    plan = build_sound(decompose("an indie rock song"), {**BAND, "chords": 27, "lead": 0, "pad": 30})
    for role in ("chords", "lead", "pad"):
        part = plan.for_role(role)
        assert part is not None and not any(e.type == "overdrive" for e in part.effects)


def test_the_rnb_slow_jam_rocks_in_twelve_eight_on_its_triplets():
    """A 90s slow jam is in 12/8: the hats ride the eighth-note triplets (two sixteenths each, 24
    to the bar), the backbeat falls on 2 and 4 of the dotted-quarter pulse (steps 6 and 18), and
    the groove adds no sixteenth between the triplets (only the fills run in sixteenths)."""
    assert decompose("an R&B slow jam").time_signature == (12, 8)
    drums = composed("an R&B slow jam")["drums"]
    steps = [(round(n.start * 4) % 24, n.pitch, n.velocity) for n in drums.notes]
    assert all(step % 2 == 0 for step, pitch, _ in steps if pitch in (42, 46))
    assert sum(step % 2 == 0 for step, _, _ in steps) >= 0.9 * len(steps)
    backbeats = [step for step, pitch, velocity in steps if pitch == 38 and velocity > 60]
    assert sum(step in (6, 18) for step in backbeats) >= 0.75 * len(backbeats)


def test_an_rnb_song_asked_for_in_four_four_plays_a_four_four_backbeat():
    """The slow jam's kit is written for a 12/8 bar: in 4/4 the drummer plays the family's
    backbeat (snare on 2 and 4), not the first sixteen steps of the 12/8 bar."""
    drums = composed("an R&B slow jam in 4/4")["drums"]
    backbeats = [round(n.start * 4) % 16 for n in drums.notes if n.pitch == 38 and n.velocity > 60]
    assert sum(step in (4, 12) for step in backbeats) >= 0.75 * len(backbeats)


def test_the_country_bass_plays_the_two_beat():
    """Country's boom-chick: the root on one and the fifth on three (walking up into a new
    chord when the band is up), not a pop bass's eighths."""
    assert primary_genre(decompose("a classic country song")).bass_style == "two_beat"
    bass = composed("a classic country song")["bass"]
    steps = [round(n.start * 4) % 16 for n in bass.notes]
    assert set(steps) <= {0, 8, 12, 14}  # one, three, and the walk up on four and its "and"
    assert min(steps.count(0), steps.count(8)) >= 0.25 * len(steps)
