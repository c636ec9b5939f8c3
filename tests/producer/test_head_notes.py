"""HEAD's files tell HEAD's story: the producer notes from the recipe (genre, progression,
seed), the lead sheet's chords from the plan while the chords part plays it, files whose
bytes would not change left alone, and a composed session's `state/song.json` retired."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bandstand import score
from bandstand.compose.songjson import SONG_JSON
from bandstand.producer.sessions import head_notes
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import merge_song, to_song

Session = Callable[..., Path]


def test_exports_are_pinned() -> None:
    assert set(head_notes.__all__) == {"AGREEMENT", "PIPELINE_STATE", "HeadStory", "checkpoint_sound",
                                       "chords_agree", "planned_chords", "producer_notes", "sound_target",
                                       "story_of"}


def test_a_composed_session_tells_its_recipe(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    assert not (root / SONG_JSON).exists()  # the revisions are the one truth
    notes = (root / "notes/producer-notes.md").read_text(encoding="utf-8")
    assert "- Genre: funk" in notes and "- Seed: 3" in notes and "- Progression: " in notes
    assert "Master: " in notes and "LUFS" in notes
    session = open_project(root)
    story = head_notes.story_of(root, session.head, to_song(session.head))
    assert story.recipe is not None and story.sound is not None and story.chords == story.planned
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["master"]["target_lufs"] == story.sound.target_lufs
    assert isinstance(manifest["lead_sheet_source"], str)


def test_a_mix_change_rewrites_only_the_files_it_changes(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    session = open_project(root)
    kept = ["midi/drums.mid", "midi/bass.mid", "midi/lead.mid", "midi/pad.mid", "notes/lead-sheet.musicxml",
            "images/pianoroll.png"]
    before = {rel: (root / rel).stat().st_ino for rel in kept}
    lead_source = json.loads((root / "manifest.json").read_text(encoding="utf-8"))["lead_sheet_source"]
    chords = next(t for t in session.head.tracks if t.role == "chords")
    session.edit(lambda p: p.with_track(chords.model_copy(update={"volume": 0.5})), author="test",
                 request="chords quieter")
    assert {rel: (root / rel).stat().st_ino for rel in kept} == before  # not written again
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["revision"] == 2 and manifest["lead_sheet_source"] == lead_source
    assert "volume 0.5" in (root / "notes/producer-notes.md").read_text(encoding="utf-8")


def test_a_chords_part_changed_by_hand_names_what_it_plays(composed_copy: Session) -> None:
    root = composed_copy("funk groove with a synth pad", 3, 32)
    session = open_project(root)
    planned = head_notes.story_of(root, session.head, to_song(session.head)).planned
    assert planned and head_notes.chords_agree(to_song(session.head), planned)
    song = to_song(session.head)
    track = song.track("chords")
    track.notes = [score.Note(n.start, n.duration, n.pitch + 1, n.velocity) for n in track.notes]  # a semitone up
    moved = merge_song(session.head, song)
    assert not head_notes.chords_agree(to_song(moved), planned)
    session.commit(moved, author="test", request="chords up a semitone")
    notes = (root / "notes/producer-notes.md").read_text(encoding="utf-8")
    assert "(as the chords part plays it)" in notes
    sheet = (root / "notes/lead-sheet.musicxml").read_text(encoding="utf-8")
    session.undo()
    assert (root / "notes/lead-sheet.musicxml").read_text(encoding="utf-8") != sheet
    assert "(as the chords part plays it)" not in (root / "notes/producer-notes.md").read_text(encoding="utf-8")


def test_staged_files_a_killed_process_left_are_removed_on_open(composed_copy: Session) -> None:
    from bandstand.producer.sessions import head_files

    root = composed_copy("funk groove with a synth pad", 3, 32)
    leftover = root / "midi" / f".bass.mid.head-1-0{head_files.STAGED}.tmp"
    leftover.write_bytes(b"half a song")
    assert head_files.staged_leftovers(root) == [leftover]
    open_project(root)
    assert not leftover.exists() and head_files.staged_leftovers(root) == []


def _chord_symbols(root: Path) -> list[tuple[str, str]]:
    """The lead sheet's chord symbols and their roots, as music21 reads them (an independent reader)."""
    import music21

    score = music21.converter.parse(root / "notes/lead-sheet.musicxml")
    return [(c.figure, c.root().name) for c in score.recurse().getElementsByClass(music21.harmony.ChordSymbol)]


def test_after_a_key_change_the_lead_sheet_and_notes_follow_head(composed_copy: Session) -> None:
    from bandstand.producer.requests.iteration import edit

    root = composed_copy("pop ballad", 3, 16)
    before = _chord_symbols(root)
    assert before[0] == ("G", "G")  # G major
    outcome = edit(root, "change the key to F# minor")
    assert outcome.variation is not None
    session = open_project(root)
    session.accept(outcome.variation.id)
    after = _chord_symbols(root)
    assert after[0] == ("F#m", "F#")
    tones = {"F#", "G#", "A", "B", "C#", "D", "E", "E#"}  # F# minor, natural and harmonic
    assert all(root in tones for _, root in after)
    notes = (root / "notes/producer-notes.md").read_text(encoding="utf-8")
    assert "- Key: F# minor" in notes and "- Progression: F# minor — F#m" in notes
    session.undo()
    assert _chord_symbols(root) == before
    assert "- Key: G major" in (root / "notes/producer-notes.md").read_text(encoding="utf-8")
