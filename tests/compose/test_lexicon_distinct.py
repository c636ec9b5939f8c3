"""Every prompt its own song (issue #30): over the whole genre lexicon, no two genres
play the same drum grid, nor the same drum grid and bass line (compared as composed,
the bass moved to a common tonic); the instruments a prompt names are heard and play
their way; what an idiom leaves out (a bluegrass band's drum kit) stays out."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import Overrides, decompose
from bandstand.compose.lexicon import GENRES, primary_genre
from bandstand.compose.parts import ROLES, generate_part
from bandstand.score import Track
from bandstand.theory import pitch_class

SEED = 3
BARS = 24


@dataclass(frozen=True)
class Parts:
    tracks: dict[str, Track]
    tonic: int  # the key's pitch class, which the bass is read against

    def __contains__(self, role: str) -> bool:
        return role in self.tracks

    def __getitem__(self, role: str) -> Track:
        return self.tracks[role]

    def get(self, role: str) -> Track | None:
        return self.tracks.get(role)


@cache
def composed(prompt: str, seed: int = SEED, bars: int | None = BARS) -> Parts:
    """The prompt's parts as the compose pipeline writes them (no MIDI file, no audio)."""
    intent = decompose(prompt, seed=seed, overrides=Overrides(bars=bars))
    harmony = build_harmony(intent, seed * 7 + 1)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed * 7 + 2)
    tracks = {r: generate_part(r, intent, harmony, plan, seed * 100 + i).track for i, r in enumerate(roles)}
    return Parts(tracks, pitch_class(intent.key))


def drum_grid(parts: Parts) -> frozenset[tuple[int, int]]:
    """(sixteenth within the bar, drum note) of every hit of the drum kit."""
    drums = parts.get("drums")
    return frozenset((round(n.start * 4) % 16, n.pitch) for n in drums.notes) if drums else frozenset()


def bass_line(parts: Parts) -> tuple[tuple[int, int], ...]:
    """(sixteenth, pitch above the tonic) of every bass note, whatever the key."""
    bass = parts.get("bass") or parts.get("sub_bass")
    assert bass is not None
    return tuple((round(n.start * 4), n.pitch - parts.tonic) for n in bass.notes)


def test_no_two_genres_play_the_same_drum_grid_or_the_same_drums_and_bass():
    heard = {g.name: composed(g.name) for g in GENRES}
    for name, tracks in heard.items():
        assert decompose(name).genre[0] == name, f"'{name}' is read as another genre"
        assert bass_line(tracks), f"{name}: no bass"
    same_song = [(a, b) for a, b in itertools.combinations(heard, 2)
                 if drum_grid(heard[a]) == drum_grid(heard[b]) and bass_line(heard[a]) == bass_line(heard[b])]
    assert not same_song
    kits = {name: drum_grid(t) for name, t in heard.items() if drum_grid(t)}
    same_grid = [(a, b) for a, b in itertools.combinations(kits, 2) if kits[a] == kits[b]]
    assert not same_grid


@pytest.mark.parametrize("a, b", [("80s Japanese city pop", "happy ukulele song"), ("hyperpop", "trance"),
                                  ("drill", "grime"), ("a funeral song", "a lazy Sunday morning"),
                                  ("a tango", "salsa"), ("a cumbia", "salsa"), ("a polka", "country"),
                                  ("flamenco rumba", "bossa nova"), ("highlife", "afrobeat"),
                                  ("industrial track", "trap")])
def test_prompts_the_review_heard_as_one_song_are_two(a, b):
    ta, tb = composed(a), composed(b)
    assert drum_grid(ta) != drum_grid(tb) or not drum_grid(ta)
    assert bass_line(ta) != bass_line(tb)
    assert decompose(a).genre != decompose(b).genre or decompose(a).mood != decompose(b).mood


PLUCKED = frozenset(range(24, 32)) | frozenset(range(104, 108))  # GM guitars, sitar, banjo, shamisen, koto


@pytest.mark.parametrize("prompt, role, programs", [
    ("happy ukulele song", "chords", PLUCKED), ("banjo tune", "chords", {105}), ("accordion waltz", "chords", {21}),
    ("harpsichord piece", "chords", {6}), ("a tango", "lead", {23}), ("a pop song with bandoneon", "lead", {23}),
    ("shoegaze", "chords", {30}), ("industrial track", "chords", {30}), ("heavy metal", "chords", {30}),
    ("rock song with distorted guitars", "chords", {30}),
])
def test_named_and_idiomatic_instruments_are_heard(prompt, role, programs):
    tracks = composed(prompt)
    assert tracks[role].program in programs and tracks[role].notes, (prompt, tracks[role].program)


def test_a_ukulele_strums_and_changes_the_band_not_just_the_program():
    uke, pop = composed("happy ukulele song"), composed("happy pop song")
    assert primary_genre(decompose("happy ukulele song")).comp_style == "uke_strum"
    assert drum_grid(uke) != drum_grid(pop) and not any(n.pitch == 49 for n in uke["drums"].notes)


@pytest.mark.parametrize("prompt", ["pop song with 808s", "dark trap beat with 808s", "drill", "house track with an 808"])
def test_an_808_slides(prompt):
    tracks = composed(prompt)
    bass = tracks.get("sub_bass") or tracks["bass"]
    assert bass.program == 38 and bass.pitch_bends, prompt


@pytest.mark.parametrize("prompt, absent", [("bluegrass", {"drums", "pad"}), ("a lullaby", {"drums"}),
                                            ("a funeral song", {"drums"}), ("a tango", {"drums"}),
                                            ("a polka", {"pad"}), ("a jazz standard", {"pad"}), ("salsa", {"pad"}),
                                            ("a classical piece", {"drums"}), ("bebop", {"pad"})])
def test_what_the_idiom_leaves_out_stays_out(prompt, absent):
    assert not absent & set(composed(prompt).tracks)


def test_an_instrument_asked_for_comes_back_in_an_idiom_without_it():
    assert "drums" in composed("bluegrass with drums")


@pytest.mark.parametrize("prompt, trait, value", [("pop song with distorted guitars", "comp_style", "power_chords"),
                                                  ("pop song with ukulele", "comp_style", "uke_strum"),
                                                  ("pop song with banjo", "comp_style", "banjo_roll"),
                                                  ("pop song with 808s", "bass_style", "sub_808"),
                                                  ("pop song with organ", "comp_style", "drawbar"),
                                                  ("techno with a reese bass", "bass_style", "dnb_reese"),
                                                  ("gospel with organ", "comp_style", "gospel_shout"),
                                                  ("lo-fi piano beat", "comp_style", "jazz_comp")])
def test_an_instrument_word_plays_its_way_on_top_of_the_genre(prompt, trait, value):
    assert getattr(primary_genre(decompose(prompt)), trait) == value
    if value not in ("jazz_comp", "gospel_shout"):  # a piano, a gospel organ: the genre's own comping
        assert composed(prompt)["chords"].notes != composed("pop song")["chords"].notes or trait == "bass_style"


def _overlap(a: Track, b: Track) -> float:
    """Jaccard overlap of two parts' (sixteenth, pitch) notes."""
    x = {(round(n.start * 4), n.pitch) for n in a.notes}
    y = {(round(n.start * 4), n.pitch) for n in b.notes}
    return len(x & y) / len(x | y) if x | y else 1.0


@pytest.mark.parametrize("genre", ["pop song", "neo-soul jam", "indie rock song"])
@pytest.mark.parametrize("a, b", [("rhodes", "organ"), ("piano", "clavinet"), ("guitar", "electric guitar"),
                                  ("electric guitar", "harp"), ("rhodes", "piano")])
def test_two_keyboards_or_guitars_named_play_two_different_parts(genre, a, b):
    first, second = composed(f"{genre} with {a}")["chords"], composed(f"{genre} with {b}")["chords"]
    assert _overlap(first, second) < 0.5, (genre, a, b, _overlap(first, second))


def test_an_organ_holds_and_swells_where_a_rhodes_comps_in_short_shells():
    organ, rhodes = composed("pop song with organ")["chords"], composed("pop song with rhodes")["chords"]
    assert len(organ.notes) < 0.6 * len(rhodes.notes)  # held and tied, not re-struck
    assert sum(n.duration for n in organ.notes) / len(organ.notes) > 2 * sum(
        n.duration for n in rhodes.notes) / len(rhodes.notes)
    assert any(c.control == 11 for c in organ.controls)  # the expression pedal swells
    assert not any(c.control == 11 for c in rhodes.controls)


def test_what_an_instrument_plays_is_in_the_genre_vocabularies():
    from bandstand.compose.lexicon import (
        BASS_STYLES,
        COMP_STYLES,
        GENRE_BY_NAME,
        INSTRUMENTS,
        LEAD_STYLES,
    )
    from bandstand.craft.genre_kits import GENRE_KITS
    from bandstand.craft.plays_instruments import TOUCHES

    vocab = {"comp_style": COMP_STYLES, "bass_style": BASS_STYLES, "lead_style": LEAD_STYLES, "kit": set(GENRE_KITS),
             "touch": TOUCHES}
    for instrument in INSTRUMENTS:
        for trait, value in instrument.plays:
            assert value in vocab[trait], (instrument.words[0], trait, value)
        assert set(instrument.genres) <= set(GENRE_BY_NAME), instrument.words[0]
    assert set(GENRE_KITS) - set(GENRE_BY_NAME) == {"acoustic"}  # every other kit is a genre's
