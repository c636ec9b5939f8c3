"""The world's genres, moods that do not force a genre, seeds that vary the template, and
bad prompts answered honestly (issue #30): the lexicon knows well over a hundred genres,
each read as itself with its own idiom (metre, instruments, what it leaves out, harmony);
a seed moves the tempo and the form within the idiom while tempo words still win; a
prompt of only moods chooses by all of them; stop words, fifty genres, contradictory
tempo words and a key that does not exist are a question or a warning naming what was
played (CLI processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.harmony.vocab import VOCAB
from bandstand.compose.intent import decompose
from bandstand.compose.lexicon import ALIAS_OWNERS, GENRE_BY_NAME, GENRES, primary_genre
from bandstand.compose.parts import ROLES
from bandstand.craft.genre_kits import GENRE_KITS

from .test_lexicon_distinct import composed


def test_the_lexicon_covers_the_worlds_traditions():
    assert len(GENRES) >= 120
    families = {g.family for g in GENRES}
    assert {"jazz", "electronic", "classical", "folk", "latin", "african", "south asian", "rock"} <= families
    for genre in GENRES:
        assert genre.harmony_family in VOCAB, genre.name
        if "drums" not in genre.leaves_out and genre.name in GENRE_KITS:
            assert GENRE_KITS[genre.name][0] == genre.drum_family, genre.name  # the kit plays in the genre's feel
    shared = {alias: owners for alias, owners in ALIAS_OWNERS.items() if len(owners) > 1}
    assert not shared  # an alias names one genre, never silently the first of two


@pytest.mark.parametrize("prompt, genre", [
    ("a tango with bandoneon", "tango"), ("a cumbia", "cumbia"), ("flamenco rumba in E phrygian", "flamenco"),
    ("a polka", "polka"), ("grime", "grime"), ("industrial", "industrial"), ("highlife", "highlife"),
    ("bluegrass with banjo", "bluegrass"), ("klezmer wedding dance", "klezmer"), ("a fado", "fado"),
    ("qawwali-ish devotional", "qawwali"), ("gamelan-inspired piece", "gamelan"), ("baroque concerto grosso", "baroque"),
    ("chamber music", "chamber"), ("dubstep", "dubstep"), ("drum and bass", "drum & bass"), ("garage", "uk garage"),
    ("shoegaze", "shoegaze"), ("samba", "samba"), ("a celtic jig", "celtic"), ("bhangra", "bhangra"),
    ("psytrance", "psytrance"), ("ska", "ska"), ("big band swing era", "big band"), ("afro house", "afro house"),
])
def test_each_tradition_is_read_as_itself(prompt, genre):
    intent = decompose(prompt)
    assert intent.genre[0] == genre and not intent.substitutions


@pytest.mark.parametrize("prompt, meter", [("viennese waltz", (3, 4)), ("a celtic jig", (6, 8)), ("doo-wop", (12, 8)),
                                           ("mariachi", (6, 8)), ("bal musette", (3, 4)), ("funk", (4, 4))])
def test_the_metre_is_the_idioms(prompt, meter):
    assert decompose(prompt).time_signature == meter


@pytest.mark.parametrize("prompt, role, programs, absent", [
    ("klezmer", "lead", {71}, {"pad"}), ("baroque", "chords", {6}, {"drums", "pad"}),
    ("chamber music", "lead", {40}, {"drums", "pad"}), ("a fado", "lead", {25}, {"drums", "pad"}),
    ("calypso", "lead", {114}, {"pad"}), ("gypsy jazz", "chords", {24}, {"drums", "pad"}),
    ("grunge", "chords", {30}, {"pad"}), ("mariachi", "lead", {56}, {"drums", "pad"}),
    ("a celtic jig", "lead", {110}, set()), ("dixieland", "bass", {58}, set()),
])
def test_instruments_come_from_the_idiom_and_what_it_leaves_out_stays_out(prompt, role, programs, absent):
    parts = composed(prompt)
    assert parts[role].program in programs and parts[role].notes, (prompt, parts[role].program)
    assert not absent & set(parts.tracks), prompt


def test_idiomatic_modes_and_harmony():
    flamenco = decompose("flamenco rumba in E phrygian")
    assert (flamenco.key, flamenco.mode) == ("E", "phrygian")
    assert primary_genre(decompose("flamenco")).harmony_family == "andalusian"
    assert decompose("klezmer", seed=1).mode in ("harmonic minor", "phrygian", "dorian")
    assert primary_genre(decompose("baroque")).bass_style == "walking"  # a continuo walks


def _plan(prompt: str, seed: int) -> tuple[float, str, tuple[str, ...]]:
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed * 7 + 1)
    plan = build_arrangement(intent, harmony, resolve_roles(intent, None, ROLES), seed * 7 + 2)
    return intent.tempo, plan.form_variant, tuple(f"{s.name}:{s.bars}" for s in plan.sections)


@pytest.mark.parametrize("prompt", ["deep house", "a tango", "bluegrass", "bossa nova", "trap", "klezmer"])
def test_seeds_vary_tempo_and_form_within_the_idiom(prompt):
    plans = [_plan(prompt, seed) for seed in range(1, 9)]
    lo, hi = primary_genre(decompose(prompt)).tempo_range
    assert all(lo <= tempo <= hi for tempo, _, _ in plans)
    assert len({tempo for tempo, _, _ in plans}) >= 3
    assert len({sections for _, _, sections in plans}) >= 3
    assert _plan(prompt, 5) == _plan(prompt, 5)  # the same seed, the same song


def test_tempo_words_win_over_the_genre_and_the_seed():
    fast = [decompose("fast bluegrass", seed=s).tempo for s in range(1, 9)]
    slow = [decompose("slow bluegrass", seed=s).tempo for s in range(1, 9)]
    lo, hi = GENRE_BY_NAME["bluegrass"].tempo_range
    assert min(fast) >= hi - (hi - lo) / 8 and max(slow) <= lo + (hi - lo) / 8
    assert all(112 <= decompose("a tango", seed=s).tempo <= 128 for s in range(1, 9))  # never a tango at 185


def test_moods_shape_the_song_without_forcing_one_genre():
    songs = {p: decompose(p) for p in ("a rainy funeral", "a lullaby", "a lazy Sunday morning")}
    genres = {p: i.genre[0] for p, i in songs.items()}
    assert len(set(genres.values())) == 3 and "lo-fi" not in genres.values(), genres
    for prompt, intent in songs.items():
        note = next(a for a in intent.ambiguities if a.field == "genre")
        assert f"suggest{'s' if len(intent.mood) == 1 else ''} {genres[prompt]}" in note.reason
        assert note.default == genres[prompt]  # asked (only moods) or a warning (a kind of track), never silent
    assert decompose("a rainy funeral").energy < decompose("music for a wedding").energy


def _compose(tmp_path: Path, prompt: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", "compose", prompt, "--bars", "8", "--seed", "2",
                           "--no-audio", "--out", str(tmp_path), *extra],
                          capture_output=True, text=True, timeout=180, check=False, stdin=subprocess.DEVNULL)


def _manifest(tmp_path: Path) -> dict[str, object]:
    return json.loads(next(tmp_path.glob("session-*/manifest.json")).read_text())


def test_a_prompt_of_only_stop_words_is_a_question(tmp_path: Path) -> None:
    proc = _compose(tmp_path, "the and of a")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    line = " ".join(proc.stderr.split())
    assert "only common words" in line and "--genre" in line, proc.stderr
    assert not list(tmp_path.glob("session-*/manifest.json"))


def test_fifty_genres_at_once_is_a_warning_naming_what_plays(tmp_path: Path) -> None:
    proc = _compose(tmp_path, ", ".join(g.name for g in GENRES[:50]), "--yes")
    assert proc.returncode == 0, proc.stderr
    warning = "50 genres named; a song blends at most 3, so this one plays trap, drill, hip-hop"
    assert f"warning: {warning}" in " ".join(proc.stderr.split()), proc.stderr
    manifest = _manifest(tmp_path)
    assert manifest["genre"] == ["trap", "drill", "hip-hop"]
    assert any(warning in a for a in manifest["assumptions"])  # type: ignore[union-attr]


def test_contradictory_tempo_words_are_a_warning_with_the_tempo_played(tmp_path: Path) -> None:
    proc = _compose(tmp_path, "fast slow ballad at 200 BPM", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "warning: 'fast' and 'slow' contradict each other; playing the 200 BPM" in " ".join(proc.stderr.split())
    assert _manifest(tmp_path)["tempo"] == 200


def test_a_key_that_does_not_exist_is_a_warning_naming_the_key_chosen(tmp_path: Path) -> None:
    proc = _compose(tmp_path, "a pop song in the key of H# minor", "--yes")
    assert proc.returncode == 0, proc.stderr
    manifest = _manifest(tmp_path)
    key = manifest["key"]
    assert isinstance(key, str) and key.endswith("minor")  # the mode asked for is kept
    line = " ".join(proc.stderr.split())
    assert "'H# minor' is not a key bandstand knows" in line and f"playing {key}" in line, proc.stderr
