"""docs/studio.md's sections on editing by talking and alternatives run, in order, in one
folder (the whole page runs in tests/studio/test_docs.py; this checks what these
examples show)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "studio.md"
TEXT = DOC.read_text(encoding="utf-8")
MINE = TEXT[TEXT.index("## Directing by talking"):]
BLOCKS = re.findall(r"```(bash|python)\n(.*?)```", MINE, re.S)


@pytest.mark.slow
def test_the_editing_examples_run_and_show_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert [k for k, _ in BLOCKS] == ["bash", "bash", "bash", "python", "bash"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    monkeypatch.chdir(tmp_path)
    outputs = []
    for kind, code in BLOCKS:
        if kind == "bash":
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            assert proc.returncode == 0, proc.stderr
            outputs.append(proc.stdout)
        else:
            exec(compile(code, "docs/studio.md", "exec"), {"__name__": "__doc_example__"})
            outputs.append(capsys.readouterr().out)
    assert "redoes:    bass" in outputs[0] and "cost:      moderate" in outputs[0]
    key = json.loads((tmp_path / "key.json").read_text(encoding="utf-8"))
    assert key["cost"] == "expensive" and "drums" in key["frozen_parts"] and "drums" in key["preserved_parts"]
    assert "Glad you like it" in outputs[1] and "frozen parts are now drums" in outputs[1]
    assert "3 alternatives of the lead" in outputs[2]
    progressions = json.loads((tmp_path / "progressions.json").read_text(encoding="utf-8"))
    assert progressions["target"] == "progression" and len(progressions["alternatives"]) == 3
    assert outputs[3].startswith("expensive") or outputs[3].startswith("moderate")
    assert "Less reverb on Lead" in outputs[4] and "Mute Drums" in outputs[4] and "It is in " in outputs[4]
    why = json.loads((tmp_path / "why.json").read_text(encoding="utf-8"))
    assert why["kind"] == "answer" and why["answer"].startswith("This song has no bridge")
