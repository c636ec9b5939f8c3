"""Start `bandstand serve` (or `bandstand jam --no-browser`) as a real process and
read where it listens and its access token from what it prints."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Served:
    """A running server: `printed_url` is the page's address it printed, `base` ends in '/'."""

    printed_url: str
    base: str
    token: str
    proc: subprocess.Popen[str] = field(repr=False)
    stderr: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        """An address that opens the jam page once, as the printed one does (a new one each time)."""
        return self.page_url()

    def page_url(self, page: str = "jam") -> str:
        """A new address that opens `page` (jam, studio) once: `POST /api/v1/page-links`."""
        import httpx

        made = httpx.post(self.base + "api/v1/page-links", params={"page": page}, headers=self.headers, timeout=30)
        return str(made.json()["url"])

    @property
    def headers(self) -> dict[str, str]:
        """What a program sends: the token, and the Host the server answers to."""
        return {"authorization": f"Bearer {self.token}"}

    @property
    def ws(self) -> str:
        return self.base.replace("http://", "ws://") + "ws/jam"


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGINT, timeout: float = 15) -> int:
    """Send `sig` to the server's process group and wait; SIGKILL if it hangs. Returns the exit code."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        raise


@contextlib.contextmanager
def bandstand_server(command: str, *args: str, cwd: Path | None = None,
                     env: dict[str, str] | None = None, module: str = "bandstand") -> Iterator[Served]:
    """Run `bandstand COMMAND … --port 0` (or `python -m MODULE COMMAND …`, a program that prints
    what `serve` prints); yields where it listens; stops it with Ctrl-C after."""
    extra = ["--no-browser"] if command == "jam" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", module, command, *extra, "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
        env={**os.environ, **(env or {})}, start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        deadline, lines = time.monotonic() + 60, []
        while time.monotonic() < deadline and len(lines) < 2:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        if len(lines) < 2 or "http://" not in lines[0]:
            raise RuntimeError(f"the server did not start: {lines!r} {proc.stderr.read() if proc.stderr else ''}")
        url = "http://" + lines[0].split("http://", 1)[1].split()[0]
        token = lines[1].split("API token:", 1)[1].split()[0]
        yield Served(printed_url=url, base=url.split("?", 1)[0], token=token, proc=proc)
    finally:
        if proc.poll() is None:
            stop(proc)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@contextlib.contextmanager
def jam_server(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`bandstand jam --no-browser` on a free loopback port."""
    with bandstand_server("jam", *args, cwd=cwd, env=env) as served:
        yield served
