"""docs/teams.md: the shell session runs as written and prints what the page shows, the
configuration is a valid [agents.team], and the Python example runs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "teams.md"
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def block(lang: str) -> str:
    return next(body for kind, body in BLOCKS if kind == lang)


def shape(line: str) -> re.Pattern[str]:
    """A shown line as a pattern: numbers, ids and kick patterns may differ, the words may not."""
    parts = []
    for kick, ident, number, text in re.findall(r"([x.]{16})|\b([0-9a-f]{8,})\b|(\d+(?:\.\d+)?)|(.)", line.strip()):
        parts.append(r"[x.]{16}" if kick else r"[0-9a-f]+" if ident else r"\d+(?:\.\d+)?" if number
                     else re.escape(text))
    return re.compile("".join(parts))


def test_the_shell_session_runs_and_prints_what_the_page_shows(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    run = subprocess.run(["bash", "-c", "set -e\n" + block("bash")], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    for line in block("text").strip().splitlines():
        assert any(shape(line).fullmatch(said.strip()) for said in run.stderr.splitlines()), line
    outcome = json.loads((tmp_path / "team.json").read_text())
    assert outcome["accepted"] is True and outcome["revision"] == 2
    session = next((tmp_path / "songs").iterdir())
    assert json.loads((session / "manifest.json").read_text())["revision"] == 2  # accepted by the second line


def test_the_configuration_is_a_team(tmp_path: Path) -> None:
    from bandstand.agents.config import load_config

    (tmp_path / "bandstand.toml").write_text(block("toml"))
    team = load_config(tmp_path / "bandstand.toml").team
    assert (team.deadline, team.seat_timeout, team.section_timeout, team.signal_timeout, team.max_parallel) == \
        (600, 60, 120, 20, 4)
    assert {r: s.backend for r, s in team.seats.items()} == {"bass": "openai", "lead": "anthropic"}


def test_the_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        exec(compile(block("python"), str(DOC), "exec"), {})
    lines = said.getvalue().splitlines()
    assert "sections in 5 parts" in lines[0] and "accepted" in lines[0]
    role, _, contract, execution = lines[1].split()[:4]
    assert role in {"drums", "bass", "chords", "lead", "pad"} and len(contract) == len(execution) == 12 and "'backend': 'builtin'" in lines[1]
    assert lines[2] == "['bass', 'chords', 'coordinator', 'drums', 'lead', 'mixer', 'pad']"
