"""What the arrangement view shows beside a project: chord symbols from the chords
part (following edits), each track's instrument, the General MIDI drum names."""

from __future__ import annotations

import itertools

from bandstand import score
from bandstand.producer.sessions.summaries import arrangement_json
from bandstand.studio import SeededIds, from_song, merge_song, to_song

from ..studio.songs import small_song


def test_the_arrangement_view_names_chords_instruments_and_drums() -> None:
    project = from_song(small_song(), ids=SeededIds(1))
    view = arrangement_json(project)
    assert view["chords_from"] == "Chords"
    chords = view["chords"]
    assert chords and chords[0]["beat"] == 0 and all(a["beat"] < b["beat"] for a, b in itertools.pairwise(chords))
    assert all(a["symbol"] != b["symbol"] for a, b in itertools.pairwise(chords))  # only where it changes
    by_name = {t.name: view["instruments"][t.id] for t in project.tracks}
    assert by_name["Drums"] == "Drum kit" and by_name["Bass"] == "Electric Bass (finger)"
    assert view["drum_names"]["36"] == "Bass Drum 1" and view["drum_names"]["42"] == "Closed Hi-Hat"

    # the symbols follow the notes: the chords part moved up a fourth names other chords
    song = to_song(project)
    chords_part = song.track("chords")
    chords_part.notes = [score.Note(n.start, n.duration, n.pitch + 5, n.velocity) for n in chords_part.notes]
    moved = arrangement_json(merge_song(project, song, ids=SeededIds(2)))["chords"]
    assert [c["symbol"] for c in moved] != [c["symbol"] for c in chords]


def test_without_a_chords_part_there_are_no_symbols() -> None:
    song = small_song()
    song.tracks = [t for t in song.tracks if t.role != "chords"]
    view = arrangement_json(from_song(song, ids=SeededIds(1)))
    assert view["chords"] == [] and view["chords_from"] is None
