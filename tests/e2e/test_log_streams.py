"""The run-log SSE stream under load, against real server processes: 50 readers of a
fast-growing log leave the server's memory under 300 MB and `/api/v1/jam/state` answering;
streams beyond the caps are refused with one line (429 per client, 503 in all) and their
slots come back when they end; a reader that falls behind gets a `closed` event; one that
stops reading is disconnected. (Timings are in benchmarks/log_streams.py.)"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
import pytest

from bandstand.server.config import Limits
from tests.e2e.limited_server import limited_server
from tests.e2e.log_load import LINE, Writer, run_load
from tests.server.jam_process import Served, bandstand_server

pytestmark = pytest.mark.e2e


def opened(served: Served, run: str, client: str = "127.0.0.1") -> tuple[int, str]:
    """Open the run's stream from `client`: its status, and the detail of a refusal."""
    transport = httpx.HTTPTransport(local_address=client)
    with httpx.Client(transport=transport, base_url=served.base, headers=served.headers, timeout=30) as http, \
            http.stream("GET", f"api/v1/runs/{run}/stream") as answer:
        return answer.status_code, "" if answer.status_code == 200 else json.loads(answer.read())["detail"]


def test_fifty_readers_of_a_fast_growing_log(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    limits = Limits()
    with bandstand_server("serve", "--members", "beat", "--out", str(tmp_path / "p"), "--runs-dir", str(runs),
                          cwd=tmp_path) as served:
        load = run_load(served, runs, readers=50, clients=5, seconds=12)
        assert load.written_mb > 100
        assert max(load.rss_mb) < 300, load.rss_mb
        assert load.state_failures == [] and len(load.state_ms) > 10
        streaming = [r for r in load.readers if r.status == 200]
        refused = [r for r in load.readers if r.status != 200]
        assert 0 < len(streaming) <= limits.sse_streams
        assert all(r.events >= 1 and r.error == "" for r in streaming), [(r.events, r.error) for r in streaming]
        assert len(refused) >= 50 - limits.sse_streams
        for reader in refused:
            assert reader.status in (429, 503), reader
            assert "streams open, the most" in reader.detail and "\n" not in reader.detail
        deadline = time.monotonic() + 60  # the readers are gone: their slots come back
        while opened(served, "session-fast.jsonl")[0] != 200:
            assert time.monotonic() < deadline, "the streams' slots never came back"
            time.sleep(0.2)


def test_a_client_over_its_share_gets_429_and_the_server_over_its_total_503(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "quiet.jsonl").write_text(LINE)
    with limited_server(runs, sse_streams=3, sse_streams_per_client=2) as served:
        held: list[tuple[httpx.Client, httpx.Response]] = []

        def hold(client: str) -> int:
            http = httpx.Client(transport=httpx.HTTPTransport(local_address=client), base_url=served.base,
                                headers=served.headers, timeout=30)
            answer = http.send(http.build_request("GET", "api/v1/runs/quiet.jsonl/stream"), stream=True)
            held.append((http, answer))
            return answer.status_code

        try:
            assert [hold("127.0.0.2"), hold("127.0.0.2")] == [200, 200]
            status, detail = opened(served, "quiet.jsonl", "127.0.0.2")
            assert status == 429 and detail.startswith("this client has 2 streams open, the most one client may have")
            assert hold("127.0.0.3") == 200
            status, detail = opened(served, "quiet.jsonl", "127.0.0.4")
            assert status == 503 and detail.startswith("the server has 3 streams open, the most it serves at once")
            assert httpx.get(served.base + "api/v1/jam/state", headers=served.headers).status_code == 200
        finally:
            for http, answer in held:
                answer.close()
                http.close()
        deadline = time.monotonic() + 30
        while opened(served, "quiet.jsonl", "127.0.0.4")[0] != 200:
            assert time.monotonic() < deadline, "closed streams kept their slots"
            time.sleep(0.2)


def test_a_reader_that_falls_behind_is_told_and_the_stream_ends(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    log = runs / "fast.jsonl"
    log.write_text(LINE)
    writer = Writer(log, mb_per_second=20, max_mb=200)
    with limited_server(runs, sse_lag_seconds=1, sse_send_seconds=120) as served:
        writer.start()
        try:
            with httpx.Client(base_url=served.base, headers=served.headers, timeout=60) as http, \
                    http.stream("GET", "api/v1/runs/fast.jsonl/stream") as answer:
                assert answer.status_code == 200
                closed = None
                pending = b""
                deadline = time.monotonic() + 60
                for chunk in answer.iter_raw(16 * 1024):
                    assert time.monotonic() < deadline, "the stream never said it was closing"
                    time.sleep(0.02)  # a reader slower than the log grows
                    pending += chunk
                    *frames, pending = pending.split(b"\r\n\r\n")
                    closed = next((f for f in frames if f.startswith(b"event: closed")), None)
                    if closed is not None:
                        break
        finally:
            writer.stop.set()
            writer.join()
    assert closed is not None, "the stream never said it was closing"
    said = json.loads(closed.split(b"data: ", 1)[1])
    assert said["reason"] == "slow" and "stayed behind the run's log for more than 1 s" in said["detail"]


def test_a_reader_that_stops_reading_is_disconnected(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    log = runs / "fast.jsonl"
    log.write_text(LINE)
    writer = Writer(log, mb_per_second=20, max_mb=100)
    # the send limit is wide enough (5 s) for a busy machine's poll to see the stalled stream's 429
    with limited_server(runs, sse_send_seconds=5, sse_streams_per_client=1, sse_lag_seconds=600) as served:
        writer.start()
        stalled: socket.socket | None = None
        try:
            port = int(served.base.rsplit(":", 1)[1].strip("/"))
            stalled = socket.create_connection(("127.0.0.1", port))
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.sendall(f"GET /api/v1/runs/fast.jsonl/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                            f"Authorization: Bearer {served.token}\r\n\r\n".encode())
            deadline = time.monotonic() + 30
            while opened(served, "fast.jsonl")[0] != 429:  # the stalled stream holds the client's one slot …
                assert time.monotonic() < deadline, "the stalled stream was never counted"
                time.sleep(0.1)
            deadline = time.monotonic() + 60
            while opened(served, "fast.jsonl")[0] != 200:  # … until the server gives up on it
                assert time.monotonic() < deadline, "a reader that stopped reading kept its stream"
                time.sleep(0.2)
        finally:
            if stalled is not None:
                stalled.close()  # never left for the garbage collector (a ResourceWarning in a later test)
            writer.stop.set()
            writer.join()
