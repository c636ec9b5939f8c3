"""Kill a real `compose` process with SIGKILL inside each step of the graph (inside one
part node for the parts), resume it with the real `bandstand resume` command, and
compare every file with an uninterrupted run of the same prompt and seed."""

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
from bandstand.compose.state import STEPS

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROMPT = "Frank Ocean meets Burial, late-night vibes"
ARGS = ["--seed", "7", "--bars", "16", "--no-audio"]

# Runs the real node, then dies before the engine can checkpoint it ("parts": inside the
# bass part, while the other parts run beside it).
KILLER = """
import os, signal, sys
from bandstand.compose.api import Pipeline
from bandstand.compose.stages import build_graph, default_part

node, out = sys.argv[1], sys.argv[2]

def die_after(result):
    os.kill(os.getpid(), signal.SIGKILL)
    return result

if node == "parts":
    def part(role, *args):
        result = default_part(role, *args)
        return die_after(result) if role == "bass" else result
    handlers = {"part": part}
else:
    real = build_graph().item(node).run
    handlers = {node: lambda ctx: die_after(real(ctx))}

pipeline = Pipeline.create(sys.argv[3], handlers=handlers, seed=7, bars=16, out_dir=out, render_audio=False)
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


@pytest.mark.parametrize("node", STEPS)
def test_sigkill_inside_each_step_then_resume_gives_identical_files(tmp_path: Path, node: str,
                                                                     reference: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLER, node, str(tmp_path), PROMPT], capture_output=True,
                          text=True, timeout=180, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    session = Path(proc.stdout.strip())
    # Checkpoints are written in the background, the previous one renamed to .bak first: the
    # last durable one (main file, or the .bak if the kill fell between the two) never has the
    # killed node completed.
    state = FileCheckpoint.in_session(session).load()
    killed = "parts:bass" if node == "parts" else node
    assert killed not in state.nodes or state.nodes[killed].status != "completed"
    # The output node writes the manifest last; killed anywhere before, the folder is unfinished.
    assert (session / "manifest.json").exists() == (node == "output")

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
