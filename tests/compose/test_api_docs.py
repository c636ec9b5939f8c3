"""Every example in docs/compose.md runs: the bash blocks in a real shell with the
installed `bandstand`, the Python blocks in this interpreter, each in a fresh folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "compose.md"
BLOCKS = re.findall(r"```(bash|python)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_doc_has_examples() -> None:
    kinds = [k for k, _ in BLOCKS]
    assert kinds.count("bash") >= 3 and kinds.count("python") >= 2


@pytest.mark.parametrize("index", [i for i, (k, _) in enumerate(BLOCKS) if k == "bash"])
def test_bash_example(index: int, tmp_path: Path) -> None:
    code = BLOCKS[index][1]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    sessions = sorted((tmp_path / "output").glob("session-*"))
    assert sessions and all((s / "manifest.json").exists() for s in sessions)
    if (tmp_path / "result.json").exists():
        assert json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))["status"] == "completed"


@pytest.mark.parametrize("index", [i for i, (k, _) in enumerate(BLOCKS) if k == "python"])
def test_python_example(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index][1], f"docs/compose.md block {index}", "exec"), {"__name__": "__doc_example__"})
    out = capsys.readouterr().out
    assert "completed" in out
    assert list((tmp_path / "output").glob("session-*/manifest.json"))
