"""`bandstand studio [SESSION_DIR]`: the studio page on a song — the printed address opens
that song (its token once, then the page's cookie); a folder that is not a song is one line."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import httpx

from bandstand.cli import run
from tests.producer.conftest import composed  # noqa: F401
from tests.server.jam_process import bandstand_server


def test_a_folder_that_is_not_a_song_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert run(["studio", str(tmp_path), "--no-browser", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a song's session folder" in err[0]


def test_it_serves_the_song_and_prints_its_address(composed: Callable[..., Path], tmp_path: Path) -> None:  # noqa: F811
    source = composed("funk groove", 3, 16)
    song = tmp_path / "songs" / source.name
    shutil.copytree(source, song)
    with bandstand_server("studio", str(song), "--no-browser", cwd=tmp_path) as served:
        base, _, rest = served.printed_url.partition("studio?token=")
        ticket, _, fragment = rest.partition("#")
        assert fragment == f"/song/{source.name}" and ticket and ticket != served.token
        with httpx.Client(base_url=base, timeout=30) as browser:
            opened = browser.get(f"studio?token={ticket}")
            assert opened.status_code == 303 and opened.headers["location"] == "/studio"
            assert "bandstand — studio" in browser.get("studio").text  # the cookie from now on
            listed = browser.get("api/v1/projects").json()["projects"]
            assert [p["projectId"] for p in listed] == [source.name]  # the song's folder is the library
