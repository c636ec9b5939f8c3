"""Issue 24, "Files stay where they belong", against real processes: an MCP export over
`/mcp` of a real `bandstand serve` and over stdio of a real `bandstand mcp` stays in its
project's export/ folder (it overwrote another project's MIDI files, and wrote into the home
folder); a project folder that is a symbolic link, or holds one, is never written through; a
GET never writes (a blind GET from a page on another port imported a folder)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.server.jam_process import Served, bandstand_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A, B = "session-20260101-aaaaaa", "session-20260101-bbbbbb"


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 16-bar song, composed once for the module, without audio: copy it before use."""
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("issue-24-song")
    result = compose_song("funk groove in E minor", seed=3, bars=16, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return result.session_dir


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links not followed) → its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def _two_projects(composed: Path, songs: Path) -> None:
    songs.mkdir(exist_ok=True)
    for pid in (A, B):
        shutil.copytree(composed, songs / pid)


def _not_imported(composed: Path, where: Path) -> Path:
    """The song as a session composed before sessions were projects: no revisions/ yet."""
    shutil.copytree(composed, where)
    shutil.rmtree(where / "revisions")
    return where


async def _exports_stay_in_their_project(client: Client, songs: Path, home: Path | None = None) -> None:
    b_before = _fingerprint(songs / B)
    for out, words in (("session-20260101-bbbbbb/midi", "names the project session-20260101-bbbbbb"),
                       ("../session-20260101-bbbbbb/midi", "climbs out with '..'"),
                       (str(songs / B / "midi"), "is outside the project"),
                       ("~", "is outside the project"),
                       ("~/stolen", "is outside the project")):
        answer = await client.call_tool("export", {"project": A, "format": "mid", "out": out})
        assert answer.is_error, (out, answer.structured_content)
        text = answer.content[0].text
        assert words in text and "export/ folder" in text and "\n" not in text, text
    assert _fingerprint(songs / B) == b_before  # the other project is untouched
    if home is not None:
        assert list(home.iterdir()) == []  # nothing in the home folder
    done = await client.call_tool("export", {"project": A, "format": "mid", "out": "mix-2"})
    assert not done.is_error, done.content[0].text
    files = [Path(f) for f in done.structured_content["files"]]
    assert files and {f.resolve().parent for f in files} == {(songs / A / "export" / "mix-2").resolve()}


# --------------------------------------------------------------------------- over /mcp


@pytest.fixture
def served(composed: Path, tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    songs = tmp_path / "songs"
    _two_projects(composed, songs)
    with bandstand_server("serve", "--members", "beat", "--out", str(songs)) as found:
        yield found, songs


@contextlib.asynccontextmanager
async def mcp_http(served: Served) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token}"}, timeout=120) as http, \
            Client(streamable_http_client(served.base + "mcp", http_client=http)) as client:
        yield client


async def test_an_export_over_http_mcp_stays_in_its_project(served: tuple[Served, Path]) -> None:
    server, songs = served
    async with mcp_http(server) as client:
        await _exports_stay_in_their_project(client, songs)


async def test_an_export_through_a_linked_folder_inside_a_project_is_refused(served: tuple[Served, Path],
                                                                           tmp_path: Path) -> None:
    server, songs = served
    outside = tmp_path / "outside"
    outside.mkdir()
    (songs / A / "export").symlink_to(outside, target_is_directory=True)
    async with mcp_http(server) as client:
        answer = await client.call_tool("export", {"project": A, "format": "mid"})
    assert answer.is_error and "is a symbolic link" in answer.content[0].text, answer.content[0].text
    assert list(outside.iterdir()) == []


# --------------------------------------------------------------------------- over stdio


async def test_an_export_over_stdio_stays_in_its_project(composed: Path, tmp_path: Path) -> None:
    songs, home = tmp_path / "songs", tmp_path / "home"
    _two_projects(composed, songs)
    home.mkdir()
    params = StdioServerParameters(command=sys.executable, args=["-m", "bandstand", "mcp", "--out", str(songs)],
                                   env={**os.environ, "HOME": str(home)})
    async with Client(params) as client:
        await _exports_stay_in_their_project(client, songs, home)


# --------------------------------------------------------------------------- GETs and links over HTTP


def _cookie(server: Served) -> str:
    """The page's cookie, as a browser gets it from the printed URL."""
    answer = httpx.get(server.url, follow_redirects=False)
    assert answer.status_code == 303
    return answer.headers["set-cookie"].split(";", 1)[0]


def test_a_blind_get_from_a_page_on_another_port_writes_nothing(composed: Path, tmp_path: Path) -> None:
    songs = tmp_path / "songs"
    songs.mkdir()
    folder = _not_imported(composed, songs / A)
    before = _fingerprint(folder)
    with bandstand_server("serve", "--members", "beat", "--out", str(songs)) as server:
        port = int(server.base.rsplit(":", 1)[1].strip("/"))
        # what <img src> on http://127.0.0.1:OTHER/ sends: the cookie (same site), no Origin
        blind = {"cookie": _cookie(server), "referer": f"http://127.0.0.1:{port + 1}/", "sec-fetch-site": "same-site"}
        api = server.base + f"api/v1/projects/{A}"
        for url in (api, api + "/history", api + "/variations", api + "/export?format=mid"):
            answer = httpx.get(url, headers=blind)
            assert answer.status_code in (200, 409), (url, answer.status_code, answer.text)
            if answer.status_code == 409:
                assert "open it first" in answer.json()["detail"]
        assert _fingerprint(folder) == before and not (folder / "revisions").exists()
        # opening it is a POST: refused from another port's page, done from the server's own
        foreign = {"cookie": blind["cookie"], "origin": f"http://127.0.0.1:{port + 1}"}
        assert httpx.post(api + "/open", headers=foreign).status_code == 403
        assert not (folder / "revisions").exists()
        own = {"cookie": blind["cookie"], "origin": server.base.rstrip("/")}
        opened = httpx.post(api + "/open", headers=own, timeout=120)  # the import: seconds on a busy machine
        assert opened.status_code == 200 and opened.json() == {"projectId": A, "revision": 1}, opened.text
        assert (folder / "revisions" / "HEAD.json").is_file()
        assert httpx.get(api, headers=blind).json()["revision"] == 1


def test_a_project_folder_that_is_a_link_is_never_written_through(composed: Path, tmp_path: Path) -> None:
    songs, elsewhere = tmp_path / "songs", tmp_path / "elsewhere"
    songs.mkdir()
    elsewhere.mkdir()
    real = _not_imported(composed, elsewhere / A)
    (songs / A).symlink_to(real, target_is_directory=True)
    before = _fingerprint(real)
    with bandstand_server("serve", "--members", "beat", "--out", str(songs)) as server:
        api = server.base + f"api/v1/projects/{A}"
        assert httpx.get(api, headers=server.headers).status_code == 409  # read only: nothing imported
        for path, body in (("/open", None), ("/tools", {"calls": [{"name": "set_track_volume",
                                                                   "args": {"track": "bass", "volume": 0.5}}]})):
            answer = httpx.post(api + path, headers=server.headers, json=body)
            assert answer.status_code == 422, (path, answer.text)
            detail = answer.json()["detail"]
            assert "is a symbolic link" in detail and str(songs / A) in detail and "\n" not in detail
    assert _fingerprint(real) == before and not (real / "revisions").exists()
