"""The checkpoint gates: a coverage gate and flaky-test reruns, as board checks with exit codes.

- `coverage_gate(workdir, task, tests, sources, minimum=80)`: runs the task's
  tests under coverage.py; 0 when they pass and cover at least `minimum` % of
  `sources`, 1 when coverage is below the gate, 2 when the tests fail or
  nothing was measured.
- `flaky_reruns(workdir, task, tests, reruns=3)`: runs the tests; the ones that
  fail are rerun up to `reruns` times each. 0 all passed at once, 1 flaky
  (failed, then passed on a rerun: report it), 2 still failing after every rerun.

Both run pytest in a child process (`python -m pytest`, in `workdir`) and
append their verdict to the task's status file, so the conductor and a
resuming session see it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from bandstand.board.checks import CheckReport
from bandstand.board.taskfiles import TaskFiles
from bandstand.errors import BoardUsageError

__all__ = ["COVERAGE_MIN", "RERUNS", "coverage_gate", "flaky_reruns"]

COVERAGE_MIN = 80.0
RERUNS = 3
#: Wall-clock budget of one pytest run, seconds.
RUN_BUDGET = 900.0
_PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def _check_tests(workdir: Path, tests: Sequence[str]) -> None:
    if not tests:
        raise BoardUsageError("name the task's tests: --tests PATH (repeatable)")
    missing = [t for t in tests if not (workdir / t.split("::", 1)[0]).exists()]
    if missing:
        raise BoardUsageError(f"no such test path in {workdir}: {', '.join(missing)}; --tests takes paths "
                              "relative to --workdir")


def _run(args: list[str], workdir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, *args], cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=RUN_BUDGET, check=False)
    except subprocess.TimeoutExpired as exc:
        raise BoardUsageError(f"the tests ran longer than {RUN_BUDGET:g} s: {' '.join(args)}") from exc


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(workdir), env.get("PYTHONPATH", "")) if p)
    env.pop("COVERAGE_PROCESS_START", None)
    return env


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return lines[-1].strip() if lines else f"exit {done.returncode}"


def coverage_gate(workdir: str | Path, task_id: str, tests: Sequence[str], sources: Sequence[str],
                  minimum: float = COVERAGE_MIN) -> CheckReport:
    """See the module docstring."""
    root = Path(workdir)
    files = TaskFiles(root, task_id)
    _check_tests(root, tests)
    if not sources:
        raise BoardUsageError("say what the tests should cover: --source PACKAGE_OR_PATH (repeatable)")
    if not 0 <= minimum <= 100:
        raise BoardUsageError(f"--min is a percentage, 0–100; got {minimum:g}")
    report = CheckReport(f"coverage gate for {task_id} (≥ {minimum:g}%)")
    env = _env(root)
    with tempfile.TemporaryDirectory(prefix="bandstand-cov-") as tmp:
        env["COVERAGE_FILE"] = str(Path(tmp) / ".coverage")
        run = _run(["-m", "coverage", "run", f"--source={','.join(sources)}", *_PYTEST, *tests], root, env)
        if run.returncode == 1 and "No module named coverage" in run.stderr:
            raise BoardUsageError("coverage.py is not installed in this Python: pip install coverage (the dev extra has it: pip install -e '.[dev]')")
        report.data["tests_exit"] = run.returncode
        if run.returncode != 0:
            report.issue(f"the tests did not pass: {_tail(run)}", code=2)
            files.status(f"check coverage: tests failed ({_tail(run)})")
            return report
        report.ok(f"tests passed: {_tail(run)}")
        out = Path(tmp) / "coverage.json"
        measured = _run(["-m", "coverage", "json", "-q", "-o", str(out)], root, env)
        if measured.returncode != 0 or not out.exists():
            report.issue(f"nothing measured in {', '.join(sources)}: {_tail(measured)}", code=2)
            files.status("check coverage: nothing measured")
            return report
        totals = json.loads(out.read_text(encoding="utf-8"))["totals"]
    percent = float(totals["percent_covered"])
    report.data.update(percent=round(percent, 2), minimum=minimum, statements=totals["num_statements"],
                       missing=totals["missing_lines"])
    line = f"coverage {percent:.1f}% of {totals['num_statements']} statements (gate {minimum:g}%)"
    if percent + 1e-9 >= minimum:
        report.ok(line)
    else:
        report.issue(line + f": {totals['missing_lines']} lines not run")
    files.status(f"check coverage: {percent:.1f}% (gate {minimum:g}%) {'passed' if report.code == 0 else 'failed'}")
    return report


def _failures(junit: Path) -> list[str]:
    """Node ids of the failed or errored tests in a JUnit XML report."""
    failed = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            classname = case.get("classname", "")
            path = case.get("file") or classname.replace(".", "/") + ".py"
            module = path.removesuffix(".py").replace("/", ".")
            inside = classname.removeprefix(module).strip(".") if classname.startswith(module) else ""
            failed.append("::".join([path, *inside.split(".")[:1 if inside else 0], str(case.get("name"))]))
    return failed


def _pytest_junit(root: Path, env: dict[str, str], tests: Sequence[str], tmp: Path,
                  n: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    junit = tmp / f"run-{n}.xml"
    done = _run([*_PYTEST, "-o", "junit_family=xunit1", f"--junitxml={junit}", *tests], root, env)
    if not junit.exists():
        raise BoardUsageError(f"pytest wrote no report for {' '.join(tests)}: {_tail(done)}")
    return done, _failures(junit)


def flaky_reruns(workdir: str | Path, task_id: str, tests: Sequence[str], reruns: int = RERUNS) -> CheckReport:
    """See the module docstring."""
    root = Path(workdir)
    files = TaskFiles(root, task_id)
    _check_tests(root, tests)
    if not 1 <= reruns <= 10:
        raise BoardUsageError(f"--reruns is 1–10; got {reruns}")
    report = CheckReport(f"flaky-test reruns for {task_id} (up to {reruns}×)")
    env = _env(root)
    flaky: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bandstand-flaky-") as tmp:
        done, failing = _pytest_junit(root, env, tests, Path(tmp), 0)
        if done.returncode not in (0, 1):
            report.issue(f"pytest could not run the tests: {_tail(done)}", code=2)
            files.status(f"check flaky: pytest could not run ({_tail(done)})")
            return report
        if not failing:
            report.ok(f"all tests passed on the first run: {_tail(done)}")
        for attempt in range(1, reruns + 1):
            if not failing:
                break
            _, still = _pytest_junit(root, env, failing, Path(tmp), attempt)
            flaky.update({t: attempt for t in failing if t not in still})
            failing = still
    report.data.update(flaky=flaky, failing=failing, reruns=reruns)
    for test, attempt in sorted(flaky.items()):
        report.issue(f"flaky: {test} failed, then passed on rerun {attempt}")
    for test in failing:
        report.issue(f"failing: {test} failed all {reruns} reruns", code=2)
    verdict = "failing" if failing else "flaky" if flaky else "passed"
    files.status(f"check flaky: {verdict} ({len(flaky)} flaky, {len(failing)} failing)")
    return report
