"""Issue #30, the best of several takes across a resume: a compose whose quality gate fails is
stopped mid-retry — a real process killed with SIGKILL while the drums are being drawn again, or
paused at an approval gate after each round — and resumed; the take kept is the best one the gate
judged, even when that take was judged before the stop, and the manifest lists every take with its
score. The takes the gate judged wait in the session's `state/takes/` (the checkpoint's folder)
and are gone once the gate has decided.

The band is test_30_quality_retry's, with the real sloppy drummer: every take of the drums fails
the gate the same way, and the first take is the best (the session keeps it when nothing stops
the run)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bandstand.compose.api import Pipeline, compose
from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.compose.state import PARTS
from tests.issues.test_30_quality_retry import PROMPT, SEED, _drummer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
OPTIONS: dict[str, Any] = {"seed": SEED, "bars": 16, "render_audio": False, "render_pianoroll": False}

# Composes with the sloppy drummer and, on the drums' draw `die_on` (2: round 1's redraw), waits
# until the checkpoint counting the takes judged so far is on disk (it is written in the
# background), then dies. "resume" runs the session on in a new process, the same band playing.
SCRIPT = """
import json, os, signal, sys, time
from pathlib import Path
from bandstand.compose.api import Pipeline
from tests.issues.test_30_quality_retry import PROMPT, SEED, _drummer

mode, where, takes, die_on = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sloppy, calls, session = _drummer(None), [0], [None]

def part(role, *args):
    if role == "drums" and mode == "kill":
        calls[0] += 1
        if calls[0] == (die_on - 1) * takes + 1:  # the draw's first take
            state = Path(session[0]) / "state" / "pipeline-state.json"
            end = time.monotonic() + 60
            while time.monotonic() < end:
                try:
                    judged = (json.loads(state.read_text()).get("quality_retries") or {}).get("takes", [])
                except (OSError, ValueError):  # between the rename to .bak and the new file
                    judged = []
                if len(judged) == die_on - 1:
                    break
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGKILL)
    return sloppy(role, *args)

if mode == "kill":
    pipeline = Pipeline.create(PROMPT, handlers={"part": part}, seed=SEED, bars=16, out_dir=where, takes=takes,
                               render_audio=False, render_pianoroll=False)
    session[0] = pipeline.session_dir
    print(pipeline.session_dir, flush=True)
else:
    pipeline = Pipeline.load(where, handlers={"part": part})
print(pipeline.run().status, flush=True)
"""


def _script(*args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", SCRIPT, *map(str, args)], capture_output=True, text=True,
                          timeout=180, check=False, cwd=ROOT, env=env)


def _midi(session: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((session / "midi").glob("*.mid"))}


def _manifest(session: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The sessions nothing stopped, with one take of each part and with four."""
    out = tmp_path_factory.mktemp("reference")
    sessions = {}
    for takes in (1, 4):
        result = compose(PROMPT, **OPTIONS, takes=takes, out_dir=str(out / str(takes)), handlers={"part": _drummer(None)})
        assert result.status == "completed_partial"
        sessions[takes] = Path(result.session_dir)
    kept = _manifest(sessions[1])["quality_retries"]
    assert kept["kept"] == 0 and len(kept["takes"]) == 3  # the first take is the best: what a resume must keep
    return sessions


def _check_kept_over_every_take(session: Path, reference: Path) -> dict[str, Any]:
    manifest, expected = _manifest(session), _manifest(reference)
    retries = manifest["quality_retries"]
    assert retries == expected["quality_retries"]  # every take with its score, the same take kept
    scores = [t["quality"] for t in retries["takes"]]
    assert len(scores) == 3 and retries["kept"] == scores.index(max(scores))  # the best, the earliest of equals
    assert f"kept the best (take {retries['kept'] + 1}," in retries["report"]
    assert manifest["quality"] == expected["quality"]
    assert _midi(session) == _midi(reference)  # the song is the first take's, note for note
    state = FileCheckpoint.in_session(session).load()
    assert state.nodes[f"{PARTS}:drums"].variant == retries["kept"] * state.config.takes
    assert state.nodes["validation"].quality_score == max(scores)
    assert not (session / "state" / "takes").exists()  # the gate has decided: its takes are cleaned
    return manifest


@pytest.mark.parametrize("die_on", [2, 3])
def test_killed_mid_retry_then_resumed_keeps_the_best_take_judged_before_the_kill(
        tmp_path: Path, reference: dict[int, Path], die_on: int) -> None:
    killed = _script("kill", tmp_path, 1, die_on)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    session = Path(killed.stdout.split()[0])
    state = FileCheckpoint.in_session(session).load()
    assert state.quality_retries is not None and state.quality_retries.kept is None
    assert len(state.quality_retries.takes) == die_on - 1
    assert sorted(p.name for p in (session / "state" / "takes").iterdir()) == [
        f"take-{k}.json" for k in range(1, die_on)]

    resumed = _script("resume", session, 1, 0)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split()[-1] == "completed_partial"
    assert _check_kept_over_every_take(session, reference[1])["quality_retries"]["kept"] == 0


def test_four_takes_of_each_part_killed_and_resumed_keep_the_best_of_all_and_list_every_score(
        tmp_path: Path, reference: dict[int, Path]) -> None:
    """Each draw of the drums makes four takes and keeps its best; each redraw makes four new
    ones (seed variants 4–7, then 8–11), and the gate keeps the best draw: the second, judged
    before the kill."""
    killed = _script("kill", tmp_path, 4, 3)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    session = Path(killed.stdout.split()[0])
    assert _script("resume", session, 4, 0).returncode == 0
    manifest = _check_kept_over_every_take(session, reference[4])
    assert manifest["quality_retries"]["kept"] == 1
    assert len({t["quality"] for t in manifest["quality_retries"]["takes"]}) == 3  # three different songs
    parts = manifest["takes"]["parts"]
    assert manifest["takes"]["count"] == 4 and set(parts) == set(_manifest(reference[4])["takes"]["parts"])
    for role, take in parts.items():  # every part: four takes scored, the best of them kept
        assert len(take["scores"]) == 4, role
        assert take["kept"] == max(range(4), key=lambda k: (take["scores"][k], -k)), role
    assert parts == _manifest(reference[4])["takes"]["parts"]


def test_paused_after_every_round_and_resumed_keeps_the_best_take(tmp_path: Path,
                                                                   reference: dict[int, Path]) -> None:
    """Paused at the parts after each draw; each resume is a new pipeline over the checkpoint,
    so no take the gate judged is in memory when it decides."""
    handlers = {"part": _drummer(None)}
    pipeline = Pipeline.create(PROMPT, **OPTIONS, out_dir=str(tmp_path), approval_gates=["parts"], handlers=handlers)
    status = pipeline.run().status
    pauses = 0
    while status == "paused":
        pauses += 1
        assert pauses <= 3
        again = Pipeline.load(pipeline.session_dir, handlers=handlers)
        again.approve()
        status = again.run().status
    assert pauses == 3 and status == "completed_partial"
    assert _check_kept_over_every_take(pipeline.session_dir, reference[1])["quality_retries"]["kept"] == 0
