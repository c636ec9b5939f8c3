"""Every example in docs/api.md runs against a real `bandstand serve`: the command,
the curl lines (in order, through bash) and the Python snippet, whose output
is the text block after it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
from pathlib import Path

import mido
import pytest

from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == kind]


def test_the_doc_has_its_examples() -> None:
    assert len(blocks("console")) == 1 and len(blocks("bash")) == 2 and len(blocks("python")) == 1
    assert blocks("console")[0].strip() == "$ bandstand serve --port 0"


def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = blocks("console")[0].strip().split()[3:]
    assert args == ["--port", "0"]
    with bandstand_server("serve") as served:
        env = {**os.environ, "URL": served.base.rstrip("/"), "TOKEN": served.token}
        outputs = []
        for line in [ln for body in blocks("bash") for ln in body.splitlines() if ln.strip()]:
            done = subprocess.run(["bash", "-c", f"set -euo pipefail; {line}"], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, (line, done.stderr)
            outputs.append(done.stdout)
        assert json.loads(outputs[0])["running"] is True
        assert json.loads(outputs[1]) == {"accepted": "@GROOVE busier"}
        assert json.loads(outputs[3])["running"] is False
        assert len(mido.MidiFile(tmp_path / "jam.mid").tracks) >= 2
        assert json.loads(outputs[5])["protocolVersion"] == "1.0"

        monkeypatch.setenv("URL", env["URL"])
        monkeypatch.setenv("TOKEN", env["TOKEN"])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(blocks("python")[0], str(DOC), "exec"), {"__name__": "__doc_example__"})
    expected = blocks("text")[-1]
    assert printed.getvalue() == expected
