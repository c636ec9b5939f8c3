"""Where an export for a caller other than the CLI user goes (`producer.sessions.export.export_folder`):
the project's own export/ folder or a sub-folder of it, nothing else; and reading a project for
a GET writes nothing (`Library.reader`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bandstand.errors import Conflict, InvalidInput, OutputNotWritable
from bandstand.producer.sessions.export import export_folder
from bandstand.producer.sessions.library import Library

PID = "session-20260101-aaaaaa"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "songs" / PID
    (folder / "midi").mkdir(parents=True)
    return folder


@pytest.mark.parametrize(("out", "expected"), [(None, "export"), ("", "export"), (".", "export"),
                                               ("mix-2", "export/mix-2"), ("a/b", "export/a/b")])
def test_a_sub_folder_of_the_projects_export_folder(project: Path, out: str | None, expected: str) -> None:
    assert export_folder(project, out) == project / expected


@pytest.mark.parametrize(("out", "words"), [
    ("/tmp", "is outside the project"), ("~", "is outside the project"), ("~/x", "is outside the project"),
    ("../session-20260101-bbbbbb", "climbs out with '..'"), ("a/../../b", "climbs out with '..'"),
    ("session-20260101-bbbbbb/midi", "names the project session-20260101-bbbbbb"),
    ("x" * 201, "at most 200 characters"), ("a\0b", "at most 200 characters"),
])
def test_anything_else_is_one_line_naming_out(project: Path, out: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        export_folder(project, out)
    message = str(caught.value)
    assert words in message and f"exports of {PID} go to its export/ folder" in message and "\n" not in message
    assert caught.value.context == {"field": "out"}


def test_a_link_inside_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (project / "export").symlink_to(tmp_path / "outside")
    with pytest.raises(OutputNotWritable, match=r"export is a symbolic link .* inside the project folder"):
        export_folder(project, "mix")


def test_reading_a_session_that_is_not_a_project_yet_writes_nothing(tmp_path: Path) -> None:
    from bandstand.producer.composing.compose import compose_song

    made = compose_song("funk groove", seed=3, bars=8, out_dir=str(tmp_path / "made"), render_audio=False).result
    songs = tmp_path / "songs"
    shutil.copytree(made.session_dir, songs / PID)
    shutil.rmtree(songs / PID / "revisions")  # a session composed before sessions were projects
    library = Library(songs)
    before = sorted(p.relative_to(songs) for p in songs.rglob("*"))
    for read in (library.project, library.history, library.variations):
        with pytest.raises(Conflict, match=f"open it first \\(POST /api/v1/projects/{PID}/open"):
            read(PID)
    assert sorted(p.relative_to(songs) for p in songs.rglob("*")) == before
    assert library.open(PID) == {"projectId": PID, "revision": 1}
    assert library.project(PID)["revision"] == 1 and (songs / PID / "revisions" / "HEAD.json").is_file()
