"""`guess_roles`: the roles of a file's tracks from what they play beside each other."""

from __future__ import annotations

from bandstand.midi import GM_PROGRAMS, guess_roles
from bandstand.score import Note, Track


def line(name: str, pitches: list[int], program: int = 0) -> Track:
    return Track(name, "", program=program, notes=[Note(i, 1.0, p, 90) for i, p in enumerate(pitches)])


def block(name: str, root: int) -> Track:
    return Track(name, "", notes=[Note(b * 4.0, 4.0, root + i, 70) for b in range(4) for i in (0, 4, 7)])


def test_drums_chords_and_the_lowest_and_highest_lines() -> None:
    kit = Track("Drums", "", is_drum=True, notes=[Note(i, 0.25, 36, 100) for i in range(8)])
    tracks = [line(GM_PROGRAMS[0], [72, 74, 76]), block(GM_PROGRAMS[0], 60), line(GM_PROGRAMS[0], [36, 38, 40]),
              line(GM_PROGRAMS[0], [55, 57, 59]), kit]
    assert guess_roles(tracks) == ["lead", "chords", "bass", "chords", "drums"]  # the middle line: its program


def test_a_name_says_more_than_the_notes() -> None:
    assert guess_roles([line("Lead synth", [30, 31]), line("Bass", [80, 81])]) == ["lead", "bass"]


def test_a_lone_line_is_bass_or_lead_by_its_register() -> None:
    assert guess_roles([line(GM_PROGRAMS[33], [40, 43])]) == ["bass"]
    assert guess_roles([line(GM_PROGRAMS[73], [72, 76])]) == ["lead"]
