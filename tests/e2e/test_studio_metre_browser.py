"""The studio page's bar ruler follows the metre map, in a real browser (Debian's chromium through
Playwright) on a real `bandstand serve`: a song whose choruses were put in 3/4 with `bandstand
edit` shows its bars where the map puts them (a 3/4 bar is three beats wide), its sections on
those bar lines, and a click on a bar number in a 3/4 chorus seeks to that bar's first beat (the
position reads that bar's number)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browsers import launched
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "studio-metre"


def bandstand(cwd: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "bandstand", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def song(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    root = tmp_path_factory.mktemp("metre")
    bandstand(root, "compose", "pop song in C major", "--bars", "32", "--seed", "3", "--out", "songs", "--no-audio",
              "--json")
    (session,) = (root / "songs").glob("session-*")
    bandstand(root, "edit", str(session), "put the chorus in 3/4")
    bandstand(root, "accept", str(session), "--no-audio")
    with bandstand_server("serve", "--out", "songs", cwd=root) as server:
        yield server, session


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000) as running:
        yield running


def test_the_bar_ruler_follows_the_metre_map(song: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, session = song
    manifest = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
    changes = {c["bar"]: c["time_signature"] for c in manifest["metre_changes"]}
    assert set(changes.values()) == {"3/4", "4/4"}
    lengths, now = [], 4.0
    for bar in range(1, manifest["total_bars"] + 1):
        if bar in changes:
            now = 3.0 if changes[bar] == "3/4" else 4.0
        lengths.append(now)
    starts = [0.0]
    for length in lengths:
        starts.append(starts[-1] + length)

    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.page_url("studio") + f"#/song/{session.name}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 4")
    assert page.evaluate("window.studio.view.barStarts") == starts
    sections = page.evaluate("window.studio.view.sections.map((s) => [s.name, s.start, s.end])")
    assert sections == [[s["name"], starts[s["start_bar"] - 1], starts[s["start_bar"] - 1 + s["bars"]]]
                        for s in manifest["sections"]]
    lines = page.evaluate(f"window.studio.arrangement.barLines(0, {starts[-1]}).map(([beat]) => beat)")
    assert lines == starts

    # a click on the ruler's bar numbers, inside the second bar of the first 3/4 chorus, seeks to its start
    first_three = min(bar for bar, ts in changes.items() if ts == "3/4")
    target = starts[first_three]  # bar first_three + 1 starts here
    page.evaluate(f"window.studio.arrangement.scroller.scrollLeft = Math.max(0, window.studio.arrangement.xOf({target}) - 200)")
    x = page.evaluate(f"window.studio.arrangement.xOf({target} + 2.5)")
    page.locator(".arr-scroll").click(position={"x": x, "y": 48})
    assert page.evaluate("window.studio.transport.cursor") == target
    expect(page.locator("#position")).to_have_text(f"{first_three + 1}.1.1")  # bar.beat.sixteenth, the map's
    page.screenshot(path=str(ARTIFACTS / "metre-ruler.png"))
    assert errors == []
