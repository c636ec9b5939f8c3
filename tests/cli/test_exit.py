"""The CLI ends at once when its command is done (no module teardown), but as Python would:
threads that are not daemons finish, `atexit` functions run, everything printed reaches the
reader, and the exit code is the command's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import atexit, sys, threading, time
from pathlib import Path
out = Path(sys.argv[1])
def late():
    time.sleep(0.3)
    (out / "thread").write_text("done")
threading.Thread(target=late).start()
atexit.register(lambda: (out / "atexit").write_text("ran"))
sys.argv = ["bandstand", *sys.argv[2:]]
from bandstand.cli import main
main()
"""


@pytest.mark.parametrize("slow", ["", "1"])
@pytest.mark.parametrize(("args", "code"), [(["theory", "chord", "Cmaj7", "--json"], 0),
                                            (["compose", ""], 2)])
def test_the_end_waits_for_threads_runs_atexit_and_keeps_the_code(tmp_path: Path, args: list[str], code: int,
                                                                  slow: str) -> None:
    import os

    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "BANDSTAND_SLOW_EXIT": slow})
    assert done.returncode == code, done.stderr
    assert (tmp_path / "thread").read_text() == "done"
    assert (tmp_path / "atexit").read_text() == "ran"
    if code == 0:
        assert '"root_name": "C"' in done.stdout and done.stdout.rstrip().endswith("]")
    else:
        assert done.stderr.count("\n") == 1 and "the prompt is empty" in done.stderr


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    """`bandstand … | head -c 1`: the pipe closes long before the command has printed its ~1 MB."""
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    done = subprocess.run([sys.executable, "-m", "bandstand", "theory", "chord", *["Cmaj7"] * 3000, "--json"],
                          stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=60)
    assert reader.stdin is not None
    reader.stdin.close()
    reader.wait(timeout=10)
    assert done.returncode == 0 and "Traceback" not in done.stderr


THRESHOLDS = """
import atexit, gc, sys
atexit.register(lambda: print("GC", *gc.get_threshold()))
sys.argv = ["bandstand", *sys.argv[1:]]
from bandstand.cli import main
main()
"""


@pytest.mark.parametrize(("args", "expected"), [
    (["theory", "chord", "Cmaj7", "--json"], "GC 200000 30 30"),  # a command that ends in seconds
    (["--quiet", "theory", "chord", "C"], "GC 200000 30 30"),  # options before the command are not it
    (["jam", "--help"], "GC 700 10 10"),  # commands that keep running keep Python's collector
    (["serve", "--help"], "GC 700 10 10"),
    (["play", "--help"], "GC 700 10 10"),
])
def test_a_short_command_collects_rarely_and_a_long_one_as_python_does(args: list[str], expected: str) -> None:
    done = subprocess.run([sys.executable, "-c", THRESHOLDS, *args], capture_output=True, text=True, timeout=60)
    assert done.stdout.rstrip().splitlines()[-1] == expected, (done.stdout[-500:], done.stderr[-500:])
