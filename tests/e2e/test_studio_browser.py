"""The studio page in a real browser (Debian's chromium through Playwright) on a real
`bandstand serve`: a song from a prompt with the compose graph's progress; played after a
click (the audio context running, the playhead moving with what is heard, notes scheduled),
looped; a note edited in the piano roll (a revision), drum rows by name; undo; exports; the
chat → plan → variation → A/B → part of it accepted → undo; the session log of a team run
with its banners, live, and the board; a 128-bar, 8-track song scrolled, zoomed and played
with its frame times measured; and the page at 420 px. One server and one browser for the
module. Screenshots (and the frame times) are kept under test-artifacts/studio/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bandstand.board import Board
from tests.e2e.browsers import launched
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "studio"
TEAM = ROOT / "examples" / "team.toml"

# Frame intervals (requestAnimationFrame to requestAnimationFrame) and redraw times while the page
# scrolls, zooms or plays; run in the page.
FRAMES = """async ({mode, frames}) => {
  const arr = window.studio.arrangement, sc = arr.scroller;
  const gaps = []; const before = arr.draws || 0;
  await new Promise((done) => {
    let last = null, n = 0;
    const step = (t) => {
      if (last !== null) gaps.push(t - last);
      last = t;
      if (mode === "scroll") sc.scrollLeft = (sc.scrollLeft + 29) % Math.max(1, sc.scrollWidth - sc.clientWidth);
      if (mode === "zoom") arr.zoomBy(n % 60 < 30 ? 1.04 : 1 / 1.04);
      if (++n <= frames) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  const n = (arr.draws || 0) - before, draws = n ? arr.frameMs.slice(-n) : [];
  const q = (a, p) => { if (!a.length) return null; const s = [...a].sort((x, y) => x - y); return +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2); };
  return {frames: gaps.length, p50_ms: q(gaps, .5), p95_ms: q(gaps, .95), max_ms: +Math.max(...gaps).toFixed(2),
          over_20ms: gaps.filter((g) => g > 20).length, redraws: n, redraw_p50_ms: q(draws, .5), redraw_p95_ms: q(draws, .95),
          redraw_max_ms: draws.length ? +Math.max(...draws).toFixed(2) : null};
}"""

# The playhead on screen against the notes heard: each note handed to the synthesizer has an
# audio-clock moment; the first time the page draws the playhead after that moment is heard (the
# output latency counted), it should stand at the note's beat plus the time since (ms).
HEARD = """async (count) => {
  const audio = window.studio.audio, player = window.studio.state.player, arr = window.studio.arrangement;
  const pending = [];
  const noteOn = audio.voices.noteOn.bind(audio.voices);
  const spb = 60 / window.studio.view.tempo;
  audio.voices.noteOn = (ch, key, vel, when, dur, hint) => { pending.push({when, beat: player.beatOf(when)}); return noteOn(ch, key, vel, when, dur, hint); };
  // what was heard when the page last drew the playhead: on a busy machine the frame that reads
  // it may run many ms after the one that drew it, which is the machine's lag, not the page's
  let heard = null;
  const setPosition = arr.setPosition;
  arr.setPosition = function (beat) { const out = setPosition.call(this, beat); heard = audio.heardNow(); return out; };
  const errors = [];
  await new Promise((done) => {
    const step = () => {
      if (heard === null) { requestAnimationFrame(step); return; }
      const shown = (parseFloat(arr.playhead.style.transform.slice("translateX(".length)) + arr.scroller.scrollLeft) / arr.pxPerBeat;
      for (const p of pending) if (!p.seen && heard >= p.when) {
        p.seen = true;
        errors.push((shown - p.beat) * spb * 1000 - (heard - p.when) * 1000);
      }
      if (errors.length >= count) done(); else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  audio.voices.noteOn = noteOn;
  delete arr.setPosition;  // the class's own again
  return errors;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    root = tmp_path_factory.mktemp("studio")
    with bandstand_server("serve", "--out", "songs", "--runs-dir", "runs", "--board", f"sqlite:///{root / 'board.db'}",
                          cwd=root) as server:
        yield server, root


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched(ARTIFACTS, timeout_ms=30_000) as running:
        yield running


def open_page(browser: Any, served: Served, fragment: str = "", width: int = 1280, height: int = 860) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(served.page_url("studio") + fragment)
    return page, errors


def lane_point(page: Any, track: str, beat: float) -> dict[str, float]:
    """Where a track's lane is at `beat`, in the arrangement scroller's coordinates."""
    return page.evaluate("""([name, beat]) => {
      const arr = window.studio.arrangement, lane = window.studio.view.tracks.findIndex((t) => t.role === name || t.name === name);
      return {x: arr.xOf(beat), y: 58 + lane * 64 - arr.scroller.scrollTop + 40};
    }""", [track, beat])


def revision(page: Any) -> int:
    return int(page.evaluate("window.studio.state.data.revision"))


def test_a_song_from_a_prompt_is_played_edited_undone_and_exported(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, _ = served
    page, errors = open_page(browser, server)
    expect(page.locator("#songs")).to_contain_text("No songs yet")
    page.fill("#new-prompt", "funk groove in E minor, 96 bpm")
    page.fill("#new-bars", "16")
    page.fill("#new-seed", "3")
    page.click("#compose")
    page.wait_for_url("**/studio#/song/session-*")
    for node in ("intent", "harmony", "arrangement", "parts:drums", "parts:bass", "sound", "output"):
        expect(page.locator(f'#compose-progress li[data-node="{node}"]')).to_have_class("node completed")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 4")
    view = page.evaluate("""(() => { const v = window.studio.view;
      return {bars: v.bars, sections: v.sections.map((s) => s.name), chords: v.chords.length, tracks: v.tracks.map((t) => t.role)}; })()""")
    assert view["bars"] == 16 and len(view["sections"]) >= 3 and view["chords"] >= 2
    assert {"drums", "bass"} <= set(view["tracks"])
    expect(page.locator("#heads .head")).to_have_count(len(view["tracks"]))

    # no sound before a click (no voices to play a note; the SoundFont loads silently) — and the button says so
    expect(page.locator("#sound")).to_have_text("🔇 Click to enable sound")
    assert page.evaluate("window.studio.audio.voices === null && !window.studio.audio.running")
    page.screenshot(path=str(ARTIFACTS / "1-arrangement.png"))

    page.click("#play")  # the click that plays also enables the sound
    page.wait_for_function("window.studio.audio.running && window.studio.state.player && window.studio.audio.scheduled > 10")
    assert page.evaluate("window.studio.audio.ctx.state") == "running"
    assert page.evaluate("window.studio.audio.mode") in ("soundfont", "oscillator")
    first = page.evaluate("window.studio.state.player.position()")
    page.wait_for_timeout(600)
    later = page.evaluate("({beat: window.studio.state.player.position(), scheduled: window.studio.audio.scheduled, "
                          "x: window.studio.arrangement.playhead.style.transform})")
    assert later["beat"] > first and later["x"].startswith("translateX(")
    errors_ms = page.evaluate(HEARD, 12)
    (ARTIFACTS / "playhead.json").write_text(json.dumps({"playhead_minus_heard_ms": errors_ms}))
    assert len(errors_ms) >= 12 and max(abs(e) for e in errors_ms) <= 20  # the playhead shows what is heard
    expect(page.locator("#position")).not_to_have_text("1.1.1")
    page.screenshot(path=str(ARTIFACTS / "2-playing.png"))

    # loop the section being heard (L); the playhead stays inside it
    page.keyboard.press("l")
    loop = page.evaluate("window.studio.state.loop")
    assert loop and loop["end"] > loop["start"]
    page.wait_for_timeout(400)
    beat = page.evaluate("window.studio.state.player.position()")
    assert loop["start"] - 0.01 <= beat < loop["end"] + 0.01
    page.keyboard.press("Space")  # pause
    assert page.evaluate("window.studio.state.player") is None

    # the piano roll of a bass region: select a note, move it up a semitone → a revision
    page.keyboard.press("0")
    at = lane_point(page, "bass", page.evaluate("window.studio.view.tracks.find((t) => t.role === 'bass').regions.find((r) => r.notes.length).start_beat + 1"))
    page.locator(".arr-scroll").dblclick(position=at)
    expect(page.locator("#roll-panel")).to_be_visible()
    note = page.evaluate("""(() => { const roll = window.studio.roll, n = roll.notes[0];
      roll.scroller.scrollTop = Math.max(0, roll.rowOf(n.pitch) * roll.rowHeight - 60); roll.scroller.scrollLeft = 0;
      return {id: n.id, pitch: n.pitch, x: roll.xOf(n.start) + 4, y: roll.yOfRow(roll.rowOf(n.pitch)) + roll.rowHeight / 2}; })()""")
    page.locator(".roll-scroll").click(position={"x": note["x"], "y": note["y"]})
    page.keyboard.press("ArrowUp")
    expect(page.locator("#roll-status")).to_have_text("revision 2")
    assert revision(page) == 2
    moved = page.evaluate(f"window.studio.view.tracks.flatMap((t) => t.notes).find((n) => n.id === {json.dumps(note['id'])}).pitch")
    assert moved == note["pitch"] + 1
    page.click('[data-tab="history"]')
    expect(page.locator("#history li").first).to_contain_text("piano roll: edit 1 note")
    page.screenshot(path=str(ARTIFACTS / "3-piano-roll-edit.png"))

    # with the mouse: drag the note a beat later, drag its end longer, its velocity, delete it,
    # and add one by double-clicking — each a revision, all undone after
    def where() -> dict[str, float]:
        return page.evaluate(f"""(() => {{ const roll = window.studio.roll, n = roll.notes.find((x) => x.id === {json.dumps(note['id'])});
          return {{x: roll.xOf(n.start) + 4, end: roll.xOf(n.start + n.duration) - 2, y: roll.yOfRow(roll.rowOf(n.pitch)) + roll.rowHeight / 2,
                  beat: roll.pxPerBeat, start: n.start, duration: n.duration, velocity: n.velocity}}; }})()""")

    def gesture(moves: list[tuple[float, float]]) -> int:
        before = revision(page)
        box = page.locator(".roll-scroll").bounding_box()
        page.mouse.move(box["x"] + moves[0][0], box["y"] + moves[0][1])
        page.mouse.down()
        for x, y in moves[1:]:
            page.mouse.move(box["x"] + x, box["y"] + y, steps=4)
        page.mouse.up()
        page.wait_for_function(f"window.studio.state.data.revision > {before}")
        return revision(page)

    first_edit, at = revision(page), where()
    gesture([(at["x"], at["y"]), (at["x"] + at["beat"], at["y"])])
    grid = page.evaluate("window.studio.roll.grid")
    assert where()["start"] == round((at["start"] + 1) / grid) * grid  # a beat later, the grabbed note on the grid
    at = where()
    gesture([(at["end"], at["y"]), (at["end"] + at["beat"] / 2, at["y"])])
    resized = where()
    assert resized["duration"] > at["duration"] and (resized["start"] + resized["duration"]) % 0.25 == 0  # the end on the grid
    before = revision(page)
    page.fill("#roll-velocity", "40")
    page.press("#roll-velocity", "Enter")
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    assert where()["velocity"] == 40
    before, count = revision(page), page.evaluate("window.studio.roll.notes.length")
    page.locator(".roll-scroll").focus()
    page.keyboard.press("Delete")
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    assert page.evaluate("window.studio.roll.notes.length") == count - 1
    before = revision(page)
    page.locator(".roll-scroll").dblclick(position={"x": at["x"] + 2.1 * at["beat"], "y": at["y"] - 4 * page.evaluate("window.studio.roll.rowHeight")})
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    assert page.evaluate("window.studio.roll.notes.length") == count
    expect(page.locator("#history li").first).to_contain_text("piano roll: add a note")
    page.locator("body").click(position={"x": 5, "y": 300})
    for _ in range(5):
        page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision === {first_edit}")

    # a drum region shows its rows by General MIDI name
    at = lane_point(page, "drums", page.evaluate("window.studio.view.tracks.find((t) => t.role === 'drums').regions.find((r) => r.notes.length).start_beat + 1"))
    page.locator(".arr-scroll").dblclick(position=at)
    rows = page.evaluate("window.studio.roll.rows.map((p) => window.studio.roll.drumNames[p])")
    assert {"Acoustic Snare", "Closed Hi-Hat"} <= set(rows) or {"Bass Drum 1"} <= set(rows)
    page.screenshot(path=str(ARTIFACTS / "4-drum-rows.png"))
    page.keyboard.press("Escape")

    # undo with the keyboard: HEAD goes back, the history says so; redo with the button
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.wait_for_function("window.studio.state.data.revision === 1")
    expect(page.locator("#history li.undone")).to_have_count(6)
    page.click("#redo")
    page.wait_for_function("window.studio.state.data.revision === 2")

    # exports download what HEAD is now (the server may still be rendering HEAD's WAV after the
    # redo — on a fresh clone compiling the engine first, which holds the interpreter for a while
    # on a loaded machine: the same generous limit as the audio exports)
    with page.expect_download(timeout=120_000) as midi:
        page.click('.exports a[data-format="mid"]')
    assert Path(midi.value.path()).read_bytes()[:4] == b"MThd"
    with page.expect_download(timeout=120_000) as xml:
        page.click('.exports a[data-format="musicxml"]')
    assert b"<score-partwise" in Path(xml.value.path()).read_bytes()
    with page.expect_download(timeout=120_000) as wav:  # rendered from HEAD on the way
        page.click('.exports a[data-format="wav"]')
    assert Path(wav.value.path()).read_bytes()[:4] == b"RIFF"
    with page.expect_download(timeout=120_000) as stems:
        page.click('.exports a[data-format="stems"]')
    with zipfile.ZipFile(stems.value.path()) as bundle:
        assert len([n for n in bundle.namelist() if n.endswith(".wav")]) >= len(view["tracks"])

    # the mixer: mute the bass (heard at once, a revision), then its effect chain gets a delay;
    # a second tab on the same song follows HEAD
    other, other_errors = open_page(browser, server, "#" + page.url.split("#", 1)[1])
    other.wait_for_function("window.studio.state.data && window.studio.state.data.revision === 2")
    bass = page.evaluate("window.studio.view.tracks.find((t) => t.role === 'bass').id")
    head = page.locator(f'#heads .head[data-track="{bass}"]')
    head.locator('button[data-act="mute"]').click()
    page.wait_for_function("window.studio.state.data.revision > 2")
    muted = revision(page)
    assert page.evaluate(f"window.studio.audio.tracks.get({json.dumps(bass)}).mute") is True
    other.wait_for_function(f"window.studio.state.data.revision === {muted} && window.studio.view.tracks.find((t) => t.id === {json.dumps(bass)}).mute")
    expect(other.locator(f'#heads .head[data-track="{bass}"] button[data-act="mute"]')).to_have_class("m on")
    assert other_errors == []
    other.close()
    head.locator('button[data-act="fx"]').click()
    expect(page.locator("#track-dialog")).to_be_visible()
    page.select_option("#track-dialog select[name=type]", "delay")
    page.click('#track-dialog button[value="add"]')
    page.wait_for_function(f"window.studio.state.data.revision > {muted}")
    expect(page.locator("#track-dialog .chain").first).to_contain_text("delay")
    page.screenshot(path=str(ARTIFACTS / "5-effect-chain.png"))
    page.keyboard.press("Escape")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    page.wait_for_function("window.studio.state.data.revision === 2")
    assert page.evaluate(f"window.studio.view.tracks.find((t) => t.id === {json.dumps(bass)}).mute") is False
    assert errors == []
    page.close()


def test_chat_plans_a_variation_heard_a_b_accepted_in_part_and_undone(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, root = served
    song = next((root / "songs").glob("session-*")).name
    page, errors = open_page(browser, server, f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 4")
    start = revision(page)

    # a structured prompt: its plan is a checklist that ticks, then a variation to review; discarded
    page.fill("#prompt", "BANDSTAND PROMPT\nMode: compose\nRoles: bass, arp\nBars: 8\nRequest: a busier bass and an arp")
    page.press("#prompt", "Enter")
    steps = page.locator(".turn").last.locator(".plan .step")
    expect(steps.first).to_be_attached()
    # the variation arrived, so the page opened its review; the chat keeps the ticked plan, every step ticked
    # (the plan may grow a step while it runs, so its length is read once the variation is there)
    expect(page.locator('[data-tab="review"][aria-selected="true"]')).to_be_visible()
    page.wait_for_function(
        "(() => { const s = [...document.querySelectorAll('.turn')].pop().querySelectorAll('.plan .step');"
        " return s.length > 0 && [...s].every((e) => e.classList.contains('completed')); })()"
    )
    page.click('[data-tab="chat"]')
    expect(steps.first).to_be_visible()
    expect(page.locator(".turn").last.locator("details.tools")).not_to_have_count(0)  # tool calls, folded per instrument
    page.screenshot(path=str(ARTIFACTS / "6-plan-ticked.png"))
    page.click('[data-tab="review"]')
    expect(page.locator("#review .phrase").first).to_be_visible()
    page.click('#review [data-act="discard"]')
    expect(page.locator("#review")).to_contain_text("No variation to review")

    # "make the bass busier": the phrases highlighted on the arrangement, before and after
    page.click('[data-tab="chat"]')
    page.fill("#prompt", "make the bass busier")
    page.press("#prompt", "Enter")
    expect(page.locator(".turn .state").last).to_contain_text("composing")
    expect(page.locator('[data-tab="review"][aria-selected="true"]')).to_be_visible()
    phrases = page.locator("#review .phrase")
    expect(phrases.first).to_be_visible()
    count = phrases.count()
    assert count >= 2 and page.evaluate("window.studio.arrangement.highlights.length") == count
    page.screenshot(path=str(ARTIFACTS / "7-variation.png"))

    # A/B while playing: B is the proposal, switched without stopping
    page.click("#play")
    page.wait_for_function("window.studio.state.player && window.studio.audio.scheduled > 0")
    bass = page.evaluate("window.studio.view.tracks.find((t) => t.role === 'bass').id")
    heard = f"window.studio.state.player.song.tracks.find((t) => t.id === {json.dumps(bass)}).notes.length"
    base_notes = page.evaluate(heard)
    page.click("#ab-b")
    proposal_notes = page.evaluate(heard)
    assert page.evaluate("window.studio.state.ab") == "B" and proposal_notes > base_notes  # busier, and heard
    page.wait_for_timeout(300)
    page.keyboard.press("a")  # back to A with the key
    assert page.evaluate(heard) == base_notes and page.evaluate("window.studio.state.player") is not None
    page.keyboard.press("Space")  # pauses — and does not also press the B button that has the focus
    assert page.evaluate("[window.studio.state.player, window.studio.state.ab]") == [None, "A"]

    # try something different, twice: the alternatives cycle, each take replacing the one before
    takes = [page.evaluate("window.studio.state.variation.variationId")]
    for letter in ("A", "B"):
        page.click('#review [data-act="again"]')
        page.wait_for_function(f"window.studio.state.variation && !{json.dumps(takes)}.includes(window.studio.state.variation.variationId)")
        takes.append(page.evaluate("window.studio.state.variation.variationId"))
        expect(page.locator("#review")).to_contain_text(f"alternative {letter}")
    expect(page.locator("#review .phrase").first).to_be_visible()
    count = page.locator("#review .phrase").count()

    # a phrase's notes before and after in the piano roll; keep only the first phrase
    page.locator("#review .phrase button[data-act=focus]").first.click()
    expect(page.locator("#roll-panel")).to_be_visible()
    assert page.evaluate("window.studio.roll.ghosts.length") > 0
    page.screenshot(path=str(ARTIFACTS / "8-phrase-before-after.png"))
    for box in page.locator("#review .phrase input[type=checkbox]").all()[1:]:
        box.uncheck()
    expect(page.locator('#review [data-act="accept"]')).to_have_text(f"Accept 1 of {count}")
    page.click('#review [data-act="accept"]')
    page.wait_for_function(f"window.studio.state.data.revision > {start}")  # a new revision (numbers never repeat)
    accepted = revision(page)
    expect(page.locator("#history li").first.locator(".rev")).to_have_text(f"r{accepted}")
    expect(page.locator("#toasts")).to_contain_text(f"accepted 1 of {count} phrases")
    assert page.evaluate("window.studio.state.variation") is None
    page.screenshot(path=str(ARTIFACTS / "9-accepted-part.png"))

    page.click("#undo")
    page.wait_for_function(f"window.studio.state.data.revision === {start}")
    expect(page.locator("#history li.undone").first).to_contain_text(f"r{accepted}")
    assert errors == []
    page.close()


def test_the_session_log_of_a_team_run_and_the_board(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, root = served
    done = subprocess.run([sys.executable, "-m", "bandstand", "team", "run", str(TEAM), "--prompt",
                           "a late-night groove in A minor", "--runs-dir", str(root / "finished")],
                          capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    finished = next((root / "finished").iterdir())
    live = root / "runs" / finished.name
    live.mkdir(parents=True)
    logs = {p.name: p.read_text().splitlines(keepends=True) for p in finished.iterdir()}
    for name, lines in logs.items():  # the run so far: everyone has started
        (live / name).write_text("".join(lines[:2]))

    page, errors = open_page(browser, server, "#/logs")
    expect(page.locator("#runs li a")).to_have_text(finished.name)
    page.click("#runs li a")
    expect(page.locator(".banner")).to_have_count(4)
    expect(page.locator('.banner[data-agent="producer"] .chip')).to_have_text("leader")
    expect(page.locator('.banner[data-agent="bass"] .chip')).to_have_text("teammate")
    for name, lines in logs.items():  # … and then the rest of it, live
        with (live / name).open("a") as fh:
            fh.write("".join(lines[2:]))
    expect(page.locator(".message-card.delegated")).to_have_count(3)
    expect(page.locator(".message-card.result")).to_have_count(3)
    expect(page.locator(".message-card.end")).to_contain_text("Team done")
    expect(page.locator('.banner[data-agent="drums"] .banner-state')).to_contain_text("stopped")
    expect(page.locator(".turn-card")).to_have_count(5)  # the leader's two turns, one per teammate
    page.screenshot(path=str(ARTIFACTS / "10-team-run.png"), full_page=True)
    page.click("#log-replay")
    expect(page.locator(".message-card.end")).to_have_count(1, timeout=30_000)

    # an agent team composing (compose --team): its stream's run log, one banner per agent
    team = subprocess.run([sys.executable, "-m", "bandstand", "compose", "funk groove in E minor", "--team", "--bars", "8",
                           "--seed", "2", "--out", str(root / "team-songs")], capture_output=True, text=True, timeout=300,
                          cwd=root, env={**os.environ, "BANDSTAND_RUNS_DIR": str(root / "runs")})
    assert team.returncode == 0, team.stderr
    log = Path(next(line for line in team.stdout.splitlines() if line.startswith("log: "))[5:])
    page.goto(f"{server.base}studio#/logs/{log.name}")
    expect(page.locator('.banner[data-agent="coordinator"] .chip')).to_have_text("coordinator")
    expect(page.locator('.banner[data-agent="mixer"] .banner-state')).to_contain_text("done")
    assert page.locator(".banner").count() >= 7  # the coordinator, an agent per instrument and per section, the mixer
    steps = page.locator(".plan-box .step")
    expect(page.locator(".plan-box .step.completed")).to_have_count(steps.count())
    expect(page.locator(".message-card.end")).to_contain_text("Done")
    page.screenshot(path=str(ARTIFACTS / "10-agent-team.png"), full_page=True)

    with Board.open(f"sqlite:///{root / 'board.db'}") as board:
        board.init("conductor")
        board.create_task("task-01")
        board.create_task("task-02")
        board.instruct("task-01", "write the bass for the chorus", conductor_session="conductor")
        board.claim("task-01", "s1")
        board.claim("task-02", "s2")
        board.backdate_heartbeat("task-02", board.clock().replace(year=board.clock().year - 1))
    page.goto(f"{server.base}studio#/board")
    expect(page.locator("#tasks tr")).to_have_count(3)
    expect(page.locator('#tasks tr[data-task="task-02"]')).to_contain_text("STALE")
    expect(page.locator("#board-messages li").first).to_contain_text("write the bass for the chorus")
    with Board.open(f"sqlite:///{root / 'board.db'}") as board:
        board.post("task-01", "status", "halfway through the chorus", from_session="s1")
    expect(page.locator("#board-messages li").first).to_contain_text("halfway through the chorus")  # live
    page.screenshot(path=str(ARTIFACTS / "11-board.png"), full_page=True)
    assert errors == []
    page.close()


def test_a_128_bar_8_track_song_stays_smooth_and_the_page_fits_420_px(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, root = served
    made = subprocess.run([sys.executable, "-m", "bandstand", "compose", "cinematic synthwave, 100 bpm", "--bars", "128",
                           "--seed", "7", "--parts", "drums,bass,chords,lead,pad,arp,percussion,counter_melody",
                           "--out", str(root / "songs"), "--no-audio", "--json"], capture_output=True, text=True,
                          timeout=300, cwd=root)
    assert made.returncode == 0, made.stderr
    song = Path(json.loads(made.stdout)["session_dir"]).name
    page, errors = open_page(browser, server, f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length === 8 && window.studio.view.bars === 128")
    notes = page.evaluate("window.studio.view.tracks.reduce((n, t) => n + t.notes.length, 0)")
    figures: dict[str, Any] = {"bars": 128, "tracks": 8, "notes": notes}
    for _ in range(3):
        page.click("#zoom-in")  # about 8 bars a screen: scrolling has room
    figures["scroll"] = page.evaluate(FRAMES, {"mode": "scroll", "frames": 240})
    figures["zoom"] = page.evaluate(FRAMES, {"mode": "zoom", "frames": 240})
    page.click("#sound")
    page.wait_for_function("window.studio.audio.running")
    page.evaluate("window.studio.state.cursor = 64")
    page.click("#play")
    page.wait_for_function("window.studio.audio.scheduled > 20")
    figures["playhead"] = page.evaluate(FRAMES, {"mode": "play", "frames": 240})
    figures["playhead_and_scroll"] = page.evaluate(FRAMES, {"mode": "scroll", "frames": 240})
    page.keyboard.press("Space")
    figures["chromium"] = browser.version
    (ARTIFACTS / "frames.json").write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures))
    for name in ("scroll", "zoom", "playhead", "playhead_and_scroll"):
        assert figures[name]["frames"] == 240 and figures[name]["p50_ms"] is not None
    assert figures["scroll"]["redraws"] > 100 and figures["zoom"]["redraws"] > 100  # it redrew as it moved
    page.screenshot(path=str(ARTIFACTS / "12-128-bars.png"))
    assert errors == []
    page.close()

    # 420 px: one column, nothing wider than the window, the transport and the chat reachable
    narrow, errors = open_page(browser, server, f"#/song/{song}", width=420, height=860)
    narrow.wait_for_function("window.studio.view && window.studio.view.tracks.length === 8")
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 420
    for control in ("#play", "#sound", "#zoom-in", "#prompt", "#send"):
        box = narrow.locator(control)
        box.scroll_into_view_if_needed()
        assert box.is_visible() and box.bounding_box()["x"] + box.bounding_box()["width"] <= 421, control
    # the arrangement scrolls sideways under its track headers; a track's fx dialog (its volume and
    # pan too) fits the window
    narrow.evaluate("window.scrollTo(0, 0)")
    scroller = narrow.evaluate("""(() => { const sc = window.studio.arrangement.scroller; sc.scrollLeft = 4000;
      return {scrolled: sc.scrollLeft, head: document.querySelector('#heads .head').getBoundingClientRect().left}; })()""")
    assert scroller["scrolled"] > 0 and scroller["head"] >= 0
    narrow.locator('#heads .head button[data-act="fx"]').first.click()
    dialog = narrow.locator("#track-dialog")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 420, box
    for control in ("#track-dialog input[data-dlg=volume]", "#track-dialog input[data-dlg=pan]", '#track-dialog button[value="add"]'):
        narrow.locator(control).scroll_into_view_if_needed()
        assert narrow.locator(control).is_visible(), control
    narrow.screenshot(path=str(ARTIFACTS / "15-420px-fx.png"))
    narrow.keyboard.press("Escape")
    narrow.evaluate("window.scrollTo(0, 0); window.studio.arrangement.scroller.scrollLeft = 0")
    narrow.screenshot(path=str(ARTIFACTS / "13-420px.png"))
    narrow.locator("#send").scroll_into_view_if_needed()
    narrow.screenshot(path=str(ARTIFACTS / "14-420px-chat.png"))
    assert errors == []
    narrow.close()


def test_the_keyboard_zooms_chooses_opens_mutes_undoes_and_a_section_loops(served: tuple[Served, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    server, root = served
    song = sorted((root / "songs").glob("session-*"), key=lambda p: p.stat().st_mtime)[0].name
    page, errors = open_page(browser, server, f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 4")
    page.locator(".arr-scroll").focus()
    before = page.evaluate("window.studio.arrangement.pxPerBeat")
    page.keyboard.press("+")
    assert page.evaluate("window.studio.arrangement.pxPerBeat") > before
    page.keyboard.press("-")
    page.keyboard.press("0")
    section = page.evaluate("(() => { const s = window.studio.view.sections[1]; return {start: s.start, end: s.end}; })()")
    x = page.evaluate(f"window.studio.arrangement.xOf({section['start']} + 0.5)")
    page.locator(".arr-scroll").click(position={"x": x, "y": 8})
    assert page.evaluate("window.studio.state.loop") == section
    page.locator(".arr-scroll").click(position={"x": x, "y": 8})
    assert page.evaluate("window.studio.state.loop") is None

    # choose a region with the arrows, open its notes with Enter, mute its track with M (a revision),
    # undo with Ctrl+Z, redo with Ctrl+Shift+Z
    page.keyboard.press("ArrowRight")
    first = page.evaluate("window.studio.arrangement.selected")
    page.keyboard.press("ArrowDown")
    chosen = page.evaluate("window.studio.arrangement.regionById(window.studio.arrangement.selected)")
    assert chosen and page.evaluate("window.studio.arrangement.selected") != first
    track = chosen["track"]["id"]
    page.keyboard.press("Enter")
    expect(page.locator("#roll-panel")).to_be_visible()
    assert page.evaluate("window.studio.roll.region.id") == chosen["region"]["id"]
    page.keyboard.press("Escape")
    expect(page.locator("#roll-panel")).to_be_hidden()
    page.locator(".arr-scroll").focus()
    before = revision(page)
    page.keyboard.press("m")
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    muted = f"window.studio.view.tracks.find((t) => t.id === {json.dumps(track)}).mute"
    assert page.evaluate(muted) is True
    page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision === {before}")
    assert page.evaluate(muted) is False
    page.keyboard.press("Control+Shift+z")
    page.wait_for_function(f"window.studio.state.data.revision > {before}")
    assert page.evaluate(muted) is True
    page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision === {before}")
    assert errors == []
    page.close()


def test_a_late_history_answer_never_puts_an_older_history_back(served: tuple[Served, Path], browser: Any) -> None:
    """Each change reads the history again, and under load the reads overlap (five quick Ctrl-Z are
    five reads): the answer to a first change's read is held until a second change's history has
    been drawn; let through then, it is older than what the page shows, and the page keeps the newer."""
    from playwright.sync_api import expect

    server, root = served
    song = sorted((root / "songs").glob("session-*"), key=lambda p: p.stat().st_mtime)[0].name
    page, errors = open_page(browser, server, f"#/song/{song}")
    page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 4")
    expect(page.locator("#history li.head")).to_have_count(1)
    track = page.evaluate("window.studio.view.tracks[0].id")
    start = revision(page)
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:  # answered by the server now, handed to the page later
        held.append((route, route.fetch()))

    page.route("**/branches", hold, times=1)
    mute = page.locator(f'#heads .head[data-track="{track}"] button[data-act="mute"]')
    mute.click()  # a revision, whose history read is held …
    page.wait_for_function(f"window.studio.state.data.revision !== {start} && window.studio.state.busy === 0")
    first = revision(page)  # (a new revision's number follows the undone ones': not always start + 1)
    for _ in range(200):  # the handler runs while the page is waited on
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    mute.click()  # … while the next change's history is read and drawn
    page.wait_for_function(f"window.studio.state.data.revision !== {first} && window.studio.state.busy === 0")
    second = revision(page)
    expect(page.locator("#history li.head")).to_have_attribute("data-revision", str(second))
    route, answer = held.pop()
    route.fulfill(response=answer)  # the older history arrives last
    page.wait_for_timeout(300)
    expect(page.locator("#history li.head")).to_have_attribute("data-revision", str(second))
    expect(page.locator("#history li.head")).to_contain_text(f"r{second}")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    page.wait_for_function(f"window.studio.state.data.revision === {start}")
    assert errors == []
    page.close()
