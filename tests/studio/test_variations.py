"""Variations: the state machine, phrases (one per region per four bars), partial commits,
and the musical diff in words."""

from __future__ import annotations

import itertools

import pytest

from bandstand import score
from bandstand.errors import VariationConflict
from bandstand.studio import (
    TERMINAL,
    TRANSITIONS,
    Project,
    SeededIds,
    commit_project,
    describe_changes,
    from_song,
    merge_song,
    new_variation,
    to_song,
    transition,
)

from .songs import small_song

STATES = list(TRANSITIONS)


def _busier_bass(base: Project) -> Project:
    song = to_song(base)
    bass = song.track("bass")
    bass.notes += [score.Note(n.start + 1.75, 0.25, n.pitch + 12, 70) for n in bass.notes]
    bass.sort()
    return merge_song(base, song, ids=SeededIds(2))


@pytest.fixture
def base() -> Project:
    return from_song(small_song(), ids=SeededIds(1)).model_copy(update={"revision": 3})


def test_the_state_table() -> None:
    assert {"committed", "discarded", "failed", "expired"} == TERMINAL
    assert TRANSITIONS["created"] == {"streaming", "discarded", "failed", "expired"}
    assert TRANSITIONS["streaming"] == {"ready", "discarded", "failed", "expired"}
    assert TRANSITIONS["ready"] == {"committed", "discarded", "failed", "expired"}


@pytest.mark.parametrize(("start", "to"), list(itertools.product(STATES, STATES)))
def test_every_move_follows_the_table(base: Project, start: str, to: str) -> None:
    v = new_variation(base, _busier_bass(base), ids=SeededIds(3)).model_copy(update={"state": start})
    allowed = to in TRANSITIONS[start] or (start == to == "discarded")
    if allowed:
        assert transition(v, to).state == to  # type: ignore[arg-type]
    else:
        with pytest.raises(VariationConflict, match=f"variation {v.id}"):
            transition(v, to)  # type: ignore[arg-type]


def test_discard_is_idempotent_and_a_committed_variation_stays(base: Project) -> None:
    v = new_variation(base, _busier_bass(base), ids=SeededIds(3))
    gone = transition(v, "discarded")
    assert transition(gone, "discarded") is gone
    done = transition(transition(transition(v, "streaming"), "ready"), "committed", result_revision=4)
    with pytest.raises(VariationConflict, match="already committed \\(revision 4\\)"):
        transition(done, "discarded")


def test_phrases_cover_each_region_in_four_bar_windows(base: Project) -> None:
    v = new_variation(base, _busier_bass(base), ids=SeededIds(3), intent="busier bass")
    assert v.base_revision == 3 and v.state == "created"
    assert [(p.region_name, p.start_bar, p.end_bar) for p in v.phrases] == [
        ("Verse", 5, 8), ("Verse", 9, 12), ("Chorus", 13, 16)]
    assert all(p.track_name == "Bass" and p.label.startswith("Bass · bars") for p in v.phrases)
    assert v.counts == {"added": 24, "removed": 0, "modified": 0}
    assert v.affected_tracks == [{"id": base.tracks[1].id, "name": "Bass"}]
    first = v.phrases[0]
    assert first.counts() == {"added": 8, "removed": 0, "modified": 0}
    assert all(c.before is None and c.after is not None for c in first.notes)
    assert "denser" in first.tags


def test_removed_and_modified_notes_and_controllers(base: Project) -> None:
    song = to_song(base)
    chords = song.track("chords")
    chords.notes = [n for n in chords.notes if n.start >= 4.0]  # bar 1 gone
    chords.notes[0] = score.Note(chords.notes[0].start, 1.0, chords.notes[0].pitch, 50)  # bar 2 shorter
    chords.controls = chords.controls[1:]
    chords.pitch_bends.append(score.PitchBend(6.0, 2000))
    proposal = merge_song(base, song, ids=SeededIds(2))
    v = new_variation(base, proposal, ids=SeededIds(3))
    (phrase,) = v.phrases
    kinds = sorted(c.kind for c in phrase.notes)
    assert kinds == ["modified", "removed", "removed", "removed"]
    modified = next(c for c in phrase.notes if c.kind == "modified")
    assert modified.before is not None and modified.after is not None and modified.before.id == modified.after.id
    assert [c.kind for c in phrase.cc] == ["removed"] and [c.kind for c in phrase.pitch_bends] == ["added"]
    assert set(phrase.tags) >= {"removed", "modified", "sparser", "cc", "pitch_bends"}


def test_commit_all_is_the_proposal_and_a_subset_reverts_the_rest(base: Project) -> None:
    proposal = _busier_bass(base)
    v = new_variation(base, proposal, ids=SeededIds(3))
    assert commit_project(base, v) == proposal
    first = v.phrases[0]
    partial = commit_project(base, v, [first.id[:8]])  # a unique prefix is enough
    bass_before = base.tracks[1]
    bass_after = partial.tracks[1]
    assert len(bass_after.regions[0].notes) == len(bass_before.regions[0].notes) + 8
    assert bass_after.regions[1] == bass_before.regions[1]  # the chorus phrase was not accepted
    again = new_variation(base, partial, ids=SeededIds(4))
    assert [(p.start_bar, p.counts()["added"]) for p in again.phrases] == [(5, 8)]


def test_unknown_or_no_phrases_are_refused(base: Project) -> None:
    v = new_variation(base, _busier_bass(base), ids=SeededIds(3))
    with pytest.raises(VariationConflict, match="'nope' is not one of its phrases"):
        commit_project(base, v, ["nope"])
    with pytest.raises(VariationConflict, match="discard it instead"):
        commit_project(base, v, [])


def test_rejecting_a_new_tracks_phrases_leaves_the_track_out(base: Project) -> None:
    song = to_song(base)
    song.tracks.append(score.Track("Strings", "pad", 48, notes=[score.Note(64.0, 4.0, 60, 70)]))
    song.tracks[1].notes.append(score.Note(20.5, 0.5, 40, 80))
    song.tracks[1].sort()
    proposal = merge_song(base, song, ids=SeededIds(2))
    v = new_variation(base, proposal, ids=SeededIds(3))
    bass_only = [p.id for p in v.phrases if p.track_name == "Bass"]
    result = commit_project(base, v, bass_only)
    assert [t.name for t in result.tracks] == ["Drums", "Bass", "Chords"]
    strings_only = [p.id for p in v.phrases if p.track_name == "Strings"]
    assert [t.name for t in commit_project(base, v, strings_only).tracks] == ["Drums", "Bass", "Chords", "Strings"]


def test_the_musical_diff_says_what_a_listener_notices(base: Project) -> None:
    diff = describe_changes(base, _busier_bass(base))
    assert diff["drums"] == "unchanged" and diff["chords"] == "unchanged"
    bass = diff["bass"]
    assert bass.startswith("24 → 48 notes, same roots, register up 6 semitones (mean F#2 → C3)")
    assert "adds 16th pickups (0 → 24 off the 8th grid)" in bass
    assert "Verse 2.0 → 4.0 notes/bar" in bass


def test_the_diff_names_register_mix_new_and_removed_parts(base: Project) -> None:
    song = to_song(base)
    song.tracks[2].notes = [score.Note(n.start, n.duration, n.pitch + 12, n.velocity) for n in song.tracks[2].notes]
    song.tracks[0].mix = score.TrackMix(volume=0.5)
    song.tracks[1].notes = [n for n in song.tracks[1].notes if n.pitch != 43]
    song.tracks.append(score.Track("Lead", "lead", 80, notes=[score.Note(48.0, 1.0, 72, 90)]))
    song.tempo = 90
    diff = describe_changes(base, merge_song(base, song))
    assert diff["song"] == "tempo 100 → 90 BPM"
    assert diff["drums"] == "notes unchanged; volume 1 → 0.5"
    assert "register up 12 semitones (mean E4 → E5)" in diff["chords"]
    assert diff["bass"].startswith("24 → 18 notes")
    assert diff["lead"] == "new part, 1 notes in bars 13, C5–C5"
    del song.tracks[2]
    assert describe_changes(base, merge_song(base, song))["chords"] == "removed (48 notes)"


def test_ranges_in_a_diff_are_spelled_for_the_songs_key() -> None:
    """'Ab2–F#3' in F# minor was a flat in a sharp key: a diff spells its pitches with theory's
    speller for the song's key (G#3 in F# minor, Ab3 in Bb major)."""
    from bandstand.studio.musical_diff import _pitch_name

    assert [_pitch_name(p, "F# minor") for p in (56, 66, 61)] == ["G#3", "F#4", "C#4"]
    assert [_pitch_name(p, "Bb major") for p in (56, 66, 61)] == ["Ab3", "Gb4", "Db4"]
    assert _pitch_name(56.4, "not a key") == _pitch_name(56)
