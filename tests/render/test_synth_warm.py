"""`synth.warm`: the synthesizer made ready on a thread before a render, which then finds it
done; a wrong configuration starts nothing (the render says what is wrong)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.render import synth


def test_a_wrong_engine_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(synth.ENGINE_ENV, "no-such-engine")
    assert synth.warm() is None


def test_no_soundfont_starts_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BANDSTAND_SOUNDFONT", str(tmp_path / "missing.sf2"))
    assert synth.warm() is None


def test_warm_then_render_in_a_fresh_process() -> None:
    """In a new process: warm() loads the engine and the table on its thread while the main
    thread goes on; a render started before it finishes waits for it (one load, not two) and
    plays the same audio as a render without warming."""
    code = """
import numpy as np
from bandstand.render import synth
from bandstand.render.sf2 import engine
from bandstand.score import Note, Song, Track

song = Song(tempo=120.0, tracks=[Track("Keys", "keys", program=0,
                                       notes=[Note(float(k), 1.0, 60 + k, 90) for k in range(4)])])
thread = synth.warm()
assert thread is not None
cold = synth.synthesize_dry(song, workers=1).audio   # may start while warm() still works: waits for it
thread.join(timeout=120)
assert not thread.is_alive()
if synth.engine_name() == "compiled":
    assert len(engine._LOADED) == 1, engine._LOADED
again = synth.synthesize_dry(song, workers=1).audio
assert np.array_equal(cold, again)
print("ok", synth.engine_name())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok")


def test_a_render_waiting_for_the_warm_up_says_so_until_it_is_done() -> None:
    """While `warm` holds the synthesizer (another thread loading it on a starved CPU), a render
    that was given `progress` hears "loading the synthesizer" every half second — what keeps a
    compose node's stall limit from firing — and goes on once it is done."""
    import threading
    import time

    said: list[str] = []
    held = threading.Event()

    def loader() -> None:
        with synth._READY:
            held.set()
            time.sleep(1.6)

    thread = threading.Thread(target=loader)
    thread.start()
    held.wait(10)
    synth.wait_warm(said.append)
    thread.join()
    assert len(said) >= 2 and set(said) == {"loading the synthesizer"}
    said.clear()
    synth.wait_warm(said.append)  # nothing loading: no wait, nothing said
    assert said == []


def test_numba_is_imported_on_the_warm_up_thread_not_the_callers() -> None:
    """numba's import is most of a warm-up's cost where nothing is kept as machine code: it
    happens on the warm-up thread, so the caller (a compose writing its parts) goes on at once."""
    code = """
import sys, threading
from bandstand.render import synth

importers = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            importers.append(threading.current_thread().name)
        return None

sys.meta_path.insert(0, Spy())
assert "numba" not in sys.modules
thread = synth.warm()
assert thread is not None
thread.join(timeout=120)
print(importers)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    # numba imported, or only looked for (its C helpers, for the machine code kept by an earlier
    # process: `bandstand.render.native`) — on the warm-up thread either way, or not at all
    assert set(ast.literal_eval(done.stdout.strip())) <= {"bandstand-render-warm"}, done.stdout
