"""Issue #25, the studio page's frames while a long song plays, in a real browser (Debian's chromium
through Playwright) against a real `bandstand serve` with a composed 128-bar, 8-part song: the
playhead and every level meter move by transforms and the readings (position, dB) change on one frame
in six, so a playing frame mostly lays out nothing (it laid out the page every frame: each meter's
width and the position set each frame) and the arrangement's canvas is not redrawn for the playhead.
Counts, not times (the machine is shared); the frame times over five seconds go to
test-artifacts/studio-frames/frames.json as figures (benchmarks/page_frames.py prints them too).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browsers import AUTOPLAY, launched
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "studio-frames"
PARTS = "drums,bass,chords,lead,pad,arp,percussion,counter_melody"

FRAMES = """(ms) => new Promise((resolve) => { const deltas = []; let last = null, end = null;
  const tick = (t) => { if (last !== null) deltas.push(t - last); else end = t + ms; last = t;
    if (t < end) requestAnimationFrame(tick); else resolve(deltas); };
  requestAnimationFrame(tick); })"""

# Every meter bar's scale now, in page order (the master's two, then each track's two).
SCALES = """() => [...document.querySelectorAll('.meter i')].map((bar) =>
  parseFloat((bar.style.transform.match(/scaleX\\(([\\d.]+)\\)/) || [0, '0'])[1]))"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    root = tmp_path_factory.mktemp("studio-frames")
    subprocess.run([sys.executable, "-m", "bandstand", "compose", "bright pop song in E major, 112 bpm", "--bars", "128",
                    "--parts", PARTS, "--seed", "5", "--out", "songs"], cwd=root, check=True, capture_output=True,
                   timeout=900)
    song = next((root / "songs").glob("session-*")).name
    with bandstand_server("serve", "--out", "songs", "--runs-dir", "runs", cwd=root) as server:
        yield server, song


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000, extra=[AUTOPLAY]) as running:
        yield running


def metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def test_a_playing_long_song_lays_out_the_page_on_few_frames(served: tuple[Served, str], browser: Any) -> None:
    server, song = served
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.page_url("studio") + f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 8", timeout=120_000)
    assert page.evaluate("window.studio.view.bars") == 128
    page.evaluate("window.studio.transport.seek(64)")  # past the intro: every part plays
    page.click("#play")
    page.wait_for_function("Object.values(window.studio.transport.trackLevels || {}).filter((l) => l.peak > -40).length >= 3",
                           timeout=60_000)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    before, draws, scales = metrics(cdp), page.evaluate("window.studio.arrangement.draws || 0"), page.evaluate(SCALES)
    position = page.evaluate("document.getElementById('position').textContent")
    deltas = page.evaluate(FRAMES, 5000)
    after, drawn = metrics(cdp), page.evaluate("window.studio.arrangement.draws || 0") - draws
    layouts = after["LayoutCount"] - before["LayoutCount"]
    # the page was laid out on a reading's frame (one in six) or a scroll, not on every frame …
    assert layouts < len(deltas) / 4, (layouts, len(deltas))
    # … while the playhead, the position and the meters (by their transforms) moved all along,
    assert page.evaluate("document.querySelector('.arr-playhead').style.transform").startswith("translateX(")
    assert page.evaluate("document.getElementById('position').textContent") != position
    now = page.evaluate(SCALES)
    assert len(now) == 2 + 2 * 8 and sum(a != b for a, b in zip(scales, now, strict=True)) >= 6, (scales, now)
    # and the arrangement was redrawn only when the view followed the playhead (a scroll), not per frame
    assert drawn < len(deltas) / 20, (drawn, len(deltas))
    ordered = sorted(deltas)
    figures = {"frames": len(ordered), "p50_ms": round(ordered[len(ordered) // 2], 1),
               "p95_ms": round(ordered[int(0.95 * len(ordered))], 1), "layouts": int(layouts),
               "style_recalcs": int(after["RecalcStyleCount"] - before["RecalcStyleCount"]), "redraws": drawn,
               "task_s": round(after["TaskDuration"] - before["TaskDuration"], 3)}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "frames.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures))
    page.screenshot(path=str(ARTIFACTS / "studio-playing-1440.png"))
    page.click("#play")
    assert errors == []
    page.close()
