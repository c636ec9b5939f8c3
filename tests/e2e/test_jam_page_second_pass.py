"""Issue #25, the jam page's second pass, in a real browser (Debian's chromium through Playwright)
against a real `bandstand jam`: while the instruments load after ▶ Start the sound button says so
(it said "Click to enable sound" for seconds), and "Keep this" asks for the song's name, the jam's
first line unless the boss types another. Screenshots under test-artifacts/jam-pass2/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.browsers import launched
from tests.server.jam_process import jam_server

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "jam-pass2"

# Every text the sound button shows from now on.
WATCH_SOUND = """() => {
  const button = document.getElementById("sound"), seen = window.soundTexts = [button.textContent];
  new MutationObserver(() => seen.push(button.textContent)).observe(button, {childList: true, characterData: true, subtree: true});
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS) as running:
        yield running


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("jam-pass2")
    with jam_server("--members", "beat,groove", "--no-autopilot", cwd=root) as running:
        yield running


def test_the_sound_button_says_loading_until_the_instruments_are_ready(browser: Any, served: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def slow_status(route: Any) -> None:  # a SoundFont that takes seconds to arrive, as on a slow disk
        time.sleep(1.0)
        route.continue_()

    page.goto(served.url)
    expect(page.locator("#conn")).to_have_text("connected")
    page.route("**/api/v1/audio*", slow_status)
    page.evaluate(WATCH_SOUND)
    page.click("#start")
    expect(page.locator("#round")).to_have_text("1")  # the jam runs (its state arrived) while the sound loads
    page.wait_for_function("window.bandstand.audio.running", timeout=60_000)
    texts = page.evaluate("window.soundTexts")
    assert "… loading sound" in texts
    after_click = texts[texts.index("… loading sound"):]
    assert "🔇 Click to enable sound" not in after_click, texts
    expect(page.locator("#sound")).to_have_class("sound on")
    page.click("#stop")
    assert errors == []
    page.close()


def test_keep_this_asks_for_a_name_the_jams_first_line_by_default(browser: Any, served: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served.url)
    expect(page.locator("#conn")).to_have_text("connected")
    if page.locator("#start").is_enabled():  # (still running when the test before stopped short)
        page.click("#start")
    page.fill("#directive", "slow it down and make it moody")
    page.press("#directive", "Enter")
    page.wait_for_function("window.bandstand.state.jam && window.bandstand.state.jam.round >= 2", timeout=60_000)
    first = page.evaluate("window.bandstand.messages.find((m) => m.type === 'boss_directive_echo').text")
    page.click("#keep")
    expect(page.locator("#keep-name")).to_be_visible()
    expect(page.locator("#keep-name")).to_have_value(first)
    page.screenshot(path=str(ARTIFACTS / "keep-name.png"))
    page.press("#keep-name", "Enter")
    page.wait_for_function("window.bandstand.messages.some((m) => m.type === 'jam_kept')", timeout=120_000)
    project = page.evaluate("window.bandstand.messages.find((m) => m.type === 'jam_kept').project")
    shown = httpx.get(served.base + f"api/v1/projects/{project}", params={"notes": "false"}, headers=served.headers, timeout=30)
    assert shown.status_code == 200, shown.text
    assert shown.json()["project"]["name"] == first
    page.click("#stop")
    assert errors == []
    page.close()


def test_on_a_phone_the_controls_and_the_directive_box_stay_on_screen(browser: Any, served: Any) -> None:
    from playwright.sync_api import expect

    wide = browser.new_page(viewport={"width": 1440, "height": 900})
    wide.goto(served.url)
    expect(wide.locator("#conn")).to_have_text("connected")
    wide.wait_for_function("window.bandstand.state.jam")
    if wide.locator("#start").is_enabled():
        wide.click("#start")
    wide.wait_for_function("window.bandstand.state.jam.round >= 1")
    wide.screenshot(path=str(ARTIFACTS / "jam-1440.png"))
    wide.close()
    page = browser.new_page(viewport={"width": 420, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served.url)
    expect(page.locator("#conn")).to_have_text("connected")
    page.wait_for_function("window.bandstand.state.jam && window.bandstand.state.jam.round >= 1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    context = page.locator("#context").bounding_box()
    assert context and context["height"] <= 64, context  # the context bar collapses to one line
    for where in ("0", "document.documentElement.scrollHeight / 2", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        page.wait_for_timeout(100)
        for control in ("#start", "#stop", "#sound", "#directive"):
            box = page.locator(control).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 860 and box["x"] + box["width"] <= 421, (where, control, box)
        if where == "document.documentElement.scrollHeight / 2":
            page.screenshot(path=str(ARTIFACTS / "jam-420.png"))
    assert errors == []
    page.close()
