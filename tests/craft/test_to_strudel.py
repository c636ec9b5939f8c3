"""craft.to_strudel is exact: any notes at MIDI resolution (odd ticks, chords, overlaps, notes
across bar lines, several velocities) written as Strudel code come back from bandstand's pattern
engine as the same onsets, lengths, pitches and velocities; a note past the clip's last bar is
cut there. (Strudel itself plays the written songs in tests/producer/test_strudel_export.py.)"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.craft.to_strudel import clip_to_strudel
from bandstand.midi import STRUDEL_SOUNDFONTS
from bandstand.patterns import evaluate, pattern_to_song
from bandstand.score import Note, Track

BAR = 1920  # ticks in a 4/4 bar

notes = st.lists(st.tuples(st.integers(0, 4 * BAR - 1), st.integers(1, 2 * BAR), st.integers(24, 100),
                           st.integers(1, 127)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(notes, st.integers(0, 127))
def test_a_clip_plays_back_as_its_notes(drawn: list[tuple[int, int, int, int]], program: int) -> None:
    track = Track("part", "lead", program=program,
                  notes=[Note(start / 480, length / 480, pitch, velocity) for start, length, pitch, velocity in drawn])
    code = clip_to_strudel(track, 4.0)
    assert code.endswith(f'.s("{STRUDEL_SOUNDFONTS[program]}")')
    bars = max(start for start, *_ in drawn) // BAR + 1
    song = pattern_to_song(evaluate(code), cycles=bars, beats_per_cycle=4)
    played = sorted((round(n.start * 480), round(n.duration * 480), n.pitch, n.velocity)
                    for t in song.tracks for n in t.notes)
    expected = sorted((start, min(length, bars * BAR - start), pitch, velocity)
                      for start, length, pitch, velocity in drawn)
    assert played == expected
