"""SIGTERM on a real `bandstand compose --team` process while a seat's `claude` process (the fake
CLI, which here never finishes starting) is in the middle of its turn: the team stops, exit
130, nothing is proposed, and no seat process is left running."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.producer.sessions.projects import open_project

from ..peers.claude import fake_claude_bin, process_exists

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def seat_processes(marker: str) -> list[int]:
    """Live processes whose environment carries `marker` (the fake CLI of this test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ and process_exists(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_a_cancelled_team_leaves_no_seat_process(tmp_path: Path) -> None:
    marker = f"FAKE_CLAUDE_LOG={tmp_path / 'claude.log'}"
    claude = fake_claude_bin(tmp_path / "bin", env={"FAKE_CLAUDE_LOG": str(tmp_path / "claude.log"),
                                                    "FAKE_CLAUDE_START": "no_init"})
    config = tmp_path / "bandstand.toml"
    config.write_text(f"""
[agents.claude-code]
bin = "{claude}"
term_grace = 1

[agents.team.seats.lead]
backend = "claude-code"
persona = "You write singable hooks."
timeout = 120
""")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", "compose", "funk groove in E minor", "--team",
                             "--seed", "7", "--bars", "16", "--no-audio", "--out", str(out), "--config", str(config),
                             "-y"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        end = time.monotonic() + 120
        while not seat_processes(marker) and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.05)
        started = seat_processes(marker)
        assert started, "the lead's seat never started its claude process"
        log = tmp_path / "claude.log"  # the stop comes when the seat waits for its CLI's answer
        while not (log.exists() and '"initialize"' in log.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        assert '"initialize"' in log.read_text(), "the lead's seat never asked its claude process to start"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr[-3000:]
    assert "interrupted: the team was stopped; nothing was proposed" in stderr
    assert seat_processes(marker) == [] and not any(process_exists(pid) for pid in started)
    assert [p.name.split("-")[:2] for p in (tmp_path / "runs").iterdir()] == [["compose", "team"]]  # its log
    session = next(out.iterdir())
    assert open_project(session).variations() == []
    assert json.loads((session / "manifest.json").read_text())["revision"] == 1  # only the coordinator's setup
