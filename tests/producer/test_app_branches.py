"""`App`'s branch and team use cases (#29: every client calls these, none imports
`producer.sessions.branches` or `producer.teams.team_compose`): a branch made, changed, checked
out and merged, the graph and the list, by id and by folder, on a real composed song; a team's
song with its run log; the team-only choices refused without a team. Real files, no mocks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import Conflict, InvalidInput, NotFound
from bandstand.producer import App
from bandstand.producer.app import (
    BranchRequest,
    CheckoutRequest,
    MergeRequest,
    TeamRequest,
    WordsRequest,
)
from bandstand.producer.execution.running import Cancelled, Control
from bandstand.producer.sessions.branches import Moved, graph_json
from bandstand.producer.sessions.library import Library


def test_a_branch_made_changed_checked_out_and_merged_through_the_facade(
        composed_copy: Callable[..., Path]) -> None:
    folder = composed_copy("funk groove in E minor", 3, 8)
    app, song = App(folder.parent), folder.name
    listed = app.branches(song, read_only=True)  # as it is on disk (the API's GET)
    assert listed["current"] == "main" and listed["revision"] == 1 and listed["projectId"] == song
    assert app.branches(song) == listed

    assert app.branch(BranchRequest(song, "darker")) == Moved("darker", 1, created=True)
    muted = app.direct(WordsRequest(song, "mute the drums"))
    assert muted.kind == "revision" and muted.revision == 2
    assert app.checkout(CheckoutRequest(song, "main")) == Moved("main", 1)
    assert app.session(song).revision == 1  # main's song: the drums play

    entry = app.merge(MergeRequest(song, "darker", author="test"))
    assert (entry.revision, entry.branch, entry.merged, entry.kind, entry.author) == (3, "main", 2, "merge", "test")
    with pytest.raises(InvalidInput, match="into itself"):
        app.merge(MergeRequest(song, "main"))
    with pytest.raises(NotFound, match="no branch 'lighter'"):
        app.checkout(CheckoutRequest(song, "lighter"))
    with pytest.raises(Conflict, match="already exists"):
        app.branch(BranchRequest(song, "darker"))

    lines = app.graph(song)
    assert [g.revision for g in lines if g.revision is not None] == [3, 2, 1]
    assert lines[0].labels == ("HEAD -> main",) and lines[0].head
    data = app.branches(song, graph=True)
    assert data["graph"] == [g.to_json() for g in lines] == [graph_json(g) for g in lines]
    assert [(b["name"], b["head"], b["current"]) for b in data["branches"]] == [("darker", 2, False),
                                                                                 ("main", 3, True)]

    # the folder itself (a path object, as the CLI's SESSION_DIR): the same project, wherever the App's projects are
    elsewhere = App(folder.parent / "elsewhere")
    assert elsewhere.checkout(CheckoutRequest(folder, "r2")) == Moved("darker", 2)
    assert elsewhere.branches(folder)["current"] == "darker" == app.branches(song)["current"]
    assert [g.to_json() for g in elsewhere.graph(folder)] == [g.to_json() for g in app.graph(song)]

    # over a library a client holds (MCP's): its projects, and its folders named by path
    over = App.over(Library(folder.parent / "elsewhere", folders=True))
    assert over.checkout(CheckoutRequest(str(folder), "main")) == Moved("main", 3)
    assert over.branches(folder.name)["current"] == "main"  # known by its id once named by its path


def test_a_team_song_through_the_facade_keeps_its_run_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    app = App(tmp_path / "songs")
    heard: list[str] = []
    run = app.team(TeamRequest("funk groove in E minor", seed=7, bars=16, audio=False),
                   on_event=lambda event: heard.append(str(event["type"])))
    outcome = run.outcome
    assert not outcome.accepted and outcome.variation_id and outcome.session_dir.parent == tmp_path / "songs"
    assert run.log.parent == tmp_path / "runs" and run.log.name.startswith("compose-team-")
    assert len(run.log.read_text(encoding="utf-8").splitlines()) == len(heard) and "agentComplete" in heard
    assert [v.id for v in app.session(outcome.session_dir.name).variations()] == [outcome.variation_id]


def test_a_cancelled_team_proposes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    control = Control()
    control.cancel.set()
    with pytest.raises(Cancelled, match="composing with a team"):
        App(tmp_path / "songs").team(TeamRequest("funk groove", seed=1, bars=8, audio=False), control=control)
    assert not (tmp_path / "songs").exists() or not any((tmp_path / "songs").iterdir())


def test_what_only_a_team_takes_is_refused_without_one() -> None:
    App.check_team_choices(True, {"accept": True})
    App.check_team_choices(False, {"accept": False, "config": False})
    with pytest.raises(InvalidInput) as refused:
        App.check_team_choices(False, {"accept": True, "config": False}, spell=lambda name: f"--{name}")
    assert str(refused.value) == "--accept and --config go with --team (a team's song is a variation to accept)"
