"""The studio page's player follows the song's transport (Debian's chromium through Playwright,
a real `bandstand serve`): `POST /api/v1/projects/{id}/transport` plays it (the playhead moves
with what is heard), moves the playhead, loops a section (the player moves into it and stays
there) and stops it (the playhead back where play started); `bandstand transport` in another
process does the same, and a mistake is a 422 naming the field. Screenshots go to
test-artifacts/studio-transport/."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance
from tests.e2e.browsers import launched
from tests.server.jam_process import Served, bandstand_server
from tests.studio.songs import small_song

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "studio-transport"
SONG = "session-20260101-a1b2c3"
POSITION = "window.studio.state.player ? window.studio.state.player.position() : window.studio.state.cursor"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    root = tmp_path_factory.mktemp("studio-transport")
    create_from_song(root / "songs" / SONG, small_song(), Provenance(prompt="small", seeds={"song": 1}),
                     ids=SeededIds(3))
    with bandstand_server("serve", "--out", "songs", cwd=root) as server:
        yield server, root


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000) as running:
        yield running


def command(server: Served, **body: Any) -> dict[str, Any]:
    answer = httpx.post(f"{server.base}api/v1/projects/{SONG}/transport", json=body, headers=server.headers,
                        timeout=60)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_the_page_follows_the_songs_transport(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, root = served
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.page_url("studio"))
    page.evaluate(f"location.hash = '#/song/{SONG}'")
    expect(page.locator("#song-view")).to_be_visible()
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length === 3")
    page.wait_for_function("window.studio.transport.remoteSeq === 0")  # the stream said where the song stands
    assert page.evaluate("window.studio.state.player") is None

    assert command(server, action="play")["playing"] is True
    page.wait_for_function("window.studio.state.player !== null", timeout=30_000)
    page.wait_for_function(f"({POSITION}) > 0.5", timeout=30_000)  # the playhead moves with what is heard
    assert page.locator("#play").text_content() == "⏸"

    command(server, action="set_playhead", bar=9)  # beat 32
    page.wait_for_function(f"({POSITION}) >= 32 && ({POSITION}) < 40", timeout=30_000)

    looped = command(server, action="loop", section="chorus")
    assert looped["loop"] == {"section": "Chorus", "start_bar": 13, "end_bar": 17, "start": 48.0, "end": 64.0}
    page.wait_for_function("window.studio.state.loop && window.studio.state.loop.start === 48 "
                           "&& window.studio.state.loop.end === 64", timeout=30_000)
    page.wait_for_function(f"({POSITION}) >= 48", timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "looping.png"))

    stopped = command(server, action="stop")
    assert stopped["playing"] is False and stopped["position"] == 48.0
    page.wait_for_function("window.studio.state.player === null", timeout=30_000)
    assert page.evaluate("window.studio.state.cursor") == 48
    assert page.locator("#play").text_content() == "▶"

    # the command line beside the server: the page follows it too
    cli = subprocess.run([sys.executable, "-m", "bandstand", "transport", str(root / "songs" / SONG), "play",
                          "--bar", "13"], capture_output=True, text=True, timeout=120, check=False)
    assert cli.returncode == 0 and "playing at bar 13" in cli.stdout, cli.stderr
    page.wait_for_function("window.studio.state.player !== null", timeout=30_000)
    command(server, action="loop")  # no section: the loop ends
    page.wait_for_function("window.studio.state.loop === null", timeout=30_000)
    command(server, action="stop")
    page.wait_for_function("window.studio.state.player === null", timeout=30_000)
    assert errors == []
    page.close()


def test_transport_mistakes_are_422_naming_the_field(served: tuple[Served, Path]) -> None:
    server, _ = served
    url = f"{server.base}api/v1/projects/{SONG}/transport"
    for body, field, said in [({"action": "loop", "section": "outro"}, "section", "no section 'outro'"),
                              ({"action": "play", "bar": 99}, "bar", "past the song's end"),
                              ({"action": "rewind"}, "action", ""),
                              ({"action": "play", "bar": 0}, "bar", "")]:
        answer = httpx.post(url, json=body, headers=server.headers, timeout=60)
        assert answer.status_code == 422, (body, answer.text)
        assert field in answer.text and said in answer.text, answer.text
    assert httpx.post(url, json={"action": "play"}, timeout=60).status_code == 401  # no token
    assert httpx.get(url + "/stream", timeout=60).status_code == 401
    gone = httpx.post(f"{server.base}api/v1/projects/session-20260101-ffffff/transport", json={"action": "play"},
                      headers=server.headers, timeout=60)
    assert gone.status_code == 404
