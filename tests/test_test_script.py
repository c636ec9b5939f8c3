"""scripts/test's exit actions: the setup scripts it sources register theirs with `on_exit`
(scripts/lib.sh) — the throwaway PostgreSQL server's stop among them — so a `trap … EXIT` of
its own would replace them all and leave the server running after the suite."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_test_script_adds_its_exit_actions_beside_the_setups_never_over_them() -> None:
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    traps = [line for line in script.splitlines() if re.match(r"\s*trap\b.*\bEXIT\b", line)]
    assert not traps, traps
    assert "on_exit " in script


def test_on_exit_runs_every_action_registered_in_order(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {ROOT / 'scripts' / 'lib.sh'}; "
                       "on_exit 'echo server-stopped'; out=$(mktemp); on_exit 'rm -f \"$out\"; echo out-removed'; "
                       "echo body"],
        capture_output=True, text=True, timeout=30, check=True)
    assert done.stdout.split() == ["body", "server-stopped", "out-removed"]


def test_the_failures_of_a_real_pytest_run_are_told_in_a_few_lines_each(tmp_path: Path) -> None:
    import sys

    (tmp_path / "test_sample.py").write_text(
        "def helper(x):\n    assert x == 2, 'the helper wanted two'\n\n\n"
        "def test_passes():\n    assert True\n\n\n"
        "def test_fails_deep():\n    helper(1)\n\n\n"
        "def test_fails_here():\n    values = [1, 2]\n    assert len(values) == 3\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 1, run.stdout[-2000:]
    log = tmp_path / "run.log"
    log.write_text(run.stdout, encoding="utf-8")
    told = subprocess.run([sys.executable, str(ROOT / "scripts" / "failures.py"), str(log)],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    lines = told.splitlines()
    assert "test_fails_deep:" in lines and "test_fails_here:" in lines and "test_passes:" not in lines
    deep = told.split("test_fails_deep:")[1].split("test_fails_here:")[0]
    assert "the helper wanted two" in deep and "test_sample.py:2: AssertionError" in deep and "test_sample.py:10:" in deep
    assert "> helper(1)" in deep and "> assert x == 2" in deep  # the lines that ran, in each frame
    assert "assert 2 == 3" in told.split("test_fails_here:")[1]
    assert len(lines) < 20  # a few lines each, not the tracebacks' source

    missing = subprocess.run([sys.executable, str(ROOT / "scripts" / "failures.py"), str(tmp_path / "none.log")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "cannot read" in missing.stderr


def test_a_long_traceback_keeps_the_tests_own_line_and_the_error() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("failures", ROOT / "scripts" / "failures.py")
    assert spec is not None and spec.loader is not None
    failures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(failures)
    frames = "\n".join(f">       call_{i}()\n\nlib/deep.py:{i}: " for i in range(40))
    log = ("=== FAILURES ===\n____ test_long ____\n\n>       page.click('#x')\n\ntests/e2e/test_x.py:7: \n"
           f"{frames}\nE       TimeoutError: waited 30000 ms\n\nlib/deep.py:99: TimeoutError\n=== 1 failed in 1s ===\n")
    told = failures.failures(log, lines=8)
    assert told == ["test_long:", "    > page.click('#x')", "    tests/e2e/test_x.py:7:", "    E TimeoutError: waited 30000 ms",
                    "    … 80 lines", "    lib/deep.py:99: TimeoutError"]
