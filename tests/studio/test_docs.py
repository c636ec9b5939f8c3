"""docs/studio.md runs: its examples, in order, in one folder (a tutorial builds on
itself) — the bash blocks in a real shell with the installed `bandstand`, the Python
blocks in this interpreter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "studio.md"
BLOCKS = re.findall(r"```(bash|python)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_every_example_runs_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert [k for k, _ in BLOCKS].count("bash") >= 4 and [k for k, _ in BLOCKS].count("python") >= 2
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    monkeypatch.chdir(tmp_path)
    printed = []
    for i, (kind, code) in enumerate(BLOCKS):
        if kind == "bash":
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            assert proc.returncode == 0, f"block {i}: {proc.stderr}"
        else:
            exec(compile(code, f"docs/studio.md block {i}", "exec"), {"__name__": "__doc_example__"})
            printed.append(capsys.readouterr().out)
    (session,) = (tmp_path / "output").glob("session-*")
    project = json.loads((tmp_path / "project.json").read_text(encoding="utf-8"))
    tracks = {t["name"]: t for t in project["results"][0]["result"]["project"]["tracks"]}
    assert tracks["Bass"]["volume"] == 0.7 and tracks["Lead"]["inserts"][-1]["type"] == "delay"
    assert tracks["Chords"]["sends"][0]["bus"] == "Reverb"
    history = json.loads((tmp_path / "history.json").read_text(encoding="utf-8"))
    assert [r["undone"] for r in history][-2:] == [True, True]
    assert printed[0].startswith("ready ") and "bass: " not in printed[0] and "notes" in printed[0]
    variations = json.loads((tmp_path / "variations.json").read_text(encoding="utf-8"))
    assert variations[-1]["state"] == "ready" and variations[-1]["diff"]["drums"] == "unchanged"
    audition = json.loads((tmp_path / "audition.json").read_text(encoding="utf-8"))
    assert Path(audition["proposal_wav"]).is_file()
    manifest = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["revision"] == 5  # compose, 3 tools (ensure_bus finds the Reverb bus compose made; one undone and redone, one left undone), the accept
    assert printed[1].splitlines()[-1] == "True"
