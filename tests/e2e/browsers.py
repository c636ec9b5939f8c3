"""The one way the browser tests start Debian's Chromium under Playwright: found (or the
test skipped — failed in CI), headless, with the flags a sandboxed machine needs."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync")
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"
"""For pages whose sound is not what the test is about (the audio tests click, as a person must)."""

# For the jam page: the first cycle a tab was sent is the one playing when it connected (or the
# next), not an older one: `late` is how far the socket opened past the end of the cycle after it,
# less a quarter second. The tests allow less than one more cycle: a busy browser may run `onopen`
# late — seen 0.09 s and 0.06 s on a loaded CI machine — while the jam's first cycle, after the
# four the tests wait for, is at least two cycles behind.
JOINED = """() => {
  const first = window.bandstand.messages.find((m) => m.type === "events");
  return {cycle: first.cycle, cycle_seconds: first.cycle_seconds,
          late: window.bandstand.state.connectedAt - (first.at + 2 * first.cycle_seconds) - 0.25};
}"""


def chromium() -> str:
    found = os.environ.get("BANDSTAND_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(found).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing in CI: scripts/setup.d/chromium.sh should install it")
        pytest.skip("Debian's chromium is not installed (scripts/setup.d/chromium.sh installs it)")
    return found


@contextmanager
def launched(artifacts: Path, *, timeout_ms: int = 20_000, extra: Sequence[str] = ()) -> Iterator[Any]:
    """A headless Chromium for one test module (expectations wait `timeout_ms`: CI machines
    can be busy); `artifacts` is made for its screenshots."""
    from playwright.sync_api import expect, sync_playwright

    executable = chromium()
    expect.set_options(timeout=timeout_ms)
    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=[*ARGS, *extra], headless=True)
        try:
            yield browser
        finally:
            browser.close()
