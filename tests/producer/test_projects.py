"""Projects: revision 1 from a song, variations proposed and accepted (all or some
phrases), conflicts, direct changes, undo/redo chains that restore every byte, history."""

from __future__ import annotations

import json
from pathlib import Path

import mido
import pytest

from bandstand import score
from bandstand.errors import InvalidInput, VariationConflict
from bandstand.producer.sessions.projects import ProjectSession, create_from_song, open_project
from bandstand.studio import Project, Provenance, SeededIds, merge_song, to_song

from ..studio.songs import small_song
from .conftest import snapshot


def busier(session: ProjectSession, role: str = "bass", offset: float = 1.75) -> Project:
    song = to_song(session.head)
    track = song.track(role)
    track.notes += [score.Note(n.start + offset, 0.25, n.pitch, 70) for n in track.notes if n.start + offset < 64]
    track.sort()
    return merge_song(session.head, song, ids=SeededIds(99))


def louder(session: ProjectSession, name: str, volume: float) -> Project:
    head = session.head
    track = next(t for t in head.tracks if t.name == name)
    return head.with_track(track.model_copy(update={"volume": volume}))


def test_revision_one_and_the_files_that_show_it(session: ProjectSession) -> None:
    root = session.session_dir
    assert session.revision == 1 and session.head.revision == 1
    files = snapshot(root)
    assert {"midi/drums.mid", "midi/bass.mid", "midi/chords.mid", "midi/full-arrangement.mid",
            "images/pianoroll.png", "notes/producer-notes.md", "manifest.json", "revisions/HEAD.json",
            "revisions/000001.json", "revisions/000001.project.json"} <= set(files)
    manifest = json.loads(files["manifest.json"])
    assert manifest["revision"] == 1 and manifest["track_count"] == 3
    assert [p["file"] for p in manifest["parts"]] == ["midi/drums.mid", "midi/bass.mid", "midi/chords.mid"]
    assert manifest["audio"] == {"file": "audio/full-arrangement.wav", "revision": None, "stale": True}
    midi = mido.MidiFile(root / "midi/full-arrangement.mid")
    assert sum(1 for t in midi.tracks for m in t if m.type == "note_on" and m.velocity) == \
        sum(len(t.notes) for t in small_song().tracks)
    (entry,) = [row.entry for row in session.history()]
    assert (entry.kind, entry.author, entry.request, entry.parent) == ("compose", "compose", "small", None)


def test_a_proposal_changes_nothing_until_accepted(session: ProjectSession) -> None:
    before = snapshot(session.session_dir, skip=("variations",))
    events: list[str] = []
    v = session.propose(busier(session), request="make the bass busier", intent="busier bass", author="test",
                        on_event=lambda kind, payload: events.append(kind))
    assert v.state == "ready" and v.base_revision == 1
    assert events == ["meta", *["phrase"] * len(v.phrases), "done"]
    assert snapshot(session.session_dir, skip=("variations",)) == before
    assert [x.id for x in session.variations()] == [v.id]


def test_accept_moves_head_and_rewrites_only_what_changed(session: ProjectSession) -> None:
    root = session.session_dir
    before = snapshot(root)
    v = session.propose(busier(session), request="make the bass busier", author="test")
    entry = session.accept(v.id)
    assert entry.revision == 2 and entry.parent == 1 and entry.variation_id == v.id
    assert session.revision == 2 and session.variation(v.id).state == "committed"
    after = snapshot(root)
    assert after["midi/drums.mid"] == before["midi/drums.mid"]
    assert after["midi/chords.mid"] == before["midi/chords.mid"]
    assert after["midi/bass.mid"] != before["midi/bass.mid"]
    assert json.loads(after["manifest.json"])["revision"] == 2
    bass = mido.MidiFile(root / "midi/bass.mid")
    assert sum(1 for t in bass.tracks for m in t if m.type == "note_on" and m.velocity) == 48
    assert any("Bass" in c.label and c.path.endswith("/notes") for c in entry.changes)


def test_accepting_twice_stale_bases_and_unknown_ids_are_refused(session: ProjectSession) -> None:
    a = session.propose(busier(session), request="busier bass", author="test")
    b = session.propose(busier(session, "chords", 0.5), request="busier chords", author="test")
    session.accept(a.id)
    with pytest.raises(VariationConflict, match=f"cannot accept variation {a.id}: it is already committed "
                                                "\\(revision 2\\)"):
        session.accept(a.id)
    with pytest.raises(VariationConflict, match="made against revision 1, but the project is now at revision 2"):
        session.accept(b.id)
    with pytest.raises(VariationConflict, match="'zzzz' is not a variation of this session"):
        session.accept("zzzz")
    with pytest.raises(VariationConflict, match="did you mean"):
        session.accept(a.id[:-1] + "x")
    session.undo()
    assert session.accept(b.id[:6]).revision == 3  # against revision 1 again: fine


def test_partial_acceptance(session: ProjectSession) -> None:
    v = session.propose(busier(session), request="busier bass", author="test")
    assert len(v.phrases) == 3
    entry = session.accept(v.id, [v.phrases[0].id])
    assert entry.summary == "accepted 1 of 3 phrases"
    bass = next(t for t in session.head.tracks if t.name == "Bass")
    assert bass.note_count == 24 + 8
    with pytest.raises(VariationConflict, match="is not one of its phrases"):
        other = session.propose(busier(session), request="again", author="test")
        session.accept(other.id, ["not-a-phrase"])


def test_discard_is_idempotent(session: ProjectSession) -> None:
    v = session.propose(busier(session), request="busier bass", author="test")
    assert session.discard(v.id).state == "discarded"
    assert session.discard(v.id).state == "discarded"
    with pytest.raises(VariationConflict, match="it was discarded"):
        session.accept(v.id)
    with pytest.raises(VariationConflict, match="no variation is waiting"):
        session.accept()


def test_ten_edits_undo_ten_redo_ten_restore_every_byte(session: ProjectSession) -> None:
    root = session.session_dir
    start = snapshot(root, skip=("revisions", "variations"))
    for i in range(10):
        if i % 2:
            session.accept(session.propose(busier(session, offset=0.25 * i + 0.5), request=f"busier {i}",
                                           author="test").id)
        else:
            session.commit(louder(session, ["Drums", "Bass", "Chords"][i % 3], 0.1 * i), author="test",
                           request=f"volume {i}")
    assert session.revision == 11
    edited = snapshot(root)
    assert session.undo(steps=10) == 1
    assert snapshot(root, skip=("revisions", "variations")) == start
    for _ in range(10):
        session.redo()
    assert snapshot(root) == edited
    rows = session.history()
    assert [r.entry.revision for r in rows] == list(range(1, 12)) and rows[-1].head
    with pytest.raises(InvalidInput, match="nothing to redo: revision 11"):
        session.redo()


def test_undo_marks_entries_and_a_new_edit_starts_a_new_line(session: ProjectSession) -> None:
    session.commit(louder(session, "Bass", 0.5), author="a", request="bass down")
    session.commit(louder(session, "Drums", 0.5), author="a", request="drums down")
    assert session.undo() == 2
    assert [(r.entry.revision, r.undone) for r in session.history()] == [(1, False), (2, False), (3, True)]
    session.commit(louder(session, "Chords", 0.5), author="a", request="chords down")
    assert session.revision == 4
    assert [(r.entry.revision, r.entry.parent, r.undone) for r in session.history()] == [
        (1, None, False), (2, 1, False), (3, 2, True), (4, 2, False)]
    assert session.undo() == 2
    assert session.redo() == 4  # redo follows the newest line
    with pytest.raises(InvalidInput, match="cannot undo 5 steps: only 2 can be undone from revision 4"):
        session.undo(5)
    session.undo(2)
    with pytest.raises(InvalidInput, match="nothing to undo: revision 1 is the first take"):
        session.undo()
    with pytest.raises(InvalidInput, match="at least 1"):
        session.undo(0)


def test_open_project_reads_what_another_process_wrote(session: ProjectSession) -> None:
    session.commit(louder(session, "Bass", 0.25), author="a", request="quieter bass")
    other = open_project(session.session_dir)
    assert other.revision == 2
    assert next(t for t in other.head.tracks if t.name == "Bass").volume == 0.25
    assert other.project(1) == session.project(1)


def test_a_composed_session_without_revisions_is_imported(tmp_path: Path) -> None:
    from bandstand.midi import write_midi

    root = tmp_path / "old-session"
    write_midi(small_song(), root / "midi" / "full-arrangement.mid")
    (root / "manifest.json").write_text(json.dumps({"prompt": "from before", "seed": 5}), encoding="utf-8")
    session = open_project(root)
    assert session.revision == 1
    (row,) = session.history()
    assert row.entry.kind == "import" and session.head.provenance.prompt == "from before"
    assert [t.name for t in session.head.tracks] == ["Drums", "Bass", "Chords"]
    assert json.loads((root / "manifest.json").read_text(encoding="utf-8"))["revision"] == 1


def test_bad_folders_are_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        open_project(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInput, match="is not a session"):
        open_project(tmp_path / "empty")


def test_create_twice_needs_overwrite(session: ProjectSession) -> None:
    with pytest.raises(InvalidInput, match="already a project \\(revision 1\\)"):
        create_from_song(session.session_dir, small_song(), Provenance())
    again = create_from_song(session.session_dir, small_song(), Provenance(), overwrite=True)
    assert again.revision == 1 and len(again.history()) == 1


def test_a_change_made_from_an_old_head_is_refused(session: ProjectSession) -> None:
    stale = louder(session, "Bass", 0.5)
    session.commit(louder(session, "Drums", 0.5), author="a", request="drums down")
    with pytest.raises(VariationConflict, match="made against revision 1, but the project is now at revision 2"):
        session.commit(stale, author="a", request="bass down")
    assert session.edit(lambda head: head, author="a", request="nothing") is None
    entry = session.edit(lambda head: louder(session, "Bass", 0.5), author="a", request="bass down")
    assert entry is not None and entry.revision == 3


def test_a_proposal_that_only_changes_the_recipe(session: ProjectSession) -> None:
    head = session.head
    recipe = {"frozen": ["drums"], "seed": 1}
    proposal = head.model_copy(update={"provenance": head.provenance.model_copy(update={"recipe": recipe})})
    v = session.propose(proposal, request="keep the drums", author="test")
    assert v.phrases == [] and v.counts == {"added": 0, "removed": 0, "modified": 0}
    assert [c.path for c in v.changes] == ["provenance"]
    assert v.changes[0].after == {"fields": ["recipe"], "recipe": ["frozen", "seed"]}
    entry = session.accept(v.id)
    assert session.head.provenance.recipe == recipe and entry.changes[0].path == "provenance"


def test_a_session_with_its_mixed_song_is_imported_with_the_mix(tmp_path: Path) -> None:
    from bandstand.compose.api import compose

    result = compose("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), render_pianoroll=False)
    from bandstand.compose.songjson import SONG_JSON, read_session_song

    mixed = read_session_song(result.session_dir)
    session = open_project(result.session_dir)
    assert session.history()[0].entry.request == "imported from state/song.json"
    assert to_song(session.head) == mixed  # the mix and all
    assert not (result.session_dir / SONG_JSON).exists()  # the revisions are the one truth now
    manifest = json.loads((result.session_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["audio"]["stale"] is False  # compose rendered the WAV from this very song


def test_a_session_composed_before_projects_is_edited_with_the_recipe_its_checkpoint_keeps(tmp_path: Path) -> None:
    from bandstand.compose.api import compose
    from bandstand.producer.requests.iteration import edit
    from bandstand.producer.requests.proposal import recipe_of

    result = compose("funk groove", seed=3, bars=16, out_dir=str(tmp_path), render_audio=False,
                     render_pianoroll=False)
    root = result.session_dir
    assert not (root / "revisions").exists()
    before = {p.name: p.read_bytes() for p in (root / "midi").glob("*.mid")}
    outcome = edit(root, "make the bass busier")  # imports the session, then regenerates the bass from its nodes
    session = open_project(root)
    assert session.history()[0].entry.request == "imported from state/song.json"
    recipe = recipe_of(session.head)
    assert recipe is not None and recipe.seed == 3 and recipe.prompt == "funk groove"
    assert outcome.affected == ("bass",) and outcome.variation is not None
    session.accept(outcome.variation.id)
    after = {p.name: p.read_bytes() for p in (root / "midi").glob("*.mid")}
    assert {name for name in before if after[name] != before[name]} == {"bass.mid", "full-arrangement.mid"}
