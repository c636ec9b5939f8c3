"""Helpers for the fake `claude` CLI (`fake_claude.py`), reusable by any test suite.

    bin_path = fake_claude_bin(tmp_path)               # an executable wrapper script
    backend = ClaudeCodeBackend(bin=str(bin_path), registry=ProcessRegistry(tmp_path / "pids"))

`user_line(text)` is the stdin line the real CLI expects for one user turn.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

FAKE_CLAUDE = Path(__file__).with_name("fake_claude.py")


def fake_claude_bin(folder: Path, *, env: dict[str, str] | None = None) -> Path:
    """Write an executable `claude` wrapper into `folder` that runs the fake with this Python."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "claude"
    exports = "".join(f"export {k}={json.dumps(v)}\n" for k, v in (env or {}).items())
    path.write_text(f'#!/bin/sh\n{exports}exec "{sys.executable}" -u "{FAKE_CLAUDE}" "$@"\n')
    path.chmod(0o755)
    return path


def user_line(text: str) -> bytes:
    """One stream-json user turn, as the CLI reads it on stdin."""
    msg = {
        "type": "user",
        "message": {"role": "user", "content": text},
        "parent_tool_use_id": None,
        "session_id": "default",
    }
    return (json.dumps(msg) + "\n").encode()


def process_exists(pid: int) -> bool:
    """True if `pid` is a live, non-zombie process (checked in the process table)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rfind(")") + 2 :].split()[0] != "Z"


def children_of(pid: int) -> list[int]:
    """PIDs whose parent is `pid`, from the process table."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def marked(mark: str) -> list[int]:
    """Live processes whose environment holds FAKE_CLAUDE_MARK=mark: a fake made with
    ``fake_claude_bin(…, env={"FAKE_CLAUDE_MARK": mark})`` and everything it started, wherever it went."""
    needle, found = f"FAKE_CLAUDE_MARK={mark}".encode(), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0") and process_exists(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_gone(pids: list[int]) -> list[int]:
    """The PIDs still running after a bounded wait (killed orphans take a moment to leave the table)."""
    for _ in range(300):
        left = [p for p in pids if process_exists(p)]
        if not left:
            return []
        time.sleep(0.01)
    return left


__all__ = ["FAKE_CLAUDE", "children_of", "fake_claude_bin", "marked", "process_exists", "user_line", "wait_gone"]
