"""docs/board.md's launcher and gate commands run as written, and every `bandstand board` command
the shipped skills name exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "board.md"
SHELL = re.findall(r"```shell\n(.*?)```", DOC.read_text(), re.S)
SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "PYTHONPATH": str(SRC), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_the_launcher_example_runs(tmp_path: Path) -> None:
    launch, listing = next(b for b in SHELL if " launch " in b).strip().splitlines()
    run = subprocess.run(["bash", "-c", launch], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:6] == [f"task-{k:02d}: complete (musician-task-{k:02d})" for k in range(1, 7)]
    assert "6/6 complete" in run.stderr.splitlines()[-1]
    shown = subprocess.run(["bash", "-c", listing], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.count(" complete ") == 7  # the six and the conductor
    assert sorted(p.name for p in (tmp_path / "band" / "output" / "board").iterdir() if p.name.startswith("task")) \
        == [f"task-{k:02d}" for k in range(1, 7)]


def test_the_gate_examples_run(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    (demo / "band").mkdir(parents=True)
    (demo / "band" / "__init__.py").write_text("")
    (demo / "band" / "time.py").write_text("def beats(bars, metre=4):\n    return bars * metre\n")
    (demo / "tests").mkdir()
    (demo / "tests" / "test_time.py").write_text("from band.time import beats\n\n"
                                                  "def test_beats():\n    assert beats(2) == 8\n")
    for line in next(b for b in SHELL if "check-coverage" in b).strip().splitlines():
        run = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
    status = (demo / "temp" / "task-01-status").read_text()
    assert "check coverage: 100.0% (gate 80%) passed" in status and "check flaky: passed" in status


def _skill_commands() -> set[str]:
    from bandstand.board.skilltext import skill

    spans = [s.removeprefix("bandstand board ") for s in re.findall(r"`([^`]+)`", skill("musician") + skill("conductor"))]
    return {span.split()[0] for span in spans if " " in span and re.fullmatch(r"[a-z][a-z-]*", span.split()[0])}


@pytest.mark.parametrize("command", sorted(_skill_commands()))
def test_every_command_a_skill_names_exists(command: str) -> None:
    from bandstand.cli import run

    assert run(["board", command, "--help"]) == 0


def test_the_skills_name_the_protocol() -> None:
    from bandstand.board.skilltext import launch_prompt, skill

    assert {"claim", "heartbeat", "request-review", "report-completion", "handoff", "check-coverage",
            "check-flaky"} <= _skill_commands()
    assert {"approve", "reject", "propose-fix", "request-exit", "create", "instruct"} <= _skill_commands()
    prompt = launch_prompt(role="musician", name="musician-task-01", session_id="s1", board="sqlite:///b.db",
                           task_id="task-01", workdir="w", instruction="  write a bass line {not a field}\n")
    assert "You are musician-task-01, a musician on the bandstand board sqlite:///b.db, session s1." in prompt
    assert "Task: task-01" in prompt and "write a bass line {not a field}\nWhen" not in prompt
    assert "write a bass line {not a field}" in prompt
    with pytest.raises(Exception, match="the roles are musician, conductor"):
        skill("drummer")


def test_the_launch_prompt_never_shows_a_password() -> None:
    from bandstand.board.skilltext import launch_prompt

    prompt = launch_prompt(role="conductor", name="the Conductor", session_id="c", task_id="task-00", workdir=".",
                           board="postgresql://band:s3cret@db.example:5432/board", instruction="conduct")
    assert "s3cret" not in prompt and "db.example:5432/board" in prompt


def test_the_model_backed_example_runs(tmp_path: Path) -> None:
    """The board-tools example against a local OpenAI-compatible server whose scripted model calls the tools."""
    from tests.peers.board_model import BoardOpenAI

    launch, messages = next(b for b in SHELL if "--backend openai" in b).strip().splitlines()
    with BoardOpenAI() as server:
        env = {**_env(), "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": "test-key",
               "BANDSTAND_OPENAI_MODEL": "local"}
        run = subprocess.run(["bash", "-c", launch], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:3] == [f"task-{k:02d}: complete (musician-task-{k:02d})" for k in range(1, 4)]
    shown = subprocess.run(["bash", "-c", messages], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    for kind in ("result", "review_request", "approval", "resumption", "completion", "completion_ack"):
        assert kind in shown.stdout
    assert sorted(p.name for p in (tmp_path / "tools" / "temp" / "sessions").iterdir())  # the sessions' logs
