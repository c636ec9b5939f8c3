"""An excerpt starts at beat 0, keeps the notes that start in its bars (cut at its end) and
restates the controller values in force when it starts."""

from __future__ import annotations

from bandstand import score
from bandstand.studio.excerpt import excerpt

from .songs import small_song


def test_bars_of_a_song() -> None:
    song = small_song()
    song.tracks[2].notes.append(score.Note(22.0, 8.0, 72, 80))  # rings past the excerpt's end
    song.tracks[2].sort()
    song.tempo_changes = [score.TempoChange(20.0, 90.0)]
    cut = excerpt(song, 5, 6)
    assert cut.title == "Small — bars 5–6"
    assert [(s.name, s.start_bar, s.bars) for s in cut.sections] == [("Verse", 1, 2)]
    drums, bass, chords = cut.tracks
    assert len(drums.notes) == 16 and drums.notes[0].start == 0.0
    assert [(n.start, n.pitch) for n in bass.notes] == [(0.0, 40), (2.0, 40), (4.0, 43), (6.0, 43)]
    long = next(n for n in chords.notes if n.pitch == 72)
    assert (long.start, long.duration) == (6.0, 2.0)
    assert [(c.time, c.control, c.value) for c in chords.controls] == [(0.0, 64, 127), (4.0, 64, 127)]
    assert cut.tempo_changes == [score.TempoChange(4.0, 90.0)] and cut.tempo == 100
    assert cut.length_bars == 2


def test_a_held_controller_is_restated() -> None:
    song = small_song()
    chords = song.tracks[2]
    chords.controls = [score.ControlChange(0.0, 64, 127), score.ControlChange(1.0, 7, 90)]
    chords.mix = score.TrackMix(automation=(score.AutomationLane("volume", (
        score.AutomationPoint(0.0, 0.0), score.AutomationPoint(16.0, 1.0))),))
    cut = excerpt(song, 3, 4)
    assert [(c.time, c.control, c.value) for c in cut.tracks[2].controls] == [(0.0, 64, 127), (0.0, 7, 90)]
    (lane,) = cut.tracks[2].mix.automation
    assert lane.points[0].beat == 0.0 and lane.points[0].value == 0.5
