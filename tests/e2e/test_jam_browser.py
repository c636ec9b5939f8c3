"""The jam page in a real browser (Debian's chromium driven by Playwright).

Start the jam, see all four members' thoughts, direct the band, watch the
context bar, the patterns and the page's audio scheduler change, stop.
Screenshots are kept under test-artifacts/jam/. One browser for the module, and one
server for the tests that need no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browsers import AUTOPLAY, launched
from tests.server.jam_process import jam_server

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "jam"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, extra=[AUTOPLAY]) as running:
        yield running


@pytest.fixture(scope="module")
def served() -> Iterator[Any]:
    with jam_server() as running:
        yield running


def test_jam_in_the_browser(browser: Any, served: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1440, "height": 960})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served.url)
    expect(page.locator("#conn")).to_have_text("connected")
    expect(page.locator(".card")).to_have_count(4)
    expect(page.locator("#ctx-key")).to_have_text("C minor")

    # before the start, a click on a card benches that member; another brings it back
    page.click('.card[data-member="GLITCH"] .bubble')
    expect(page.locator('.card[data-member="GLITCH"]')).to_have_class(re.compile("inactive"))
    page.click('.card[data-member="GLITCH"] .bubble')
    expect(page.locator('.card[data-member="GLITCH"]')).not_to_have_class(re.compile("inactive"))

    page.click("#start")
    for name in ("BEAT", "GROOVE", "ARIA", "GLITCH"):
        bubble = page.locator(f'.card[data-member="{name}"] .bubble')
        expect(bubble).not_to_have_text("…", timeout=20_000)
    expect(page.locator(".msg", has_text="BEAT")).not_to_have_count(0)
    page.wait_for_function("window.bandstand.scheduled > 0", timeout=20_000)
    page.screenshot(path=str(ARTIFACTS / "1-started.png"))

    before = {n: page.locator(f'.card[data-member="{n}"] .pattern').inner_text() for n in ("GROOVE", "ARIA")}
    energy_before = int(page.locator("#ctx-energy").inner_text())
    scheduled_before = page.evaluate("window.bandstand.scheduled")
    page.fill("#directive", "Switch to D major, more energy!")
    page.press("#directive", "Enter")
    expect(page.locator("#ctx-key")).to_have_text("D major", timeout=20_000)
    expect(page.locator("#ctx-scale")).to_contain_text("f#")
    assert int(page.locator("#ctx-energy").inner_text()) > energy_before
    for name, old in before.items():
        expect(page.locator(f'.card[data-member="{name}"] .pattern')).not_to_have_text(old, timeout=20_000)
    expect(page.locator(".msg.boss")).to_contain_text("Switch to D major")
    page.wait_for_function(f"window.bandstand.scheduled > {scheduled_before}", timeout=20_000)
    expect(page.locator(".layer")).to_have_count(4)

    page.fill("#directive", "@gr")
    expect(page.locator("#mention-menu")).to_contain_text("@GROOVE")
    page.press("#directive", "Tab")
    assert page.input_value("#directive") == "@GROOVE "
    page.fill("#directive", "")
    page.screenshot(path=str(ARTIFACTS / "2-d-major.png"))

    page.click("#stop")
    expect(page.locator("#start")).to_be_enabled(timeout=20_000)
    expect(page.locator("#stop")).to_be_disabled()
    page.screenshot(path=str(ARTIFACTS / "3-stopped.png"))

    # choose who plays: GLITCH sits the next jam out
    page.click('.card[data-member="GLITCH"] .bubble')
    page.click("#start")
    expect(page.locator("#round")).to_have_text("1", timeout=20_000)
    expect(page.locator(".layer")).to_have_count(3, timeout=20_000)
    expect(page.locator('.card[data-member="GLITCH"]')).to_have_class(re.compile("inactive"))
    assert "GLITCH" not in page.locator("#layers").inner_text()
    page.click("#stop")
    expect(page.locator("#start")).to_be_enabled(timeout=20_000)

    assert errors == []
    page.close()


def test_a_failing_llm_member_shows_its_fallback_in_the_browser(browser: Any) -> None:
    import json

    from playwright.sync_api import expect

    from tests.peers.openai_server import OpenAIServer

    good = {"drums": 's("bd ~ sd ~, hh*8")', "bass": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")'}

    def reply(user: str, system: str, n: int) -> str:
        role = next(r for r in good if f"the {r} player" in system)
        pattern = good[role]
        if role == "bass" and "chromatic" in user:
            pattern = 'note("c2 db2 d2 e2 f#2 g#2").s("sawtooth")'  # off the scale: refused
        return json.dumps({"pattern": pattern, "thoughts": f"{role} thinking", "reaction": "ok", "comply_with_boss": True})

    with OpenAIServer() as peer:
        peer.reply_for = reply
        args = ("--backend", "openai", "--base-url", peer.url + "/v1", "--model", "local", "--members", "beat,groove")
        with jam_server(*args, env={"OPENAI_API_KEY": "test-key"}) as served:
            page = browser.new_page(viewport={"width": 1440, "height": 960})
            page.goto(served.url)
            expect(page.locator(".card")).to_have_count(2)
            page.click("#start")
            groove = page.locator('.card[data-member="GROOVE"]')
            expect(groove.locator(".bubble")).to_contain_text("bass thinking", timeout=20_000)
            expect(groove.locator(".light")).to_have_class(re.compile("ok"))
            page.fill("#directive", "@GROOVE go chromatic")
            page.press("#directive", "Enter")
            expect(groove.locator(".fallback")).to_have_text("(fallback)", timeout=20_000)
            expect(groove.locator(".light")).to_have_class(re.compile("error"))
            expect(groove.locator(".pattern")).to_have_text(good["bass"])
            expect(page.locator(".msg .note")).to_contain_text("[invalid pattern — playing last known pattern]")
            page.screenshot(path=str(ARTIFACTS / "4-fallback.png"))
            page.click("#stop")
            expect(page.locator("#start")).to_be_enabled(timeout=20_000)
            page.close()


@pytest.mark.parametrize("width", [420, 700])
def test_the_page_fits_a_narrow_window(width: int, browser: Any, served: Any) -> None:
    # at 420 px the two fixed-minimum columns overflowed: the chat and half the band were off-screen
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(served.url)
    expect(page.locator(".card")).to_have_count(4)
    page.screenshot(path=str(ARTIFACTS / f"narrow-{width}.png"), full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    for selector in ("#start", "#autopilot", ".chat-panel", '.card[data-member="GROOVE"]'):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    page.close()
