"""to_song/from_song are lossless both ways; from_song lays out one region per section per
track; merge_song keeps the ids of what did not change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from bandstand import score
from bandstand.studio import Project, SeededIds, from_song, merge_song, to_song

from .songs import small_song, songs


@settings(max_examples=150, deadline=None)
@given(songs())
def test_song_to_project_to_song_is_lossless(song: score.Song) -> None:
    assert to_song(from_song(song, ids=SeededIds(1))) == song


@settings(max_examples=60, deadline=None)
@given(songs())
def test_project_to_song_to_project_is_lossless(song: score.Song) -> None:
    project = from_song(song, ids=SeededIds(7))
    again = from_song(to_song(project), ids=SeededIds(7))
    assert again == project
    assert Project.model_validate_json(project.model_dump_json()) == project


@settings(max_examples=60, deadline=None)
@given(songs())
def test_merging_a_song_into_its_own_project_changes_nothing(song: score.Song) -> None:
    project = from_song(song, ids=SeededIds(3))
    assert merge_song(project, to_song(project), ids=SeededIds(4)) == project


def test_one_region_per_section_per_track() -> None:
    project = from_song(small_song(), ids=SeededIds(1))
    drums, bass, chords = project.tracks
    assert [(r.name, r.start_beat, r.length_beats) for r in drums.regions] == [
        ("Intro", 0.0, 16.0), ("Verse", 16.0, 32.0), ("Chorus", 48.0, 16.0)]
    assert [r.name for r in bass.regions] == ["Verse", "Chorus"]  # no empty region where the bass rests
    assert bass.regions[0].notes[0].start == 0.0  # times are relative to the region
    assert all(r.track_id == chords.id for r in chords.regions)
    assert chords.regions[1].cc[0].cc == 64


def test_events_outside_every_section_get_a_bar_aligned_region() -> None:
    song = small_song()
    song.tracks[2].notes.append(score.Note(70.5, 1.0, 72, 80))  # bar 18, after the last section
    project = from_song(song, ids=SeededIds(1))
    tail = project.tracks[2].regions[-1]
    assert (tail.name, tail.start_beat, tail.length_beats) == ("", 68.0, 4.0)
    assert tail.notes[0].start == 2.5
    assert to_song(project) == song


def test_names_are_made_unique_and_short() -> None:
    song = score.Song(tracks=[score.Track("Piano", "chords"), score.Track("piano", "lead"),
                              score.Track("", "counter_melody"), score.Track("x" * 80, "pad")])
    names = [t.name for t in from_song(song).tracks]
    assert names == ["Piano", "piano 2", "Counter Melody", "x" * 50]


def test_ids_are_server_issued_and_seeded_ids_repeat() -> None:
    a = from_song(small_song(), ids=SeededIds(9))
    b = from_song(small_song(), ids=SeededIds(9))
    assert a == b
    ids = [a.id, *(t.id for t in a.tracks), *(r.id for _, r in a.regions()),
           *(n.id for _, r in a.regions() for n in r.notes)]
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 36 and i[14] == "4" for i in ids)  # version-4 uuids
    assert from_song(small_song()).id != from_song(small_song()).id  # random by default


def test_mix_and_buses_travel_both_ways() -> None:
    song = small_song()
    song.tracks[1].mix = score.TrackMix(volume=0.7, pan=0.2, inserts=(score.Effect("compressor", {"ratio": 4}),),
                                        sends=(score.Send("Reverb", 0.3),))
    project = from_song(song, ids=SeededIds(2))
    bass = project.tracks[1]
    assert (bass.volume, bass.pan, bass.inserts[0].params["ratio"]) == (0.7, 0.2, 4.0)
    assert bass.sends[0].bus_id == project.buses[0].id
    assert to_song(project).tracks[1].mix == song.tracks[1].mix
    assert to_song(project).buses == song.buses


def test_merge_keeps_ids_of_untouched_notes_and_tracks() -> None:
    base = from_song(small_song(), ids=SeededIds(1))
    song = to_song(base)
    bass = song.tracks[1]
    bass.notes = [*bass.notes, score.Note(17.75, 0.25, 40, 80)]
    bass.notes[0] = score.Note(bass.notes[0].start, 0.5, bass.notes[0].pitch, 90)  # same start and pitch
    bass.sort()
    merged = merge_song(base, song, ids=SeededIds(2))
    assert [t.id for t in merged.tracks] == [t.id for t in base.tracks]
    assert merged.tracks[0] == base.tracks[0] and merged.tracks[2] == base.tracks[2]
    old_ids = {n.id for _, r in base.regions() for n in r.notes}
    new_notes = [n for r in merged.tracks[1].regions for n in r.notes]
    assert sum(n.id not in old_ids for n in new_notes) == 1  # only the added note is new
    assert new_notes[0].id == base.tracks[1].regions[0].notes[0].id  # the lengthened one kept its id


@pytest.mark.parametrize("bad", [{"program": None, "drum_kit": None}, {"program": 1, "drum_kit": 0}])
def test_a_track_has_exactly_one_sound(bad: dict[str, int | None]) -> None:
    track = from_song(small_song(), ids=SeededIds(1)).tracks[1]
    with pytest.raises(ValueError, match="exactly one of program"):
        type(track).model_validate({**track.model_dump(), **bad})


def test_merge_keeps_ids_of_transposed_notes_and_reuses_unchanged_values() -> None:
    base = from_song(small_song(), ids=SeededIds(1))
    song = to_song(base)
    song.tracks[2].notes = [score.Note(n.start, n.duration, n.pitch + 2, n.velocity) for n in song.tracks[2].notes]
    merged = merge_song(base, song, ids=SeededIds(2))
    old = [n.id for r in base.tracks[2].regions for n in r.notes]
    assert [n.id for r in merged.tracks[2].regions for n in r.notes] == old  # modified, not removed + added
    assert merged.tracks[0] is base.tracks[0] and merged.tracks[1] is base.tracks[1]
    assert merge_song(base, to_song(base)) is base
