"""Issue #25, the studio page's second pass, in a real browser (Debian's chromium through
Playwright) on a real `bandstand serve`: a solo stays in its song (another song, or an undo while
stopped, starts from that song's mixer state); B of an A/B plays, shows and highlights a part the
variation adds; chord symbols are spelled for the key (sharps in C# minor); the piano roll's status
follows undo; the Board view without a board says so. One song composed (C# minor) and one imported,
one server and one browser for the module; screenshots under test-artifacts/studio-pass2/.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.browsers import AUTOPLAY, launched
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "studio-pass2"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str, str]]:
    root = tmp_path_factory.mktemp("studio-pass2")
    subprocess.run([sys.executable, "-m", "bandstand", "compose", "ballad in C# minor, 80 bpm", "--bars", "16",
                    "--seed", "3", "--out", "songs"], cwd=root, check=True, capture_output=True, timeout=600)
    composed = next((root / "songs").glob("session-*"))
    with bandstand_server("serve", "--out", "songs", "--runs-dir", "runs", cwd=root) as server:
        midi = (composed / "midi" / "full-arrangement.mid").read_bytes()
        made = httpx.post(server.base + "api/v1/projects/import", params={"filename": "other.mid", "name": "other"},
                          content=midi, headers={**server.headers, "content-type": "application/octet-stream"},
                          timeout=120)
        assert made.status_code == 201, made.text
        yield server, composed.name, str(made.json()["projectId"])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000, extra=[AUTOPLAY]) as running:
        yield running


def open_song(browser: Any, server: Served, song: str, width: int = 1280, height: int = 860) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.page_url("studio") + f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 3")
    return page, errors


def revision(page: Any) -> int:
    return int(page.evaluate("window.studio.state.data.revision"))


# Which of the song's tracks the engine would let be heard, and which other tracks it still holds.
HEARD = """() => {
  const audio = window.studio.audio, ids = window.studio.view.tracks.map((t) => t.id), all = [...audio.tracks.values()];
  const soloing = all.some((t) => t.solo), heard = (t) => Boolean(t) && !t.mute && (!soloing || t.solo);
  return {silent: ids.filter((id) => !heard(audio.tracks.get(id))), others: [...audio.tracks.keys()].filter((id) => !ids.includes(id))};
}"""


def test_a_solo_stays_in_its_song_and_undo_while_stopped_resets_the_mixer(served: tuple[Served, str, str], browser: Any) -> None:
    server, composed, imported = served
    page, errors = open_song(browser, server, composed)
    page.click("#play")
    page.wait_for_function("window.studio.audio.running && window.studio.audio.scheduled > 5")
    page.click("#play")  # pause
    bass = page.evaluate("window.studio.view.tracks.find((t) => t.role === 'bass').id")
    before = revision(page)
    page.locator(f'#heads .head[data-track="{bass}"] button[data-act="solo"]').click()
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    soloed = page.evaluate(HEARD)
    assert len(soloed["silent"]) == page.evaluate("window.studio.view.tracks.length") - 1

    # undo while stopped: the engine is back to the song's mixer (nothing soloed)
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision === {before}")
    page.wait_for_function("window.studio.view.tracks.every((t) => !t.solo)")
    assert page.evaluate(HEARD) == {"silent": [], "others": []}

    # solo again (a revision), then open the other song: it is heard whole, the first song's tracks let go
    page.locator(f'#heads .head[data-track="{bass}"] button[data-act="solo"]').click()
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    page.evaluate(f"location.hash = '#/song/{imported}'")
    page.wait_for_function(f"window.studio.state.projectId === {json.dumps(imported)} && window.studio.view.id !== undefined"
                           f" && window.studio.view.tracks.every((t) => !{json.dumps(bass)}.includes(t.id))")
    assert page.evaluate(HEARD) == {"silent": [], "others": []}
    page.click("#play")
    page.wait_for_function("window.studio.state.player && window.studio.state.player.position() > 0.5")
    assert page.evaluate(HEARD) == {"silent": [], "others": []}
    page.click("#play")
    assert errors == []
    page.close()
    undone = httpx.post(server.base + f"api/v1/projects/{composed}/undo", headers=server.headers, timeout=30)
    assert undone.status_code == 200, undone.text


def test_b_plays_shows_and_highlights_a_part_the_variation_adds(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    tracks = page.evaluate("window.studio.view.tracks.length")
    page.fill("#prompt", "add a string pad to the chorus")
    page.press("#prompt", "Enter")
    expect(page.locator("#review .phrase").first).to_be_visible()
    added = page.evaluate("window.studio.state.variation.addedTracks.map((t) => t.id)")
    assert len(added) == 1
    new = added[0]
    # A already has the new part's lane (empty) and its head, the phrase highlighted on it
    expect(page.locator("#heads .head")).to_have_count(tracks + 1)
    expect(page.locator(f'#heads .head.proposed[data-track="{new}"]')).to_be_visible()
    lit = page.evaluate(f"""window.studio.arrangement.highlights.filter((p) => p.trackId === {json.dumps(new)})
      .map((p) => window.studio.arrangement.view.tracks.findIndex((t) => t.id === p.trackId))""")
    assert lit and all(lane == tracks for lane in lit)
    # B: the new part has notes, the engine holds it, and playing B schedules its notes
    page.evaluate("""() => { const audio = window.studio.audio, note = audio.note.bind(audio);
      window.heardIds = new Set(); audio.note = (id, ...rest) => { window.heardIds.add(id); return note(id, ...rest); }; }""")
    page.click("#ab-b")
    page.wait_for_function(f"window.studio.arrangement.view.tracks.find((t) => t.id === {json.dumps(new)}).notes.length > 0")
    chorus = page.evaluate(f"""Math.min(...window.studio.state.proposal.tracks.find((t) => t.id === {json.dumps(new)})
      .notes.map((n) => n.start))""")
    page.evaluate(f"window.studio.transport.seek({max(0.0, chorus - 1)})")
    page.click("#play")
    page.wait_for_function(f"window.heardIds.has({json.dumps(new)})", timeout=60_000)
    assert page.evaluate(f"window.studio.audio.tracks.has({json.dumps(new)})")
    page.screenshot(path=str(ARTIFACTS / "ab-new-part.png"))
    page.click("#play")
    page.click('#review [data-act="discard"]')
    expect(page.locator("#heads .head")).to_have_count(tracks)
    assert errors == []
    page.close()


def test_chord_symbols_in_the_arrangement_are_spelled_for_the_key(served: tuple[Served, str, str], browser: Any) -> None:
    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    assert page.evaluate("window.studio.view.key") == "C# minor"
    symbols = page.evaluate("window.studio.view.chords.map((c) => c.symbol)")
    assert symbols and any("#" in s for s in symbols)
    assert not [s for s in symbols if len(s) > 1 and s[1] == "b"], symbols  # no Dbm7, Gbm7, Ab7 in C# minor
    assert errors == []
    page.close()


def test_the_piano_rolls_status_follows_undo(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    page.keyboard.press("0")
    at = page.evaluate("""() => {
      const arr = window.studio.arrangement, tracks = window.studio.view.tracks, lane = tracks.findIndex((t) => t.role === 'bass');
      const beat = tracks[lane].regions.find((r) => r.notes.length).start_beat + 1;
      return {x: arr.xOf(beat), y: 58 + lane * 64 - arr.scroller.scrollTop + 40};
    }""")
    page.locator(".arr-scroll").dblclick(position=at)
    expect(page.locator("#roll-panel")).to_be_visible()
    note = page.evaluate("""(() => { const roll = window.studio.roll, n = roll.notes[0];
      roll.scroller.scrollTop = Math.max(0, roll.rowOf(n.pitch) * roll.rowHeight - 60); roll.scroller.scrollLeft = 0;
      return {x: roll.xOf(n.start) + 4, y: roll.yOfRow(roll.rowOf(n.pitch)) + roll.rowHeight / 2}; })()""")
    start = revision(page)
    page.locator(".roll-scroll").click(position=note)
    page.keyboard.press("ArrowUp")
    page.wait_for_function(f"window.studio.state.data.revision !== {start}")
    edited = revision(page)
    expect(page.locator("#roll-status")).to_have_text(f"revision {edited}")
    # the edit's notification does not cover the notes, the piano roll or its velocity lane
    toast = page.locator("#toasts .toast").last
    expect(toast).to_be_visible()
    covered = page.evaluate("""() => {
      const t = [...document.querySelectorAll('#toasts .toast')].pop().getBoundingClientRect();
      return ['#arrange', '#roll-panel'].filter((sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom; });
    }""")
    assert covered == []
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision !== {edited}")
    expect(page.locator("#roll-status")).to_have_text(f"revision {revision(page)}")
    assert revision(page) == start
    assert errors == []
    page.close()


def test_the_board_view_without_a_board_says_so_and_how_to_start_one(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, _, _ = served
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    streams: list[str] = []
    page.on("request", lambda request: streams.append(request.url) if "/board/stream" in request.url else None)
    page.goto(server.page_url("studio") + "#/board")
    expect(page.locator("#no-board")).to_contain_text("bandstand board init")
    expect(page.locator("#no-board")).to_contain_text("there is no board at")
    expect(page.locator("#board-live")).to_have_text("no board")
    page.wait_for_timeout(2500)  # an EventSource would have retried by now
    expect(page.locator("#board-live")).to_have_text("no board")
    assert streams == []
    page.screenshot(path=str(ARTIFACTS / "no-board.png"))
    assert errors == []
    page.close()


def test_an_empty_chat_offers_requests_drawn_from_the_song(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    chips = page.locator("#chat .chips button[data-ask]")
    expect(chips.first).to_be_visible()
    offered = [chips.nth(i).inner_text() for i in range(chips.count())]
    assert "make the bass busier" in offered and "try something different" in offered
    assert any(text.startswith("darker chords in the") for text in offered)
    page.screenshot(path=str(ARTIFACTS / "suggestions.png"))
    page.locator("#chat .chips button", has_text="make the bass busier").click()
    expect(page.locator("#chat .chips")).to_have_count(0)
    expect(page.locator("#review .phrase").first).to_be_visible()
    assert "bass" in page.evaluate("window.studio.state.variation.intent").lower()
    # the chat says it in a musician's words (the variation's musical diff); the engine's terms folded
    page.click('[data-tab="chat"]')
    plain = page.locator("#chat .meta .plain").last
    expect(plain).to_contain_text("bass")
    assert not re.search(r"density|[+-]0\.\d", plain.inner_text()), plain.inner_text()
    how = page.locator("#chat .meta details.how").last
    expect(how).not_to_have_attribute("open", "")
    expect(how).to_contain_text("density")
    page.screenshot(path=str(ARTIFACTS / "plain-words.png"))
    page.click('[data-tab="review"]')
    page.click('#review [data-act="discard"]')
    assert errors == []
    page.close()


def test_on_a_phone_the_transport_and_the_directive_box_stay_on_screen(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    wide, errors = open_song(browser, server, composed, width=1440, height=900)
    wide.screenshot(path=str(ARTIFACTS / "studio-1440.png"))
    wide.close()
    page, more = open_song(browser, server, composed, width=420, height=860)
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    for where in ("0", "document.documentElement.scrollHeight / 2", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        page.wait_for_timeout(100)
        for control in ("#play", "#position", "#prompt", "#send"):
            box = page.locator(control).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 860 and box["x"] + box["width"] <= 421, (where, control, box)
        if where == "document.documentElement.scrollHeight / 2":
            page.screenshot(path=str(ARTIFACTS / "studio-420.png"))
    # the key sheet: a button a phone can reach (and ? on a keyboard)
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#shortcuts")
    sheet = page.locator("#shortcuts-dialog")
    expect(sheet).to_be_visible()
    expect(sheet).to_contain_text("undo, redo")
    box = sheet.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 420
    page.screenshot(path=str(ARTIFACTS / "shortcuts-420.png"))
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    page.locator("body").click(position={"x": 5, "y": 400})
    page.keyboard.press("?")
    expect(sheet).to_be_visible()
    page.keyboard.press("Escape")
    # the pinned box works from any tab: a request asked from History opens the chat with its turn
    page.click('[data-tab="history"]')
    page.fill("#prompt", "what key is this?")
    page.press("#prompt", "Enter")
    page.wait_for_function("document.querySelectorAll('#chat .turn').length > 0")
    assert page.evaluate("document.querySelector('[data-tab=\"chat\"]').getAttribute('aria-selected')") == "true"
    assert errors == [] and more == []
    page.close()


def test_the_master_meter_moves_while_playing_and_the_master_fader_silences_it(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    expect(page.locator("#master-db")).to_have_text("−∞")
    page.evaluate("window.studio.transport.seek(16)")  # the verse: every part plays
    page.click("#play")
    page.wait_for_function("window.studio.transport.levels && window.studio.transport.levels.peak > -40", timeout=60_000)
    expect(page.locator("#master-db")).to_have_text(re.compile(r"^-?\d+ dB$"))
    # The bar follows the level every frame, through the music's own rests: wait for it to stand
    # above 30 % rather than sampling one frame (a rest read as 0 %).
    page.wait_for_function(r"""() => { const bar = document.querySelector('#master-meter .peak');
      const m = bar.style.transform.match(/scaleX\(([\d.]+)\)/); return m && parseFloat(m[1]) > 0.3; }""",
                           timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "master-meter.png"))
    page.evaluate("""() => { const input = document.getElementById('master'); input.value = '0';
      input.dispatchEvent(new Event('input', {bubbles: true})); }""")
    page.wait_for_function("window.studio.transport.levels.peak < -60", timeout=30_000)
    assert page.evaluate("localStorage.getItem('bandstand.studio.master')") == "0"
    page.evaluate("""() => { const input = document.getElementById('master'); input.value = '1';
      input.dispatchEvent(new Event('input', {bubbles: true})); }""")
    page.click("#play")
    assert errors == []
    page.close()


def test_a_phrase_is_auditioned_alone_b_looped_over_its_bars(served: tuple[Served, str, str], browser: Any) -> None:
    from playwright.sync_api import expect

    server, composed, _ = served
    page, errors = open_song(browser, server, composed)
    page.fill("#prompt", "make the lead busier")
    page.press("#prompt", "Enter")
    expect(page.locator("#review .phrase").first).to_be_visible()
    phrase = page.evaluate("(() => { const p = window.studio.state.variation.phrases[0]; return {start: p.startBeat, end: p.endBeat}; })()")
    page.locator('#review .phrase button[data-act="audition"]').first.click()
    page.wait_for_function("window.studio.state.player && window.studio.audio.running")
    assert page.evaluate("window.studio.state.ab") == "B"
    assert page.evaluate("window.studio.state.loop") == phrase
    page.wait_for_function(f"window.studio.state.player.position() > {phrase['start'] + 0.5}", timeout=60_000)
    for _ in range(3):  # the phrase's bars, again and again
        page.wait_for_timeout(400)
        beat = page.evaluate("window.studio.state.player.position()")
        assert phrase["start"] - 0.01 <= beat < phrase["end"] + 0.01
    page.screenshot(path=str(ARTIFACTS / "audition.png"))
    page.click("#play")
    page.click('#review [data-act="discard"]')
    assert errors == []
    page.close()
