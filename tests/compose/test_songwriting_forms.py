"""Harmony over the form (spec/songwriting.md §2): sections with harmonies of their
own, pre-choruses that stop on the dominant, bridges that depart and come back,
genre grammars (the 12-bar blues, AABA jazz heads, gospel, one-chord techno),
voicings that move, endings on the tonic in the bass, chord spelling in every
key — and validation that tells a song heard in the wrong key from a right one."""

from __future__ import annotations

import re

import pytest

from bandstand.compose.harmony import build_harmony, progression_file
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.validation import evaluate_quality
from bandstand.score import Note

from .heard import heard
from .musicfix import make_intent

SONGS = ["classic rock anthem in E", "dark trap beat with 808s", "chicago house track", "lo-fi hip hop beat to study to",
         "neo-soul jam with rhodes", "gospel praise song", "roots reggae one drop", "80s synthpop song",
         "afrobeats party song", "country song on acoustic guitar", "uplifting trance anthem", "motown soul song"]


def _symbols(h: HarmonyPlan, indices: list[int]) -> list[str]:
    return [h.chords[i].symbol for i in indices]


def _tonic(h: HarmonyPlan) -> int:
    return h.scale_pitch_classes[0]


@pytest.mark.parametrize("prompt", SONGS)
def test_sections_have_harmonies_of_their_own(prompt):
    song = heard(prompt)
    first: dict[str, list[int]] = {}
    for s in song.plan.sections:  # by section type: "Verse 2" is a verse, "Loop B" is not "Loop A"
        if s.kind not in ("intro", "outro"):
            first.setdefault(re.sub(r"\s+\d+$", "", s.name), s.chord_indices)
    kinds = list(first)
    differ = [(a, b) for i, a in enumerate(kinds) for b in kinds[i + 1:]
              if sum(x != y for x, y in zip(first[a], first[b], strict=False)) * 2 >= min(len(first[a]), len(first[b]))]
    assert differ, (prompt, {k: _symbols(song.harmony, v) for k, v in first.items()})


@pytest.mark.parametrize("seed", range(6))
def test_a_pre_chorus_stops_on_the_dominant_and_a_bridge_departs_and_returns(seed):
    h = build_harmony(make_intent("pop", harmonic=0.3), seed)
    pre, bridge = h.section("prechorus"), h.section("bridge")
    assert pre and bridge
    assert h.chords[pre[-1]].root == (_tonic(h) + 7) % 12, _symbols(h, pre)
    assert h.chords[bridge[0]].root != _tonic(h) and h.chords[bridge[-1]].root == (_tonic(h) + 7) % 12
    assert h.section("chorus") != h.section("verse")


@pytest.mark.parametrize("seed", range(4))
def test_the_12_bar_blues_has_its_iv_in_bar_five_and_is_a_form_not_a_length(seed):
    song = heard("12-bar blues shuffle in A", seed)
    assert "duration" in song.intent.inferred_fields  # "12-bar" did not set the length
    verse = next(s for s in song.plan.sections if s.kind == "verse")
    assert verse.bars == 12
    roots = [(song.harmony.chords[i].root - _tonic(song.harmony)) % 12 for i in verse.chord_indices]
    assert roots[0] == 0 and roots[4] == 5 and roots[8] == 7 and roots[10] == 0, roots


def test_a_jazz_head_is_aaba_over_two_five_ones():
    h = build_harmony(make_intent("jazz", harmonic=0.6), 3)
    head, verse, bridge = h.section("head"), h.section("verse"), h.section("bridge")
    assert head and verse and bridge
    a, names = len(verse), _symbols(h, head)
    assert names[:a] == names[a:2 * a] == names[3 * a:] == _symbols(h, verse) and names[2 * a:3 * a] != names[:a]
    assert h.grammar.startswith("AABA")
    song = heard("jazz quartet playing a standard")
    assert {s.kind for s in song.plan.sections} == {"head", "solo"}


def test_gospel_walks_up_through_passing_diminished_chords_and_two_five_ones():
    plans = [build_harmony(make_intent("gospel"), s) for s in range(4)]
    assert all(any("dim7" in c.symbol for c in p.chords) for p in plans)
    assert all(any(c.roman.startswith("ii") for c in p.chords) and any(c.roman.startswith("V") for c in p.chords)
               for p in plans)


def test_techno_stays_on_one_or_two_chords():
    for seed in range(4):
        song = heard("minimal techno", seed)
        played = {song.harmony.chords[i].symbol for s in song.plan.sections for i in s.chord_indices}
        assert len(played) <= 2, played


@pytest.mark.parametrize("prompt", [*SONGS, "ambient soundscape", "a gentle waltz", "heavy metal track in E minor",
                                    "jazz quartet playing a standard", "12-bar blues shuffle in A"])
def test_the_song_ends_on_its_tonic_in_the_bass(prompt):
    song = heard(prompt)
    pitched = [n for name, ns in song.tracks.items() if name not in song.drums for n in ns]
    last = max(n[0] for n in pitched)
    final = [n for n in pitched if n[0] <= last + 0.05 and n[0] + n[1] > last + 0.05]
    assert min(n[2] for n in final) % 12 == _tonic(song.harmony), prompt
    assert song.harmony.ending_name


@pytest.mark.parametrize("prompt", ["classic rock anthem in E", "neo-soul jam with rhodes", "gospel praise song"])
def test_voicings_move_between_sections(prompt):
    song = heard(prompt)
    by_bar: dict[int, set[int]] = {}
    for n in song.notes("chords"):
        by_bar.setdefault(song.bar(n[0]), set()).add(n[2])
    voicings: dict[frozenset[int], set[tuple[int, ...]]] = {}
    for pitches in by_bar.values():
        voicings.setdefault(frozenset(p % 12 for p in pitches), set()).add(tuple(sorted(pitches)))
    assert any(len(v) >= 2 for v in voicings.values())


def test_voicings_are_spelled_as_the_chord_spells_them():
    for key, mode in (("F", "major"), ("C", "major"), ("Db", "major")):
        for seed in range(6):
            text = progression_file(build_harmony(make_intent("jazz", key=key, mode=mode, harmonic=0.8), seed))
            for line in text.splitlines():
                cols = line.split()
                if line and not line.startswith("#") and cols[2].startswith("D13"):
                    assert "Gb" not in line and "F#" in line, line
                if line and not line.startswith("#") and cols[2].startswith("G13"):
                    assert "Cb" not in line, line


def test_a_song_heard_in_another_key_does_not_score_harmony_one():
    song = heard("classic rock anthem in E")
    good = evaluate_quality(song.song, song.intent, song.harmony, song.plan)
    assert good.metrics["key_heard"] == 1.0 and good.metrics["ends_on_tonic"] == 1.0
    moved = song.song.__class__(title=song.song.title, tempo=song.song.tempo, time_signature=song.song.time_signature,
                                key=song.song.key, sections=song.song.sections)
    moved.tracks = [t.__class__(name=t.name, role=t.role, program=t.program, is_drum=t.is_drum, channel=t.channel,
                                notes=t.notes if t.is_drum else [Note(n.start, n.duration, n.pitch + 6, n.velocity)
                                                                 for n in t.notes]) for t in song.song.tracks]
    bad = evaluate_quality(moved, song.intent, song.harmony, song.plan)
    assert bad.metrics["key_heard"] < 1.0 and bad.axes["harmony"] < 1.0 and bad.axes["harmony"] < good.axes["harmony"]
    assert {"ends_on_tonic", "section_variety", "voicing_variety", "key_heard"} <= set(good.metrics)
