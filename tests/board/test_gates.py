"""The checkpoint gates as board checks, through the CLI: the coverage gate (≥ 80% on the task's
tests) and flaky-test reruns (3×), each with its exit codes, on a real small project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

MODULE = '''\
def tempo(bpm):
    if bpm <= 0:
        raise ValueError("bpm")
    return 60.0 / bpm


def swing(amount):
    if amount < 0:
        return 0.0
    if amount > 1:
        return 1.0
    return amount
'''
FULL = '''\
import pytest
from band.time import swing, tempo

def test_tempo():
    assert tempo(120) == 0.5
    with pytest.raises(ValueError):
        tempo(0)

def test_swing():
    assert (swing(-1), swing(2), swing(0.5)) == (0.0, 1.0, 0.5)
'''
HALF = '''\
from band.time import tempo

def test_tempo():
    assert tempo(120) == 0.5
'''
FLAKY = '''\
from pathlib import Path

def test_sometimes():
    seen = Path(__file__).with_suffix(".runs")
    runs = int(seen.read_text()) if seen.exists() else 0
    seen.write_text(str(runs + 1))
    assert runs >= 1  # fails on the first run only

def test_always_fine():
    assert True
'''
BROKEN = '''\
def test_never():
    assert 1 == 2


class TestInAClass:
    def test_never_either(self):
        assert 1 == 2
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "band").mkdir()
    (tmp_path / "band" / "__init__.py").write_text("")
    (tmp_path / "band" / "time.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    for name, text in (("test_full.py", FULL), ("test_half.py", HALF), ("test_flaky.py", FLAKY),
                       ("test_broken.py", BROKEN)):
        (tmp_path / "tests" / name).write_text(text)
    return tmp_path


def board(project: Path, *args: str) -> tuple[int, dict[str, object], str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # the small project needs none
    done = subprocess.run([sys.executable, "-m", "bandstand", "board", "--workdir", str(project), "--json", *args],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {}), done.stderr


def test_coverage_gate(project: Path) -> None:
    code, report, _ = board(project, "check-coverage", "task-01", "--tests", "tests/test_full.py", "--source", "band")
    assert code == 0 and report["data"]["percent"] == 100.0  # type: ignore[index]
    code, report, _ = board(project, "check-coverage", "task-01", "--tests", "tests/test_half.py", "--source", "band")
    assert code == 1 and report["data"]["percent"] == 40.0  # 4 of the 10 statements  # type: ignore[index]
    code, report, _ = board(project, "check-coverage", "task-01", "--tests", "tests/test_half.py", "--source", "band",
                            "--min", "40")
    assert code == 0
    code, report, _ = board(project, "check-coverage", "task-01", "--tests", "tests/test_broken.py",
                            "--source", "band")
    assert code == 2 and "did not pass" in report["lines"][0]  # type: ignore[index]
    status = [line.split(" ", 1)[1] for line in (project / "temp" / "task-01-status").read_text().splitlines()]
    assert status[:3] == ["check coverage: 100.0% (gate 80%) passed", "check coverage: 40.0% (gate 80%) failed",
                          "check coverage: 40.0% (gate 40%) passed"]
    assert status[3].startswith("check coverage: tests failed") and len(status) == 4


def test_flaky_reruns(project: Path) -> None:
    code, report, _ = board(project, "check-flaky", "task-02", "--tests", "tests/test_full.py")
    assert code == 0 and report["data"] == {"flaky": {}, "failing": [], "reruns": 3}
    code, report, _ = board(project, "check-flaky", "task-02", "--tests", "tests/test_flaky.py")
    assert code == 1 and report["data"]["flaky"] == {"tests/test_flaky.py::test_sometimes": 1}  # type: ignore[index]
    assert (project / "tests" / "test_flaky.runs").read_text() == "2"  # once, then one rerun
    code, report, _ = board(project, "check-flaky", "task-02", "--tests", "tests/test_broken.py")
    assert code == 2 and report["data"]["failing"] == [  # type: ignore[index]
        "tests/test_broken.py::test_never", "tests/test_broken.py::TestInAClass::test_never_either"]
    assert "failed all 3 reruns" in report["lines"][-1]  # type: ignore[index]


def test_bad_gate_input(project: Path) -> None:
    code, _, err = board(project, "check-coverage", "task-01", "--source", "band")
    assert code == 2 and err.strip() == "bandstand: error: name the task's tests: --tests PATH (repeatable)"
    code, _, err = board(project, "check-flaky", "task-01", "--tests", "tests/nope.py")
    assert code == 2 and "no such test path" in err and len(err.strip().splitlines()) == 1
    assert not (project / "temp").exists()
