"""schemathesis against a real `bandstand serve`, from its `/openapi.json`: every
API operation is called with generated requests (valid and invalid); the server
answers none with a 5xx, every status, content type, header and body is the one
the document declares, and the server keeps serving. (Requests the schema
allows but the API refuses for what they mean — a prompt nothing understands, a
project that is not there — are 4xx by design, so that check is left out.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e


def test_no_server_errors_and_no_schema_violations(tmp_path: Path) -> None:
    with bandstand_server("serve", "--members", "beat", "--out", str(tmp_path / "projects")) as served:
        done = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", served.base + "openapi.json",
             "-H", f"Authorization: Bearer {served.token}", "--max-examples", "6", "--seed", "7",
             "--request-timeout", "60", "--exclude-checks", "positive_data_acceptance",
             "--report", "junit", "--report-dir", str(tmp_path / "report")],
            capture_output=True, text=True, timeout=900, cwd=tmp_path)
        tail = (done.stdout + done.stderr)[-3000:]
        assert done.returncode == 0, tail
        assert "passed" in done.stdout and "failed" not in done.stdout.split("SUMMARY")[-1], tail
        assert httpx.get(served.base + "api/v1/protocol", headers=served.headers).status_code == 200
        served.proc.poll()
        assert served.proc.returncode is None
