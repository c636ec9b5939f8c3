"""Every example in docs/api.md runs against a real `bandstand serve`: the command,
the jam's curl lines (one by one, through bash), the studio's curl examples
(each block one bash script, its output the text block after it — the stream's
transcript equal but for the ids a run makes up) and the Python snippets, whose
output is the text block after each."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import mido
import pytest

from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
MADE_UP = ("traceId", "projectId", "planId", "id")
"""Fields whose values a run makes up (compared as present, not by value)."""


def all_blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def blocks(kind: str) -> list[str]:
    return [body for lang, body in all_blocks() if lang == kind]


def with_output(kind: str) -> list[tuple[str, str]]:
    """(example, the text block right after it) for every `kind` block that has one."""
    found = all_blocks()
    return [(body, after) for (lang, body), (next_lang, after) in itertools.pairwise(found)
            if lang == kind and next_lang == "text"]


def events(sse: str) -> list[dict[str, Any]]:
    """The events of an SSE text, the made-up values blanked; each `id:` is its event's seq."""
    found, ids = [], []
    for line in sse.splitlines():
        if line.startswith("id: "):
            ids.append(int(line[4:]))
        elif line.startswith("data: "):
            event = json.loads(line[6:])
            found.append({k: ("…" if k in MADE_UP and v is not None else v) for k, v in event.items()})
    assert ids == [e["seq"] for e in found]
    return found


def test_the_doc_has_its_examples() -> None:
    assert len(blocks("console")) == 1 and len(blocks("bash")) == 4 and len(blocks("python")) == 2
    assert blocks("console")[0].strip() == "$ bandstand serve --port 0"
    assert len(with_output("bash")) == 2 and len(with_output("python")) == 2


def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = blocks("console")[0].strip().split()[3:]
    assert args == ["--port", "0"]
    with bandstand_server("serve", "--out", str(tmp_path / "projects")) as served:
        env = {**os.environ, "URL": served.base.rstrip("/"), "TOKEN": served.token}

        def bash(script: str) -> str:
            done = subprocess.run(["bash", "-c", f"set -euo pipefail\n{script}"], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (script, done.stderr)
            return done.stdout

        jam, *_, protocol = blocks("bash")
        outputs = [bash(line) for line in jam.splitlines() if line.strip()]
        assert json.loads(outputs[0])["running"] is True
        assert json.loads(outputs[1]) == {"accepted": "@GROOVE busier"}
        assert json.loads(outputs[2])["context"]["bpm"] == 100
        assert json.loads(outputs[4])["running"] is False
        assert len(mido.MidiFile(tmp_path / "jam.mid").tracks) >= 2
        assert json.loads(bash(protocol))["protocolVersion"] == "1.0"

        [(stream, transcript), (preview, plan)] = with_output("bash")
        said = events(bash(stream))
        assert said == events(transcript) and said[-1]["success"] is True
        assert bash(preview) == plan

        monkeypatch.setenv("URL", env["URL"])
        monkeypatch.setenv("TOKEN", env["TOKEN"])
        for code, expected in with_output("python"):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
            assert printed.getvalue() == expected
