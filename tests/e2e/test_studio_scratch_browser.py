"""The studio page's Scratch tab plays any Strudel code (Debian's chromium through Playwright, a
real `bandstand serve`): the code — a program with `setcpm`, `$:` blocks and a drum-machine bank —
is run by the server as Strudel runs it and looped on the page's sound, in the song's key; the
song's player and the code's never play at once; a mistake is the server's one line under the
box, and nothing plays. `POST /api/v1/patterns/play` answers the same to any client."""

from __future__ import annotations

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
ARTIFACTS = ROOT / "test-artifacts" / "studio-scratch"
SONG = "session-20260101-a1b2c3"
CODE = 'setcpm(30)\n$: s("bd*2, ~ cp, hh*4").bank("RolandTR808")\n$: note("<e2 a2>").s("gm_acoustic_bass")'


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("studio-scratch")
    create_from_song(root / "songs" / SONG, small_song(), Provenance(prompt="small", seeds={"song": 1}),
                     ids=SeededIds(3))
    with bandstand_server("serve", "--out", "songs", cwd=root) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000) as running:
        yield running


def test_the_api_answers_what_code_plays_as_a_song(served: Served) -> None:
    answer = httpx.post(f"{served.base}api/v1/patterns/play", json={"code": CODE, "cycles": 2, "key": "E minor"},
                        headers=served.headers, timeout=60)
    assert answer.status_code == 200, answer.text
    played, song = answer.json()["played"], answer.json()["song"]
    assert played["bpm"] == 120 and sorted(played["sounds"]) == ["bd", "cp", "gm_acoustic_bass", "hh"]
    assert song["tempo"] == 120 and song["length"] == 8
    kits = {(t["drum"], t["program"]) for t in song["tracks"]}
    assert kits == {(True, 25), (False, 32)}  # the TR-808 kit, the acoustic bass
    wrong = httpx.post(f"{served.base}api/v1/patterns/play", json={"code": 's("bd").fast('},
                       headers=served.headers, timeout=60)
    assert wrong.status_code == 422 and "expected ')'" in wrong.json()["detail"]
    anonymous = httpx.post(f"{served.base}api/v1/patterns/play", json={"code": 's("bd")'}, timeout=60)
    assert anonymous.status_code == 401


def test_the_scratch_tab_loops_code_and_takes_turns_with_the_song(served: Served, browser: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served.page_url("studio"))
    page.evaluate(f"location.hash = '#/song/{SONG}'")
    expect(page.locator("#song-view")).to_be_visible()
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length === 3")
    page.click("[role=tab][data-tab=scratch]")
    expect(page.locator("#scratch-code")).to_be_visible()

    page.fill("#scratch-code", 's("bd").fast(')
    page.click("#scratch-play")
    expect(page.locator("#scratch-status")).to_contain_text("expected ')'")
    assert page.evaluate("window.studio.scratch.playing") is False

    page.fill("#scratch-code", CODE)
    page.click("#scratch-play")
    expect(page.locator("#scratch-status")).to_contain_text("playing: 120 BPM")
    page.wait_for_function("window.studio.scratch.playing && window.studio.audio.scheduled >= 12", timeout=30_000)
    page.wait_for_function("window.studio.scratch.player.position() > 9", timeout=30_000)  # past its 8 beats: looped
    page.screenshot(path=str(ARTIFACTS / "1-scratch-playing.png"))

    page.click("#play")  # the song: the code stops
    page.wait_for_function("window.studio.state.player !== null && !window.studio.scratch.playing", timeout=30_000)
    page.click("#scratch-play")  # the code again: the song stops
    page.wait_for_function("window.studio.scratch.playing && window.studio.state.player === null", timeout=30_000)
    page.click("#scratch-stop")
    expect(page.locator("#scratch-status")).to_have_text("stopped")
    assert page.evaluate("window.studio.scratch.playing") is False
    assert errors == []
