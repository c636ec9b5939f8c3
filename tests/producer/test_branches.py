"""Branches of a project's history (`producer.sessions.branches`): made at HEAD, switched, merged
when the branches changed different parts or sections (refused, naming them, otherwise),
undo and redo within a branch, the graph, and a project from before branches read as the
single branch main — its HEAD.json byte for byte what it was."""

from __future__ import annotations

import json

import pytest

from bandstand.errors import Conflict, InvalidInput, NotFound
from bandstand.producer.sessions import branches
from bandstand.producer.sessions.projects import ProjectSession, open_project
from bandstand.studio import Project

from .conftest import snapshot


def region(project: Project, track: str, section: str) -> str:
    t = next(t for t in project.tracks if t.name == track)
    return next(r.id for r in t.regions if r.name == section)


def transpose(session: ProjectSession, track: str, section: str, semitones: int) -> int:
    rid = region(session.head, track, section)
    outcome = session.apply_tools([{"name": "transpose_notes", "args": {"region": rid, "semitones": semitones}}],
                                  author="test", request=f"{track} {section} {semitones:+d}")
    assert outcome.entry is not None
    return outcome.revision


def pitches(project: Project, track: str, section: str) -> list[int]:
    t = next(t for t in project.tracks if t.name == track)
    return [n.pitch for n in next(r for r in t.regions if r.name == section).notes]


def test_a_project_from_before_branches_is_main_and_its_head_file_does_not_change(session: ProjectSession) -> None:
    head_file = session.store.dir / "HEAD.json"
    assert json.loads(head_file.read_text()) == {"format": 1, "head": 1, "latest": 1}
    transpose(session, "Bass", "Chorus", 2)
    assert json.loads(head_file.read_text()) == {"format": 1, "head": 2, "latest": 2}
    assert "branch" not in json.loads((session.store.dir / "000002.json").read_text())
    assert [(b.name, b.head, b.current) for b in branches.list_branches(session)] == [("main", 2, True)]
    session.undo()  # an undone line is still main alone, its tip remembered for redo
    assert branches.list_branches(session)[0].tip == 2
    assert session.redo() == 2


def test_checkout_shows_each_branch_and_edits_land_on_the_current_one(session: ProjectSession) -> None:
    root = session.session_dir
    main_files = snapshot(root, skip=("revisions", "variations"))
    before = pitches(session.head, "Bass", "Chorus")
    assert branches.create_branch(session, "up") == branches.Moved("up", 1, created=True)
    assert snapshot(root, skip=("revisions", "variations")) == main_files  # a new branch changes no song
    transpose(session, "Bass", "Chorus", 3)
    alt_files = snapshot(root, skip=("revisions", "variations"))
    assert alt_files["midi/bass.mid"] != main_files["midi/bass.mid"]
    assert branches.checkout(session, "main") == branches.Moved("main", 1)
    assert snapshot(root, skip=("revisions", "variations")) == main_files
    assert pitches(session.head, "Bass", "Chorus") == before
    assert branches.checkout(session, "up") == branches.Moved("up", 2)
    assert snapshot(root, skip=("revisions", "variations")) == alt_files
    assert open_project(root).store.pointer().branch == "up"  # recorded on disk, for every later process
    assert session.store.entry(2).branch == "up"


def test_undo_and_redo_stay_within_a_branch(session: ProjectSession) -> None:
    transpose(session, "Bass", "Verse", 1)  # r2 on main
    branches.create_branch(session, "alt")
    transpose(session, "Bass", "Chorus", 5)  # r3 on alt
    transpose(session, "Chords", "Chorus", 5)  # r4 on alt
    branches.checkout(session, "main")
    transpose(session, "Drums", "Intro", 1)  # r5 on main
    branches.checkout(session, "alt")
    assert session.undo(2) == 2
    assert session.redo() == 3 and session.redo() == 4  # alt's own line, not main's r5
    with pytest.raises(InvalidInput, match="nothing to redo"):
        session.redo()
    branches.checkout(session, "main")
    assert session.revision == 5
    assert session.undo() == 2 and session.redo() == 5
    assert {b.name: b.head for b in branches.list_branches(session)} == {"alt": 4, "main": 5}
    rows = {r.entry.revision: r.undone for r in session.history()}
    assert not any(rows.values())  # each revision is on a branch's line


def test_checkout_a_revision_goes_to_the_branch_it_is_on(session: ProjectSession) -> None:
    transpose(session, "Bass", "Verse", 1)  # r2 main
    branches.create_branch(session, "alt")
    transpose(session, "Bass", "Chorus", 5)  # r3 alt
    branches.checkout(session, "main")
    assert branches.checkout(session, "r3") == branches.Moved("alt", 3)
    assert branches.checkout(session, "1") == branches.Moved("alt", 1)  # on alt's line too: stays on alt
    assert session.redo() == 2 and session.redo() == 3
    with pytest.raises(NotFound, match="revision 9 does not exist"):
        branches.checkout(session, "9")


def test_merge_of_different_sections_of_one_part_has_both(session: ProjectSession) -> None:
    verse, chorus = pitches(session.head, "Bass", "Verse"), pitches(session.head, "Bass", "Chorus")
    branches.create_branch(session, "chorus-up")
    transpose(session, "Bass", "Chorus", 2)
    session.apply_tools([{"name": "set_track_volume", "args": {"track": "Drums", "volume": 0.5}}], author="test")
    branches.checkout(session, "main")
    transpose(session, "Bass", "Verse", -2)
    entry = branches.merge(session, "chorus-up")
    assert (entry.revision, entry.parent, entry.merged, entry.branch, entry.kind) == (5, 4, 3, "main", "merge")
    head = session.head
    assert pitches(head, "Bass", "Verse") == [p - 2 for p in verse]
    assert pitches(head, "Bass", "Chorus") == [p + 2 for p in chorus]
    assert {t.name: t.volume for t in head.tracks}["Drums"] == 0.5
    assert session.undo() == 4  # a merge is one change: undo takes it back along main
    assert session.redo() == 5
    with pytest.raises(Conflict, match=r"nothing to merge: main .* already has everything of chorus-up"):
        branches.merge(session, "chorus-up")


def test_a_merge_of_the_same_section_is_refused_naming_it(session: ProjectSession) -> None:
    branches.create_branch(session, "alt")
    transpose(session, "Bass", "Chorus", 2)
    session.apply_tools([{"name": "set_track_volume", "args": {"track": "Drums", "volume": 0.5}}], author="test")
    branches.checkout(session, "main")
    transpose(session, "Bass", "Chorus", -1)
    session.apply_tools([{"name": "set_track_volume", "args": {"track": "Drums", "volume": 0.7}}], author="test")
    before = snapshot(session.session_dir)
    with pytest.raises(Conflict) as refused:
        branches.merge(session, "alt")
    message = str(refused.value)
    assert "\n" not in message
    assert "Bass in Chorus (bars 13–16)" in message and "Drums volume" in message and "Verse" not in message
    assert snapshot(session.session_dir) == before


@pytest.mark.parametrize(("name", "error", "words"), [
    ("", InvalidInput, "empty"), ("a/b", InvalidInput, "'/' or '..'"), ("a..b", InvalidInput, "'/' or '..'"),
    ("x" * 41, InvalidInput, "longer than 40"), ("12", InvalidInput, "revision number"),
    ("bad name", InvalidInput, "cannot be used")])
def test_a_name_that_cannot_be_a_branch_is_one_line_and_changes_nothing(session: ProjectSession, name: str,
                                                                        error: type[Exception], words: str) -> None:
    before = snapshot(session.session_dir)
    for attempt in (lambda: branches.create_branch(session, name), lambda: branches.merge(session, name)):
        with pytest.raises(error, match=words):
            attempt()
    assert snapshot(session.session_dir) == before


def test_merging_into_itself_an_unknown_branch_and_a_second_branch_of_one_name(session: ProjectSession) -> None:
    branches.create_branch(session, "alt")
    before = snapshot(session.session_dir)
    with pytest.raises(InvalidInput, match="cannot merge branch 'alt' into itself"):
        branches.merge(session, "alt")
    with pytest.raises(NotFound, match=r"no branch 'nope'.*the branches are alt, main"):
        branches.merge(session, "nope")
    with pytest.raises(NotFound, match="no branch 'nope'"):
        branches.checkout(session, "nope")
    with pytest.raises(Conflict, match="branch 'main' already exists"):
        branches.create_branch(session, "main")
    assert snapshot(session.session_dir) == before


def test_the_graph_draws_branches_and_merges_newest_first(session: ProjectSession) -> None:
    branches.create_branch(session, "alt")
    transpose(session, "Bass", "Chorus", 2)  # r2 alt
    branches.checkout(session, "main")
    transpose(session, "Bass", "Verse", 1)  # r3 main
    branches.merge(session, "alt")  # r4
    lines = branches.graph(session)
    assert [(g.graph, g.revision, g.labels) for g in lines] == [
        ("*", 4, ("HEAD -> main",)), ("|\\", None, ()), ("* |", 3, ()), ("| *", 2, ("alt",)), ("|/", None, ()),
        ("*", 1, ())]
    assert lines[3].branch == "alt" and lines[3].words == "Bass Chorus +2 (test): Bass region 'Chorus' notes changed"


def test_every_song_wide_setting_merges_and_clashes_by_name(session: ProjectSession) -> None:
    from bandstand.studio.merge import merge_projects

    base = session.head
    theirs = base.model_copy(update={"tempo": 90.0, "markers": ()})
    ours = base.model_copy(update={"key": "F minor"})
    merged = merge_projects(base, ours, theirs).project
    assert merged is not None and (merged.tempo, merged.key) == (90.0, "F minor")
    clash = merge_projects(base, base.model_copy(update={"tempo": base.tempo + 1, "sections": base.sections[:2]}),
                           base.model_copy(update={"tempo": base.tempo - 1, "sections": base.sections[1:]}))
    assert clash.project is None and clash.conflicts == ("the tempo", "the sections")
