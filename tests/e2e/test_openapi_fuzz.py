"""schemathesis against a real `bandstand serve`, from its `/openapi.json`: every
API operation is called with generated requests (valid and invalid), and then in
sequences that follow the document's links (the stateful phase) — against a real
project, so the operations that take a project reach their logic instead of a
404. Every check runs: the server answers none with a 5xx, every status, content
type, header and body is the one the document declares, and the server keeps
serving. (Requests the schema allows but the API refuses for what they mean — a
prompt nothing understands — are 4xx by design, so that one check is left out.)
The number of examples is bounded so the run stays near two minutes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.producer.conftest import composed  # noqa: F401
from tests.server.jam_process import bandstand_server

pytestmark = pytest.mark.e2e

EXAMPLES = 6


def test_no_server_errors_and_no_schema_violations(tmp_path: Path, composed: Callable[..., Path]) -> None:  # noqa: F811
    source = composed("funk groove", 3, 16)
    shutil.copytree(source, tmp_path / "projects" / source.name)
    (tmp_path / "schemathesis.toml").write_text(f'[parameters]\n"path.project_id" = "{source.name}"\n')
    with bandstand_server("serve", "--members", "beat", "--out", str(tmp_path / "projects"), cwd=tmp_path) as served:
        done = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(tmp_path / "schemathesis.toml"), "run",
             served.base + "openapi.json", "-H", f"Authorization: Bearer {served.token}",
             "--max-examples", str(EXAMPLES), "--seed", "7", "--request-timeout", "60",
             "--phases", "examples,fuzzing,stateful", "--checks", "all",
             "--exclude-checks", "positive_data_acceptance",
             "--report", "junit", "--report-dir", str(tmp_path / "report")],
            capture_output=True, text=True, timeout=900, cwd=tmp_path)
        tail = (done.stdout + done.stderr)[-4000:]
        assert done.returncode == 0, tail
        summary = done.stdout.split("SUMMARY")[-1]
        assert "Stateful" in done.stdout and "passed" in done.stdout and "failed" not in summary, tail
        assert httpx.get(served.base + "api/v1/protocol", headers=served.headers).status_code == 200
        served.proc.poll()
        assert served.proc.returncode is None
