"""The studio page's history as branches, in a real browser (Debian's chromium through
Playwright) on a real `bandstand serve`: the graph with its branch labels, switching branch
(the song reloads as that branch's head), a new branch made from the page, a merge, and a
bad branch name answered with the server's one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bandstand.producer.sessions import branches
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio import Provenance, SeededIds
from tests.e2e.browsers import launched
from tests.server.jam_process import Served, bandstand_server
from tests.studio.songs import small_song

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "branches"
PID = "session-20260101-b4a2c1"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    out = tmp_path / "projects"
    session = create_from_song(out / PID, small_song(), Provenance(prompt="small", seeds={"song": 1}),
                               ids=SeededIds(5))
    branches.create_branch(session, "quiet")
    session.apply_tools([{"name": "set_track_volume", "args": {"track": "Bass", "volume": 0.3}}], author="test",
                        request="quieter bass")  # r2 on quiet
    branches.checkout(session, "main")
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as found:
        yield found


def volume(page: Any, name: str) -> float:
    return float(page.evaluate(f"window.studio.view.tracks.find((t) => t.name === {name!r}).volume"))


def test_switching_branch_and_merging_from_the_history(served: Served) -> None:
    from playwright.sync_api import expect

    with launched(ARTIFACTS, timeout_ms=30_000) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(served.page_url("studio") + f"#/song/{PID}")
        page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 3")
        page.click('[role=tab][data-tab="history"]')
        rows = page.locator("#history li[data-revision]")
        expect(rows).to_have_count(2)
        expect(page.locator("#branch-select")).to_have_value("main")
        expect(page.locator('#history li[data-revision="2"] .branch-label')).to_have_text("quiet")
        expect(page.locator('#history li[data-revision="1"] .branch-label.current')).to_have_text("main")
        assert volume(page, "Bass") != 0.3

        page.select_option("#branch-select", "quiet")  # switch: the song is quiet's head
        page.wait_for_function("window.studio.state.data.revision === 2")
        assert volume(page, "Bass") == 0.3
        expect(page.locator('#history li[data-revision="2"] .branch-label.current')).to_have_text("quiet")
        page.screenshot(path=str(ARTIFACTS / "1-on-quiet.png"))

        page.select_option("#branch-select", "main")
        page.wait_for_function("window.studio.state.data.revision === 1")
        assert volume(page, "Bass") != 0.3

        page.fill("#branch-name", "a/b")  # a bad name: the server's one line, nothing made
        page.click("#branch-new")
        expect(page.locator("#toasts .toast.error").last).to_contain_text("has '/' or '..'")
        expect(page.locator("#branch-select option")).to_have_count(2)

        page.select_option("#merge-from", "quiet")
        page.click("#branch-merge")
        page.wait_for_function("window.studio.state.data.revision === 3")
        assert volume(page, "Bass") == 0.3
        expect(page.locator("#history li").nth(1).locator(".graph")).to_have_text("|\\")
        expect(page.locator('#history li[data-revision="3"]')).to_contain_text("merge quiet")

        page.fill("#branch-name", "idea")
        page.click("#branch-new")
        expect(page.locator("#branch-select")).to_have_value("idea")
        expect(page.locator('#history li[data-revision="3"] .branch-label.current')).to_have_text("idea")
        page.screenshot(path=str(ARTIFACTS / "2-merged-and-branched.png"))
        assert errors == []
        page.close()
