"""Start `bandstand jam --no-browser` as a real process and find its URL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def jam_server(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run the jam server on a free loopback port; yields its URL; stops it after."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bandstand", "jam", "--no-browser", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if "http://" in line or not line:
                break
        if "http://" not in line:
            raise RuntimeError(f"the jam server did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
        yield "http://" + line.split("http://", 1)[1].split()[0]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
