"""Process hygiene for agent CLIs: one process group per session, a PID registry, reaping.

Every child runs in its own session and process group (``start_new_session``)
so that it and anything it spawns can be signalled together. Each live child
has a small JSON file in the registry folder naming it, its group, its start
time and its owner (this host process). On a clean close the file goes; at
interpreter exit the owner kills what it still has; and if the owner died
without cleaning up, the next `reap_stale()` finds the files whose owner is
gone and kills those groups. Start times (from ``/proc``) guard against PID
reuse: a process is only signalled if it is the one that was recorded.

Stopping is graceful first: `terminate_group` sends SIGTERM to the group,
waits, then SIGKILL.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bandstand.files import write_json

_HAVE_PROC = Path("/proc/self/stat").exists()
_live: dict[int, int] = {}  # pid → pgid of children this host started and has not reaped
_atexit_installed = False


def default_registry_dir() -> Path:
    """``$BANDSTAND_PID_DIR``, else ``$XDG_STATE_HOME/bandstand/pids`` (``~/.local/state/…``)."""
    explicit = os.environ.get("BANDSTAND_PID_DIR")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bandstand" / "pids"


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # fields after the parenthesised command name (which may contain spaces)
    return raw[raw.rfind(")") + 2 :].split()


def start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot), or None if it is gone."""
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 else None


def is_alive(pid: int, started: str | None = None) -> bool:
    """True if `pid` runs (not a zombie) and, when given, started at `started`."""
    fields = _stat(pid)
    if fields is None:
        if _HAVE_PROC:
            return False
        try:  # no /proc (macOS): existence only, without the PID-reuse guard
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    if fields[0] == "Z":
        return False
    return started is None or (len(fields) > 19 and fields[19] == started)


def group_members(pgid: int) -> list[int]:
    """PIDs of the live (non-zombie) processes in process group `pgid`."""
    members: list[int] = []
    if not _HAVE_PROC:
        return members
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields and len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _kill_live_children() -> None:
    for pgid in list(_live.values()):
        _signal_group(pgid, signal.SIGKILL)
    _live.clear()


class ProcessRegistry:
    """The PID files of agent children, in one folder shared by all bandstand processes."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_registry_dir()

    def register(self, pid: int, pgid: int, argv: Iterable[str]) -> None:
        global _atexit_installed
        if not _atexit_installed:
            atexit.register(_kill_live_children)
            _atexit_installed = True
        _live[pid] = pgid
        me = os.getpid()
        write_json(
            self.directory / f"{pid}.json",
            {
                "pid": pid,
                "pgid": pgid,
                "start": start_time(pid),
                "owner": me,
                "owner_start": start_time(me),
                "argv": list(argv)[:4],
            },
        )

    def unregister(self, pid: int) -> None:
        _live.pop(pid, None)
        with contextlib.suppress(FileNotFoundError):
            (self.directory / f"{pid}.json").unlink()

    def entries(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        if not self.directory.is_dir():
            return found
        for path in sorted(self.directory.glob("*.json")):
            try:
                found.append(json.loads(path.read_text()))
            except (OSError, json.JSONDecodeError):
                with contextlib.suppress(OSError):
                    path.unlink()
        return found

    def reap_own(self) -> list[int]:
        """Kill the groups of every child this host process registered here; return their PIDs."""
        me, reaped = os.getpid(), []
        for entry in self.entries():
            if int(entry["owner"]) == me:
                pid = int(entry["pid"])
                if is_alive(pid, entry.get("start")):
                    _signal_group(int(entry["pgid"]), signal.SIGKILL)
                    reaped.append(pid)
                self.unregister(pid)
        return reaped

    def reap_stale(self) -> list[int]:
        """Kill the groups of children whose owner is gone; return the PIDs reaped."""
        reaped = []
        for entry in self.entries():
            pid, pgid = int(entry["pid"]), int(entry["pgid"])
            if is_alive(int(entry["owner"]), entry.get("owner_start")):
                continue
            if is_alive(pid, entry.get("start")):
                _signal_group(pgid, signal.SIGKILL)
                reaped.append(pid)
            elif entry.get("start") is not None:
                # leader gone: kill what is left of its group, if the group still exists
                for member in group_members(pgid):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(member, signal.SIGKILL)
            self.unregister(pid)
        return reaped


async def terminate_group(proc: asyncio.subprocess.Process, *, grace: float = 2.0) -> str:
    """Stop `proc` and its whole group: SIGTERM, wait `grace`, SIGKILL. Returns how it ended."""
    pgid = proc.pid  # started with start_new_session: the child leads its own group
    how = "exited"
    if proc.returncode is None:
        _signal_group(pgid, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), grace)
            how = "terminated"
        except TimeoutError:
            _signal_group(pgid, signal.SIGKILL)
            await proc.wait()
            how = "killed"
    # the leader is gone; anything it left in its group goes too
    _signal_group(pgid, signal.SIGKILL)
    return how
