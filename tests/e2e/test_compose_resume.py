"""Kill a real `compose` process with SIGKILL inside each of the eight stages, resume it
with the real `bandstand resume` command, and compare every file with an
uninterrupted run of the same prompt and seed."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.compose.checkpoint import FileCheckpoint

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROMPT = "Frank Ocean meets Burial, late-night vibes"
ARGS = ["--seed", "7", "--bars", "16", "--no-audio"]

# Runs the real stage k, then dies before the engine can checkpoint it.
KILLER = """
import os, signal, sys
from bandstand.compose.api import Pipeline
from bandstand.compose.stages import build_nodes

stage, out = int(sys.argv[1]), sys.argv[2]
real = build_nodes()[stage].run

def die_inside(ctx):
    real(ctx)
    os.kill(os.getpid(), signal.SIGKILL)

pipeline = Pipeline.create(sys.argv[3], handlers={stage: die_inside}, seed=7, bars=16, out_dir=out, render_audio=False)
print(pipeline.session_dir, flush=True)
pipeline.run()
"""


def bandstand(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=180,
                          check=False)


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in ("midi", "progression", "notes", "images") for p in sorted((root / folder).glob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("reference")
    proc = bandstand("compose", PROMPT, *ARGS, "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    files = digest(Path(json.loads(proc.stdout)["session_dir"]))
    assert "midi/full-arrangement.mid" in files and "images/pianoroll.png" in files
    return files


@pytest.mark.parametrize("stage", range(1, 9))
def test_sigkill_inside_each_stage_then_resume_gives_identical_files(tmp_path: Path, stage: int,
                                                                      reference: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLER, str(stage), str(tmp_path), PROMPT], capture_output=True,
                          text=True, timeout=180, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    session = Path(proc.stdout.strip())
    # Checkpoints are written in the background, the previous one renamed to .bak first: the
    # last durable one (main file, or the .bak if the kill fell between the two) is ≤ stage - 1.
    state = FileCheckpoint.in_session(session).load()
    assert state.recovery.last_successful_stage <= stage - 1
    # Stage 8 writes the manifest last; killed anywhere before, the folder is unfinished.
    assert (session / "manifest.json").exists() == (stage == 8)

    resumed = bandstand("resume", str(session), "--json")
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["status"] == "completed"
    final = json.loads((session / "state" / "pipeline-state.json").read_text(encoding="utf-8"))
    assert final["recovery"]["is_resumed"] is True
    assert digest(session) == reference
    assert not list(session.rglob("*.tmp"))
    assert (session / "manifest.json").exists()
    assert os.path.getsize(session / "manifest.json") > 0
