"""Branches as a person types them (real processes): branch, an edit accepted on the branch,
checkout main (the song's bytes back to main's), merge of disjoint changes (both present), a
clashing merge refused naming the parts, undo within a branch, history --graph — and every
mistake one line on stderr, exit 2, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bandstand.producer.sessions.projects import ProjectSession, open_project

from ..producer.conftest import snapshot
from .test_studio_cli import bandstand, busier, fails
from .test_studio_cli import session as session  # the fixture: a fresh project of the small song


def ok(*args: str) -> str:
    proc = bandstand(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def region(session_dir: Path, track: str, section: str) -> str:
    head = open_project(session_dir).head
    return next(r.id for t in head.tracks if t.name == track for r in t.regions if r.name == section)


def song_files(root: Path) -> dict[str, bytes]:
    return snapshot(root, skip=("revisions", "variations", "auditions"))


@pytest.mark.parametrize("command", ["branch", "checkout", "merge"])
def test_help_explains_with_examples(command: str) -> None:
    proc = bandstand(command, "--help")
    assert proc.returncode == 0 and "Examples:" in proc.stdout


def test_branch_edit_checkout_merge_and_the_graph(session: ProjectSession) -> None:
    root = session.session_dir
    main_song = song_files(root)
    assert ok("branch", str(root), "busier").strip() == "branch busier made at revision 1, and checked out"
    variation = busier(open_project(root))  # an AI-made change, accepted on the branch
    ok("accept", str(root), variation, "--no-audio")
    busier_song = song_files(root)
    assert busier_song["midi/bass.mid"] != main_song["midi/bass.mid"]
    assert ok("checkout", str(root), "main").strip() == "on branch main, at revision 1 (small)"
    assert song_files(root) == main_song  # the song's files are main's again, byte for byte
    ok("tool", str(root), "set_track_volume", "--args", '{"track": "Drums", "volume": 0.4}', "--no-audio")
    merged = json.loads(ok("merge", str(root), "busier", "--json"))
    assert (merged["revision"], merged["branch"], merged["merged"]) == (4, "main", 2)
    head = open_project(root).head
    volumes = {t.name: t.volume for t in head.tracks}
    assert volumes["Drums"] == 0.4
    assert {t.name: t.note_count for t in head.tracks}["Bass"] > 24  # the busier bass is here too
    graph = ok("history", str(root), "--graph").splitlines()
    assert [line.split("  r")[0].rstrip() for line in graph] == ["*", "|\\", "* |", "| *", "|/", "*"]
    assert "r4 (HEAD -> main) merge busier (cli)" in graph[0]
    assert "r2 (busier) make the bass busier" in graph[3]
    listed = json.loads(ok("branch", str(root), "--json"))
    assert listed["current"] == "main" and [b["name"] for b in listed["branches"]] == ["busier", "main"]


def test_undo_within_a_branch(session: ProjectSession) -> None:
    root = str(session.session_dir)
    ok("branch", root, "alt")
    ok("tool", root, "set_track_volume", "--args", '{"track": "Bass", "volume": 0.5}', "--no-audio")
    ok("tool", root, "set_track_volume", "--args", '{"track": "Bass", "volume": 0.6}', "--no-audio")
    ok("checkout", root, "main")
    ok("tool", root, "set_track_volume", "--args", '{"track": "Chords", "volume": 0.2}', "--no-audio")
    ok("checkout", root, "alt")
    assert ok("undo", root, "--no-audio").startswith("undid 1 change: now at revision 2")
    assert ok("redo", root, "--no-audio").startswith("redid: now at revision 3")  # alt's, not main's r4
    fails(bandstand("redo", root), "nothing to redo")
    assert json.loads(ok("checkout", root, "main", "--json")) == {"branch": "main", "revision": 4}


def test_a_clashing_merge_is_refused_naming_the_parts(session: ProjectSession) -> None:
    root = session.session_dir
    chorus = region(root, "Bass", "Chorus")
    ok("branch", str(root), "up")
    ok("tool", str(root), "transpose_notes", "--args", json.dumps({"region": chorus, "semitones": 2}), "--no-audio")
    ok("checkout", str(root), "main")
    ok("tool", str(root), "transpose_notes", "--args", json.dumps({"region": chorus, "semitones": -2}), "--no-audio")
    before = snapshot(root)
    fails(bandstand("merge", str(root), "up"), "both branches changed Bass in Chorus (bars 13–16)")
    assert snapshot(root) == before


@pytest.mark.parametrize(("args", "message"), [
    (["branch", "{root}", "a/b"], "has '/' or '..'"),
    (["branch", "{root}", "up..down"], "has '/' or '..'"),
    (["branch", "{root}", ""], "the branch name is empty"),
    (["checkout", "{root}", "nope"], "there is no branch 'nope'"),
    (["checkout", "{root}", "a/b"], "has '/' or '..'"),
    (["checkout", "{root}", "99"], "revision 99 does not exist"),
    (["merge", "{root}", "main"], "cannot merge branch 'main' into itself"),
    (["merge", "{root}", "nope"], "there is no branch 'nope'"),
    (["merge", "{root}", "../x"], "has '/' or '..'"),
])
def test_mistakes_are_one_line_exit_2_and_change_nothing(session: ProjectSession, args: list[str],
                                                         message: str) -> None:
    root = session.session_dir
    before = snapshot(root)
    fails(bandstand(*[a.format(root=root) for a in args]), message)
    assert snapshot(root) == before
