"""The pages' pure JavaScript (web/audio, web/studio) under node's own test runner."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_the_audio_modules_pure_parts() -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing in CI: scripts/setup.d/strudel.sh should install it")
        pytest.skip("node is not installed")
    run = subprocess.run([node, "--test", *sorted(str(p) for p in HERE.glob("*.test.mjs"))],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout and "# pass 16" in run.stdout
