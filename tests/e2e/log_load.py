"""Many readers of a fast-growing run log against a real `bandstand serve`: a thread appends
to a session's JSONL log as fast as a busy team would (and faster), `readers` clients follow
its SSE stream from several loopback addresses (127.0.0.2, .3, … — each a client of its own),
and meanwhile a client asks `GET /api/v1/jam/state` over and over and the server's resident
memory is sampled. Used by tests/e2e/test_log_streams.py and benchmarks/log_streams.py."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.server.jam_process import Served

LINE = json.dumps({"type": "turn_output", "session": "bass", "seq": 0, "ts": 0.0, "text": "x" * 4000}) + "\n"


def rss_mb(pid: int) -> float:
    """The process's resident memory now, in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


class Writer(threading.Thread):
    """Appends `mb_per_second` MB a second of ~4 KB events to `log`, up to `max_mb`."""

    def __init__(self, log: Path, mb_per_second: float = 20.0, max_mb: float = 160.0) -> None:
        super().__init__(daemon=True)
        self.log, self.rate, self.max_bytes = log, mb_per_second * 1e6, max_mb * 1e6
        self.stop = threading.Event()
        self.written = 0

    def run(self) -> None:
        tick = 0.05
        chunk = LINE * max(1, int(self.rate * tick / len(LINE)))
        with open(self.log, "a") as fh:
            while not self.stop.is_set() and self.written < self.max_bytes:
                fh.write(chunk)
                fh.flush()
                self.written += len(chunk)
                self.stop.wait(tick)


@dataclass
class Reader:
    client: str
    status: int = 0
    detail: str = ""
    events: int = 0
    bytes: int = 0
    closed: dict[str, object] | None = None
    error: str = ""


@dataclass
class Load:
    readers: list[Reader] = field(default_factory=list)
    state_ms: list[float] = field(default_factory=list)
    state_failures: list[str] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    written_mb: float = 0.0


async def _read(served: Served, run: str, reader: Reader, until: float) -> None:
    try:
        await _follow(served, run, reader, until)
    except httpx.HTTPError as exc:
        reader.error = repr(exc)


async def _follow(served: Served, run: str, reader: Reader, until: float) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=reader.client)
    async with httpx.AsyncClient(transport=transport, base_url=served.base, headers=served.headers,
                                 timeout=httpx.Timeout(30.0)) as client, \
            client.stream("GET", f"api/v1/runs/{run}/stream") as answer:
        reader.status = answer.status_code
        if answer.status_code != 200:
            reader.detail = json.loads(await answer.aread())["detail"]
            return
        pending = b""
        async for chunk in answer.aiter_raw():
            reader.bytes += len(chunk)
            pending += chunk
            *frames, pending = pending.split(b"\r\n\r\n")
            for one in frames:
                if one.startswith(b"event: closed"):
                    reader.closed = json.loads(one.split(b"data: ", 1)[1])
                    return
                if one.startswith(b"event: "):
                    reader.events += 1
            now = time.monotonic()
            if now > until and (reader.events or now > until + 60):  # a loaded machine: wait for the first
                return


def _watch(served: Served, load: Load, until: float) -> None:
    """Ask for the jam's state every 100 ms (on a thread of its own: the readers' work does not
    delay it) and sample the server's memory."""
    with httpx.Client(base_url=served.base, headers=served.headers, timeout=30.0) as client:
        while time.monotonic() < until:
            began = time.perf_counter()
            try:
                answer = client.get("api/v1/jam/state")
                if answer.status_code != 200:
                    load.state_failures.append(f"{answer.status_code} {answer.text[:200]}")
            except httpx.HTTPError as exc:
                load.state_failures.append(repr(exc))
            load.state_ms.append((time.perf_counter() - began) * 1000)
            load.rss_mb.append(rss_mb(served.proc.pid))
            time.sleep(0.1)


def run_load(served: Served, runs: Path, *, readers: int = 50, clients: int = 5, seconds: float = 15.0) -> Load:
    """`readers` streams of one growing log, spread over `clients` addresses, for `seconds`."""
    log = runs / "session-fast.jsonl"
    log.write_text(LINE)
    load = Load(readers=[Reader(client=f"127.0.0.{2 + i % clients}") for i in range(readers)])
    load.rss_mb.append(rss_mb(served.proc.pid))
    writer = Writer(log)
    writer.start()

    until = time.monotonic() + seconds
    watcher = threading.Thread(target=_watch, args=(served, load, until), daemon=True)

    async def readers() -> None:
        await asyncio.gather(*(_read(served, log.name, r, until) for r in load.readers))

    watcher.start()
    try:
        asyncio.run(readers())
    finally:
        writer.stop.set()
        writer.join()
        watcher.join()
    load.written_mb = writer.written / 1e6
    return load
