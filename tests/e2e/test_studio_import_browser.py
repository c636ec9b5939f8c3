"""The studio page imports a MIDI file dropped on the songs view (Debian's chromium through
Playwright, a real `bandstand serve`): the file (written with mido) is posted, the new song
opens with its parts in their roles; a file that is not MIDI is the server's one line in an
alert, and no song is made of it. Screenshots go to test-artifacts/studio-import/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browsers import launched
from tests.producer.midi_songs import four_part_song
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "studio-import"

DROP = """([name, bytes]) => {
  const data = new DataTransfer();
  data.items.add(new File([new Uint8Array(bytes)], name, {type: "audio/midi"}));
  const view = document.querySelector("#songs-view");
  view.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
  view.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    root = tmp_path_factory.mktemp("studio-import")
    with bandstand_server("serve", "--out", "songs", cwd=root) as server:
        yield server, root


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000) as running:
        yield running


def test_a_dropped_midi_file_opens_as_a_song(served: tuple[Served, Path], browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server, root = served
    data = four_part_song(tmp_path / "night drive.mid").read_bytes()
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.page_url("studio"))
    expect(page.locator("#import-drop")).to_be_visible()

    page.evaluate(DROP, ["broken.mid", list(b"MThd not really")])
    expect(page.locator("[role=alert]").last).to_contain_text("broken.mid is not a readable MIDI file")
    assert not any(p.name.startswith("session-") for p in (root / "songs").glob("*"))

    page.evaluate(DROP, ["night drive.mid", list(data)])
    page.wait_for_url("**#/song/session-*")
    expect(page.locator("#song-view")).to_be_visible()
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length === 4")
    roles = page.evaluate("window.studio.view.tracks.map((t) => t.role)")
    assert roles == ["drums", "bass", "chords", "lead"]
    page.screenshot(path=str(ARTIFACTS / "imported.png"))
    [made] = [p for p in (root / "songs").iterdir() if p.name.startswith("session-")]
    assert (made / "revisions").is_dir()
    assert errors == []
    page.close()
