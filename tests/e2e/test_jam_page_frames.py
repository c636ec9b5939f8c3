"""Issue #25, the jam page's frames while the band plays, in a real browser (Debian's chromium
through Playwright) against a real `bandstand jam` with its four default members: the playhead and
the autopilot's progress move by transforms, so a frame lays out nothing (it laid out the page
every frame: a width set each frame); the frame times over five seconds are written to
test-artifacts/jam-frames/frames.json (figures, not pass marks — the machine is shared;
benchmarks/page_frames.py prints them). Screenshots of the playing jam at 1440 and 420 px.

Marked `alone`: the page lays out on a beat or a round, so its layouts per second are the band's,
while its frames per second are the machine's; on a machine busy with other tests the frames
fall (27 a second in one CI run) and the ratio says nothing about the page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browsers import AUTOPLAY, launched
from tests.server.jam_process import jam_server

pytestmark = [pytest.mark.e2e, pytest.mark.alone]  # it counts the browser's frames

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "jam-frames"

FRAMES = """(ms) => new Promise((resolve) => { const deltas = []; let last = null, end = null;
  const tick = (t) => { if (last !== null) deltas.push(t - last); else end = t + ms; last = t;
    if (t < end) requestAnimationFrame(tick); else resolve(deltas); };
  requestAnimationFrame(tick); })"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000, extra=[AUTOPLAY]) as running:
        yield running


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with jam_server(cwd=tmp_path_factory.mktemp("jam-frames")) as running:  # beat, groove, aria, glitch; autopilot on
        yield running


@contextmanager
def playing(browser: Any, served: Any, width: int, height: int) -> Iterator[tuple[Any, list[str]]]:
    """A page on the jam, started; stopped and closed however the test ends (the jam is the
    module's: one left playing would keep the next test's Start button disabled)."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(served.url)
        expect(page.locator("#conn")).to_have_text("connected")
        page.click("#start")
        page.wait_for_function("window.bandstand.audio.running && window.bandstand.audio.scheduled > 20", timeout=120_000)
        yield page, errors
    except BaseException:
        with suppress(Exception):
            if page.locator("#stop").is_enabled():
                page.click("#stop")
        raise
    else:
        page.click("#stop")
        assert errors == []
    finally:
        page.close()


def metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def test_a_playing_jam_lays_out_nothing_per_frame(browser: Any, served: Any) -> None:
    with playing(browser, served, 1440, 900) as (page, _):
        assert len(page.evaluate("Object.keys(window.bandstand.state.members)")) == 4
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        before = metrics(cdp)
        deltas = page.evaluate(FRAMES, 5000)
        after = metrics(cdp)
        layouts = after["LayoutCount"] - before["LayoutCount"]
        # the playhead moved all along (by its transform) …
        assert page.evaluate("document.getElementById('playhead-bar').style.transform").startswith("translateX(")
        # … and the page was laid out on a beat or a new round, not on every frame
        assert layouts < len(deltas) / 3, (layouts, len(deltas))
        ordered = sorted(deltas)
        figures = {"frames": len(ordered), "p50_ms": round(ordered[len(ordered) // 2], 1),
                   "p95_ms": round(ordered[int(0.95 * len(ordered))], 1), "layouts": layouts,
                   "task_s": round(after["TaskDuration"] - before["TaskDuration"], 3)}
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "frames.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(figures))
        page.screenshot(path=str(ARTIFACTS / "jam-1440.png"))


def test_a_playing_jam_on_a_phone(browser: Any, served: Any) -> None:
    with playing(browser, served, 420, 860) as (page, _):
        assert page.evaluate("document.documentElement.scrollWidth") <= 420
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / "jam-420.png"))
