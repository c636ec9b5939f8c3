"""Every example in docs/agents.md runs: Python blocks execute, TOML blocks load, commands succeed."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from bandstand.agents.config import load_config
from bandstand.cli import run
from bandstand.runtime.teamfile import parse_team

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "agents.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(DOC.read_text()) if kind == lang]


def test_the_doc_has_examples_of_each_kind() -> None:
    assert len(blocks("python")) == 2 and len(blocks("toml")) == 3 and len(blocks("bash")) == 2


def test_python_examples_run() -> None:
    printed = []
    for code in blocks("python"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
        printed.append(out.getvalue().splitlines())
    assert printed == [
        ['{"pattern": "s(\\"bd*5\\")", "thoughts": "turn 0"}', 'ok s("bd*5") 2'],
        ["set_tempo {'bpm': 96}", "Done: tempo is 96 BPM"],
    ]


def test_toml_examples_load(tmp_path) -> None:
    config_text, team_text, native_text = blocks("toml")
    path = tmp_path / "bandstand.toml"
    path.write_text(config_text)
    config = load_config(path, env={})
    assert config.openai.base_url == "http://localhost:11434/v1" and config.breaker.threshold == 5
    team = parse_team(team_text)
    assert team.leader == "producer" and team.members["bass"].backend == "claude-code"
    native = parse_team(native_text)
    assert native.mode == "claude-code" and native.teammates == ["bass"]


@pytest.mark.parametrize(
    "line", [ln for b in blocks("bash") for ln in b.splitlines() if ln.startswith("bandstand ")]
)
def test_commands_run(line: str, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    assert run(shlex.split(line)[1:]) == 0
    assert capsys.readouterr().out.strip()
