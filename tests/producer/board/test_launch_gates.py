"""A launched task that names its tests: the musician's checkpoint runs the coverage gate (≥ 80%)
and the flaky reruns on a tiny real pytest project before it reports the task done; a failing
gate keeps the task from review with the gate's message."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bandstand.board import Board

from .launching import env, launch_cmd, message_types, run_launch

CALC = '''def add(a, b):
    return a + b


def scale(values, k):
    return [v * k for v in values]
'''
UNTESTED = '''

def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mean(values):
    if not values:
        raise ValueError("no values")
    total = 0
    for v in values:
        total += v
    return total / len(values)
'''
TESTS = '''from calc import add, scale


def test_add():
    assert add(2, 3) == 5


def test_scale():
    assert scale([1, 2], 3) == [3, 6]
'''


def _project(root: Path, *, covered: bool) -> Path:
    (root / "calc.py").write_text(CALC + ("" if covered else UNTESTED))
    (root / "checks").mkdir()
    (root / "checks" / "test_calc.py").write_text(TESTS)
    tasks = root / "tasks.txt"
    tasks.write_text("lo-fi hip hop in A minor, 80 BPM | tests: checks/test_calc.py | source: calc\n")
    return tasks


def test_passing_gates_let_the_task_complete(tmp_path: Path) -> None:
    tasks = _project(tmp_path, covered=True)
    url = f"sqlite:///{tmp_path / 'board.db'}"
    _, outcome = run_launch(url, tmp_path, "--musicians", "1", "--tasks", str(tasks))
    assert outcome["tasks"]["task-01"]["state"] == "complete"
    with Board.open(url, workdir=tmp_path) as board:
        completion = board.last_message("task-01", "completion")
        kinds = message_types(board, "task-01")
    assert completion is not None and "coverage 0 · flaky 0" in completion.message
    assert "error" not in kinds
    status = (tmp_path / "temp" / "task-01-status").read_text()
    assert "check coverage: 100.0% (gate 80%) passed" in status and "check flaky: passed" in status
    # the check fields are not part of the song's prompt
    manifest = json.loads((tmp_path / "output" / "board" / "task-01" / "manifest.json").read_text())
    assert "tests:" not in json.dumps(manifest)


def test_a_failing_coverage_gate_keeps_the_task_from_review(tmp_path: Path) -> None:
    tasks = _project(tmp_path, covered=False)
    url = f"sqlite:///{tmp_path / 'board.db'}"
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--tasks", str(tasks)), env=env(),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    assert json.loads(done.stdout)["tasks"]["task-01"]["state"] == "exited"
    with Board.open(url, workdir=tmp_path) as board:
        thread = board.messages_since(0, task_id="task-01")
    kinds = [m.message_type for m in thread]
    errors = [m.message for m in thread if m.message_type == "error"]
    # never a completion report: every attempt stopped at the gate, with its message
    assert "completion" not in kinds and "completion_ack" not in kinds
    assert len(errors) == 4 and kinds[-2:] == ["exit_request", "handoff"]
    for error in errors:
        assert "the coverage gate failed (exit 1): coverage " in error and "(gate 80%)" in error
    status = (tmp_path / "temp" / "task-01-status").read_text()
    assert "check coverage:" in status and "(gate 80%) failed" in status


def test_a_task_naming_tests_without_a_source_is_refused(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("bossa nova in D major | tests: checks/test_calc.py\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--tasks", str(tasks)), env=env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "name both 'tests: PATH …' and 'source: PACKAGE_OR_PATH …'" in lines[0]
    assert not (tmp_path / "board.db").exists()


@pytest.mark.parametrize("field", ["tets: checks/test_calc.py", "tests checks/test_calc.py"])
def test_an_unknown_task_field_is_refused(tmp_path: Path, field: str) -> None:
    tasks = tmp_path / "tasks.txt"
    tasks.write_text(f"bossa nova in D major | {field}\n")
    done = subprocess.run(launch_cmd(f"sqlite:///{tmp_path / 'board.db'}", tmp_path, "--musicians", "1", "--tasks",
                                     str(tasks)), env=env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "a '|' field is 'tests: PATH …'" in done.stderr


def test_an_instruction_with_unknown_fields_written_past_the_launcher_is_a_failed_attempt(tmp_path: Path) -> None:
    """An instruction put on the board by hand (not checked by the launcher): the musician files an
    error report saying what is wrong instead of crashing."""
    import sys
    import time

    from .launching import FAST, STALE_AFTER

    url = f"sqlite:///{tmp_path / 'board.db'}"
    with Board.open(url, workdir=tmp_path) as board:
        board.init("conductor")
        board.create_task("task-01", phase="launch")
        board.instruct("task-01", "verse | chorus", conductor_session="conductor")
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", "board", "--board", url, "--workdir", str(tmp_path),
                             "--stale-after", STALE_AFTER, "musician", "--session", "m-1", *FAST], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        state = "watching"
        while time.monotonic() < deadline and proc.poll() is None:
            with Board.open(url, workdir=tmp_path) as board:
                task = board.task("task-01")
            state = str(task.state)
            if state == "error":
                break
            time.sleep(0.2)
        assert state == "error", proc.stderr.read() if proc.poll() is not None else state
        assert "a '|' field is 'tests: PATH …'" in str(task.last_error)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err


def test_a_model_session_runs_the_gates_through_its_tools(tmp_path: Path) -> None:
    """With a model backend the session runs the gates itself (`run_check`) before its completion report
    (which the board tools refuse until both passed: tests/board/test_tools.py)."""
    from tests.peers.board_model import BoardOpenAI

    tasks = _project(tmp_path, covered=True)
    url = f"sqlite:///{tmp_path / 'board.db'}"
    with BoardOpenAI() as server:
        done = subprocess.run(
            launch_cmd(url, tmp_path, "--musicians", "1", "--backend", "openai", "--tasks", str(tasks)),
            env=env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY="test-key", BANDSTAND_OPENAI_MODEL="local"),
            capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    with Board.open(url, workdir=tmp_path) as board:
        kinds = message_types(board, "task-01")
    assert kinds[-1] == "completion_ack" and "error" not in kinds
    status = (tmp_path / "temp" / "task-01-status").read_text()
    assert "check coverage: 100.0% (gate 80%) passed" in status and "check flaky: passed" in status
