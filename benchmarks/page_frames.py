"""The pages' frame times while playing, and the studio's first sound after ▶, in a browser.

Headless Debian chromium through Playwright against a real `bandstand serve` (the studio page with a
composed 128-bar, 8-part song, playing from bar 17) and a real `bandstand jam` (the jam page with
the four default members, playing): the time between animation frames (requestAnimationFrame
deltas) over `--seconds`, as p50 / p95 / max and the share of frames over 20 ms, with what the page
did meanwhile (Chromium's own counts: layouts, style recalculations, main-thread task time — figures a
busy machine does not change, unlike the frame times); and for the studio
the time from the click on ▶ to the first note heard (the SoundFont preloaded on page open) and
what it waited for (the synthesizer's load before the click, the context's start after it).

    python benchmarks/page_frames.py [--seconds 5]      # prints JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

PROMPT = "bright pop song in E major, 112 bpm"
PARTS = "drums,bass,chords,lead,pad,arp,percussion,counter_melody"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"

# requestAnimationFrame deltas (ms) over `ms` milliseconds.
FRAMES = """(ms) => new Promise((resolve) => { const deltas = []; let last = null, end = null;
  const tick = (t) => { if (last !== null) deltas.push(t - last); else end = t + ms; last = t;
    if (t < end) requestAnimationFrame(tick); else resolve(deltas); };
  requestAnimationFrame(tick); })"""

FIRST_SOUND = """() => { const audio = window.studio.audio, note = audio.note.bind(audio);
  window.firstNote = null; window.heardAt = null;
  audio.note = (id, key, velocity, when, ...rest) => { const ok = note(id, key, velocity, when, ...rest);
    if (ok && (window.firstNote === null || when < window.firstNote)) window.firstNote = when; return ok; };
  document.getElementById('play').addEventListener('click', () => { window.clickedAt = performance.now(); }, {capture: true});
  const watch = () => { if (window.firstNote !== null && audio.heardNow() >= window.firstNote) window.heardAt = performance.now();
    else requestAnimationFrame(watch); };
  requestAnimationFrame(watch); }"""


def metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def measured(page: Any, seconds: float) -> dict[str, Any]:
    """The frame times over `seconds`, and the layouts, style recalculations and task time in them."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    before = metrics(cdp)
    deltas = page.evaluate(FRAMES, int(seconds * 1000))
    after = metrics(cdp)
    return {**summary(deltas), "layouts": int(after["LayoutCount"] - before["LayoutCount"]),
            "style_recalcs": int(after["RecalcStyleCount"] - before["RecalcStyleCount"]),
            "task_s": round(after["TaskDuration"] - before["TaskDuration"], 3)}


def summary(deltas: list[float]) -> dict[str, Any]:
    ordered = sorted(deltas)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {"frames": len(ordered), "p50_ms": at(0.5), "p95_ms": at(0.95), "max_ms": round(ordered[-1], 1),
            "over_20ms": round(sum(d > 20 for d in ordered) / len(ordered), 3)}


@contextmanager
def server(*args: str, cwd: Path) -> Iterator[tuple[str, str]]:
    """`bandstand ARGS --port 0`: (its base URL, its API token)."""
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", *args, "--port", "0"], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert proc.stdout is not None
        first, second = proc.stdout.readline(), proc.stdout.readline()
        base = "http://" + first.split("http://", 1)[1].split()[0].split("?", 1)[0]
        yield base, second.split("API token:", 1)[1].split()[0]
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def page_url(base: str, token: str, page: str) -> str:
    made = httpx.post(base + "api/v1/page-links", params={"page": page},
                      headers={"authorization": f"Bearer {token}"}, timeout=30)
    made.raise_for_status()
    return str(made.json()["url"])


def studio(pw: Any, chromium: str, folder: Path, seconds: float) -> dict[str, Any]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bandstand", "compose", PROMPT, "--bars", "128", "--parts", PARTS, "--seed", "5",
                    "--out", "songs"], cwd=folder, check=True, capture_output=True, timeout=900)
    composed = round(time.perf_counter() - started, 1)
    song = next((folder / "songs").glob("session-*")).name
    with server("serve", "--out", "songs", "--runs-dir", "runs", cwd=folder) as (base, token):
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS, headless=True)  # ▶ is the gesture
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(page_url(base, token, "studio") + f"#/song/{song}")
            page.wait_for_function("window.studio.view && window.studio.view.tracks.length >= 8", timeout=120_000)
            page.wait_for_function("window.studio.audio.preloadMs !== undefined", timeout=120_000)
            page.evaluate("window.studio.transport.seek(64)")
            page.evaluate(FIRST_SOUND)
            page.click("#play")
            page.wait_for_function("window.heardAt !== null", timeout=60_000)
            first = page.evaluate("""({first_sound_ms: Math.round(window.heardAt - window.clickedAt),
              enable_ms: Math.round(window.studio.audio.enableMs), preload_ms: Math.round(window.studio.audio.preloadMs),
              mode: window.studio.audio.mode})""")
            frames = measured(page, seconds)
            tracks = page.evaluate("window.studio.view.tracks.length")
            bars = page.evaluate("window.studio.view.bars")
            page.click("#play")
        finally:
            browser.close()
    return {"bars": bars, "tracks": tracks, "compose_s": composed, **first, "frames": frames}


def jam(pw: Any, chromium: str, folder: Path, seconds: float) -> dict[str, Any]:
    with server("jam", "--no-browser", cwd=folder) as (base, token):
        browser = pw.chromium.launch(executable_path=chromium, args=[*ARGS, AUTOPLAY], headless=True)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(page_url(base, token, "jam"))
            page.wait_for_function("document.getElementById('conn').textContent === 'connected'", timeout=60_000)
            page.click("#start")
            page.wait_for_function("window.bandstand.audio.running && window.bandstand.audio.scheduled > 20", timeout=120_000)
            members = page.evaluate("Object.keys(window.bandstand.state.members || {}).length")
            frames = measured(page, seconds)
            page.click("#stop")
        finally:
            browser.close()
    return {"members": members, "frames": frames}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("BANDSTAND_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory(prefix="page-frames-") as tmp, sync_playwright() as pw:
        root = Path(tmp)
        (root / "studio").mkdir()
        (root / "jam").mkdir()
        result = {"seconds": args.seconds, "studio": studio(pw, chromium, root / "studio", args.seconds),
                  "jam": jam(pw, chromium, root / "jam", args.seconds)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
