"""Projects in an output folder, by id: list, read at a revision, history, undo and
redo (a conflict when there is nothing to do), variations by id alone with the
events of their stream, commit (all or some phrases) and discard; unknown ids are
`NotFound`, stale variations `Conflict`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import Conflict, NotFound
from bandstand.producer import App
from bandstand.producer.sessions.library import Library
from bandstand.producer.sessions.projects import open_project


@pytest.fixture
def library(composed_copy: Callable[..., Path]) -> tuple[Library, str]:
    session = composed_copy("funk groove", 3, 16)
    return Library(session.parent), session.name


def test_projects_are_listed_and_read_at_any_revision(library: tuple[Library, str]) -> None:
    lib, pid = library
    [summary] = App(lib.root).sessions()
    assert summary.project_id == pid and summary.revision == 1 and "Bass" in summary.tracks
    lib.session(pid).apply_tools([{"name": "set_tempo", "args": {"tempo": 96}}], author="test")
    now, before = lib.project(pid), lib.project(pid, 1)
    assert (now["revision"], now["head"], now["project"]["tempo"]) == (2, 2, 96)
    assert before["project"]["tempo"] != 96 and before["isHead"] is False
    light = lib.project(pid, notes=False)["project"]["tracks"][0]["regions"][0]
    assert "notes" not in light and light["noteCount"] > 0
    with pytest.raises(NotFound, match="no revision 3"):
        lib.project(pid, 3)
    for bad in ("nope", "../etc", "session-20260101-zzzzzz"):
        with pytest.raises(NotFound):
            lib.project(bad)


def test_undo_redo_and_history(library: tuple[Library, str]) -> None:
    lib, pid = library
    with pytest.raises(Conflict, match="nothing to undo"):
        lib.undo(pid)
    lib.session(pid).apply_tools([{"name": "mute_track", "args": {"track": "drums"}}], author="test")
    assert lib.undo(pid) == {"projectId": pid, "revision": 1}
    assert [e["undone"] for e in lib.history(pid)["entries"]] == [False, True]
    assert lib.redo(pid)["revision"] == 2
    with pytest.raises(Conflict, match="nothing to redo"):
        lib.redo(pid)


def test_variations_by_id_their_events_commit_and_discard(library: tuple[Library, str]) -> None:
    lib, pid = library
    from bandstand.producer.requests.iteration import edit

    outcome = edit(lib.path(pid), "make the bass busier")
    vid = outcome.variation.id
    shown = lib.variation(vid[:8])
    events = shown["events"]
    assert events[0]["type"] == "meta" and events[-1]["type"] == "done"
    assert events[-1] == {"type": "done", "seq": len(events), "protocolVersion": "1.0", "variationId": vid,
                          "status": "ready", "phraseCount": len(events) - 2}
    first = events[1]
    assert first["noteChanges"] and first["endBeat"] > first["startBeat"] and "Bass" in first["label"]
    keep = [events[1]["phraseId"]]
    assert lib.commit(vid, keep)["revision"] == 2
    with pytest.raises(Conflict, match="already committed"):
        lib.commit(vid)
    second = edit(lib.path(pid), "simpler drums").variation.id
    lib.session(pid).apply_tools([{"name": "set_tempo", "args": {"tempo": 90}}], author="test")
    with pytest.raises(Conflict, match="revision"):
        lib.commit(second)
    assert lib.discard(second)["state"] == "discarded" == lib.discard(second)["state"]
    assert len(lib.variations(pid)["variations"]) == 2
    with pytest.raises(NotFound):
        lib.variation("0000-not-there")
    assert open_project(lib.path(pid)).revision == 3


def test_an_unknown_id_comes_with_the_closest_ones(library: tuple[Library, str], tmp_path: Path) -> None:
    lib, pid = library
    typo = pid[:-1] + ("0" if pid[-1] != "0" else "1")
    with pytest.raises(NotFound, match=f"^no project '{typo}' in .*; did you mean '{pid}'\\?$"):
        lib.path(typo)
    with pytest.raises(NotFound, match=f"look like session-20260101-abc123; did you mean '{pid}'\\?$"):
        lib.path(pid[:-1])
    with pytest.raises(NotFound, match=f"; the newest: {pid}$"):
        lib.path("my song")
    with pytest.raises(NotFound, match=r"; there are no projects here yet$"):
        Library(tmp_path / "empty").path("session-20260101-abcdef")


def test_a_library_that_takes_folders_knows_them_by_id_after(library: tuple[Library, str], tmp_path: Path) -> None:
    import shutil

    lib, pid = library
    elsewhere = tmp_path / "elsewhere" / "my-song"
    shutil.copytree(lib.path(pid), elsewhere)
    with pytest.raises(NotFound):
        lib.path(str(elsewhere))  # a server's library keeps to its folder
    takes = Library(lib.root, folders=True)
    assert takes.path(str(elsewhere)) == elsewhere.resolve() == takes.path("my-song")
    assert takes.session("my-song") is takes.session(str(elsewhere))  # opened once
    with pytest.raises(NotFound, match="did you mean 'my-song'"):
        takes.path("my-songs")
