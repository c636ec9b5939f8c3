"""Slowloris against a real `bandstand serve`: 250 connections that send a request's headers a
byte at a time, and some that send nothing, are answered 408 and closed once the header
deadline passes (`Limits.header_seconds`), while a normal client is served all along."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.limited_server import limited_server
from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e

SLOW = 250
IDLE = 10


def test_half_sent_requests_are_closed_and_a_normal_client_is_served(tmp_path: Path) -> None:
    with bandstand_server("serve", "--members", "beat", "--out", str(tmp_path / "p"), cwd=tmp_path) as served:
        port = int(served.base.rsplit(":", 1)[1].strip("/"))
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(SLOW)]
        for conn in slow:
            conn.sendall(f"GET /api/v1/jam/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(IDLE)]
        answers: dict[socket.socket, bytes] = {}
        done: set[socket.socket] = set()
        try:
            state = httpx.get(served.base + "api/v1/jam/state", headers=served.headers, timeout=30)
            assert state.status_code == 200  # served while 260 half-open connections wait
            deadline = time.monotonic() + 40  # the header deadline (10 s) and room to spare
            while len(done) < SLOW + IDLE:
                assert time.monotonic() < deadline, f"{SLOW + IDLE - len(done)} half-sent requests are still open"
                for conn in slow:
                    if conn not in done:
                        with contextlib.suppress(OSError):  # closed by the server meanwhile: read below
                            conn.send(b"a")  # one more byte of a header that never ends
                readable, _, _ = select.select([c for c in slow + idle if c not in done], [], [], 1.0)
                for conn in readable:
                    try:
                        data = conn.recv(4096)
                    except ConnectionResetError:
                        data = b""
                    answers[conn] = answers.get(conn, b"") + data
                    if not data:
                        done.add(conn)
            assert httpx.get(served.base + "api/v1/jam/state", headers=served.headers, timeout=30).status_code == 200
        finally:
            for conn in slow + idle:
                conn.close()
        late = [a for a in answers.values() if a.startswith(b"HTTP/1.1 408 Request Timeout")]
        assert len(late) >= SLOW, {a[:40] for a in answers.values()}
        assert all(a.endswith(b"the request's headers did not arrive within 10 s\n") for a in late)


def test_a_body_that_does_not_arrive_in_time_is_answered_408(tmp_path: Path) -> None:
    with limited_server(tmp_path, body_seconds=1) as served:
        port = int(served.base.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(f"POST /api/v1/projects HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         f"Authorization: Bearer {served.token}\r\ncontent-type: application/json\r\n"
                         "content-length: 100\r\n\r\n{\"prompt\": ".encode())
            conn.settimeout(60)
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                chunk = conn.recv(4096)
                if not chunk:
                    break
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert answer.rstrip().endswith(b'{"detail":"the request body did not arrive within 1 s"}')
        assert httpx.get(served.base + "api/v1/jam/state", headers=served.headers, timeout=30).status_code == 200
