"""Prompts and seeds matter (spec/songwriting.md §3): every genre, instrument,
texture and form word a musician would act on changes the music; unknown genre
words are read as the nearest genre and the summary says so; prompts that must
differ do after transposition; two seeds of one prompt differ in groove and bass."""

from __future__ import annotations

import pytest

from bandstand.compose.intent import decompose

from .heard import Heard, heard, jaccard


def _notes(h: Heard, shift: int = 0) -> set[tuple[object, ...]]:
    beats = h.plan.total_bars * h.bpb
    out: set[tuple[object, ...]] = set()
    for name, notes in h.tracks.items():
        for start, _, pitch, _ in notes:
            if start < beats:
                out.add((round(start * 4), "d", pitch) if name in h.drums else (round(start * 4), pitch + shift))
    return out


@pytest.mark.parametrize("a, b", [("classic rock anthem in E", "fast punk rock song"),
                                  ("heavy metal track in E minor", "something angry"),
                                  ("lo-fi hip hop beat to study to", "music for a rainy Tuesday"),
                                  ("ambient soundscape", "a robot lullaby")])
def test_prompts_that_mean_different_songs_give_different_songs(a, b):
    x, y = heard(a), heard(b)
    shift = (x.harmony.scale_pitch_classes[0] - y.harmony.scale_pitch_classes[0]) % 12
    shift = shift - 12 if shift > 5 else shift
    assert jaccard(_notes(x), _notes(y, shift)) < 0.5  # issue #30's bar for prompts that must differ


@pytest.mark.parametrize("prompt", ["classic rock anthem in E", "dark trap beat with 808s", "chicago house track",
                                    "lo-fi hip hop beat to study to", "afrobeats party song"])
def test_two_seeds_differ_in_groove_and_bass_line(prompt):
    one, two = heard(prompt, 1), heard(prompt, 2)
    beats = min(one.plan.total_bars, two.plan.total_bars) * 4

    def onsets(h: Heard, names: tuple[str, ...], keyed: bool) -> set[tuple[int, int]]:
        return {(round(n[0] * 4), n[2] if keyed else 0) for name in names for n in h.tracks.get(name, [])
                if n[0] < beats}
    assert jaccard(onsets(one, ("drums",), True), onsets(two, ("drums",), True)) < 0.8
    bass = ("bass", "sub bass")
    assert jaccard(onsets(one, bass, False), onsets(two, bass, False)) < 0.8


def test_punk_synthpop_bossa_and_ensembles_are_what_they_say():
    punk = heard("fast punk rock song")
    assert punk.intent.genre == ["punk"] and 160 <= punk.tempo <= 200
    synth = heard("80s synthpop song")
    assert "arp" in synth.tracks and synth.programs["bass"] in (38, 39)
    assert heard("bossa nova with nylon guitar").programs["chords"] == 24
    jazz = heard("jazz quartet playing a standard")
    assert set(jazz.tracks) == {"drums", "bass", "chords", "lead"}
    strings = heard("classical string quartet piece")
    assert len(strings.tracks) == 4 and set(strings.programs.values()) <= {40, 41, 42}


@pytest.mark.parametrize("prompt, texture, voices", [("lo-fi beat with rain", "rain", {69, 70, 82}),
                                                     ("jazzy hip hop with vinyl crackle", "vinyl", {37, 76, 77})])
def test_textures_the_prompt_names_are_heard(prompt, texture, voices):
    song = heard(prompt)
    assert song.intent.textures == [texture] and texture in song.intent.summary
    assert "texture" in song.drums and {n[2] for n in song.tracks["texture"]} <= voices
    bars = {song.bar(n[0]) for n in song.tracks["texture"]}
    assert len(bars) >= 0.9 * song.plan.total_bars  # from the first bar to the last


@pytest.mark.parametrize("prompt, genre", [("skiffle for the village fair", "country"), ("some kwaito", "amapiano"),
                                           ("a chillwave thing", "synthwave")])
def test_an_unknown_genre_word_is_read_as_the_nearest_genre_and_said_so(prompt, genre):
    intent = decompose(prompt)
    assert intent.genre[0] == genre and "nearest genre" in intent.summary
    assert any(a.field == "genre" and genre in a.reason for a in intent.ambiguities)


def test_anger_is_a_feeling_and_heaviness_a_sound():
    """A mood-only prompt's genre is a question whose default the words choose: anger's is punk
    (fast, short, shouted), heaviness's metal; each is asked, with the other in the options."""
    angry, heavy = decompose("something angry"), decompose("something heavy")
    assert angry.genre == ["punk"] and heavy.genre == ["metal"]
    assert angry.mood == ["angry"] and heavy.mood == ["aggressive"]
    asked = next(a for a in angry.ambiguities if a.field == "genre")
    assert asked.default == "punk" and "metal" in asked.options and "angry suggests punk" in asked.reason


def test_mood_words_turn_the_style_knobs_and_name_sounds():
    angry = decompose("something angry")
    assert angry.style["density"] > 0 and angry.style["articulation"] < 0
    robot = decompose("a robot lullaby")
    assert next(r.program for r in robot.instrument_requests if r.role == "lead") == 80  # square wave, first word wins
    assert "arp" in heard("a robot lullaby").tracks
