"""Process hygiene for agent CLIs: one process group per session, a PID registry, reaping.

Every child runs in its own session and process group (``start_new_session``)
so that it and anything it spawns can be signalled together. Each live child
has a small JSON file in the registry folder naming it, its group, its start
time and its owner (this host process). On a clean close the file goes; at
interpreter exit the owner kills what it still has; and if the owner died
without cleaning up, the next `reap_stale()` finds the files whose owner is
gone and kills those groups. Start times (from ``/proc``) guard against PID
reuse: a process is only signalled if it is the one that was recorded.

A child can leave its group (``setsid``) and outlive it, holding the CLI's
stdout open. So every child also gets a *tag* in its environment
(``BANDSTAND_AGENT_TAG``), which its descendants inherit wherever they move;
`kill_tree` kills the group, every descendant found through the parent links
in ``/proc``, and every process carrying the tag — after a crash of the host
too, since the registry records the tag. (A child subreaper would catch
escapees only while this host lives, and would make this process the parent
of every orphan below it, jam servers included; the tag needs no global state.)

`spawn` starts a child whose *exit* is noticed at once (`Child.exited`), even
while a grandchild keeps its pipes open — asyncio's ``wait()`` only returns
once every pipe is closed. Stopping is graceful first: `terminate_group`
sends SIGTERM to the group, waits for the exit, then kills the whole tree.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bandstand.files import write_json

_HAVE_PROC = Path("/proc/self/stat").exists()
TAG_VARIABLE = "BANDSTAND_AGENT_TAG"
_live: dict[int, tuple[int, str | None]] = {}  # pid → (pgid, tag) of children started here, not yet reaped
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


def tagged(tag: str) -> list[int]:
    """PIDs of the live processes whose environment carries ``BANDSTAND_AGENT_TAG=tag``."""
    if not _HAVE_PROC or not tag:
        return []
    needle, me, found = f"{TAG_VARIABLE}={tag}".encode(), os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if needle in environ.split(b"\0") and is_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """PIDs of the live processes below `pid` (children, their children …), from ``/proc``."""
    if not _HAVE_PROC:
        return []
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and len(fields) > 1 and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], list(children.get(pid, ()))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, ()))
    return found


def kill_tree(pgid: int, tag: str | None = None, *, rounds: int = 5) -> list[int]:
    """SIGKILL group `pgid`, every descendant of its leader and every process tagged `tag`.

    Repeated while something is found (a process may fork while its tree is killed);
    returns the PIDs signalled besides the group."""
    killed: list[int] = []
    for _ in range(rounds):
        _signal_group(pgid, signal.SIGKILL)
        found = set(descendants(pgid)) | set(tagged(tag) if tag else ())
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.extend(sorted(found))
    return killed


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _kill_live_children() -> None:
    for pgid, tag in list(_live.values()):
        kill_tree(pgid, tag)
    _live.clear()


class ProcessRegistry:
    """The PID files of agent children, in one folder shared by all bandstand processes."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_registry_dir()

    def register(self, pid: int, pgid: int, argv: Iterable[str], tag: str | None = None) -> None:
        global _atexit_installed
        if not _atexit_installed:
            atexit.register(_kill_live_children)
            _atexit_installed = True
        _live[pid] = (pgid, tag)
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
                "tag": tag,
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
                    reaped.append(pid)
                kill_tree(int(entry["pgid"]), entry.get("tag"))
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
            if entry.get("tag"):  # escapees that left the group, wherever they are now
                kill_tree(pgid, entry["tag"])
            elif entry.get("start") is not None:
                # leader gone: kill what is left of its group, if the group still exists
                for member in group_members(pgid):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(member, signal.SIGKILL)
            self.unregister(pid)
        return reaped


class _ExitAware(asyncio.subprocess.SubprocessStreamProtocol):
    """The stream protocol of `asyncio.create_subprocess_exec`, telling when the process exits."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


@dataclass(slots=True)
class Child:
    """A started child: the asyncio process, its exit (set when *it* exits), its tag, its transport."""

    proc: asyncio.subprocess.Process
    exited: asyncio.Event
    tag: str
    transport: asyncio.SubprocessTransport

    def close(self) -> None:
        """Close the transport and its pipes now. asyncio closes it by itself only once the process
        has exited *and* every pipe has closed — which a stray holder of a pipe, or a loop that
        stops first, can put off until garbage collection (an "unclosed transport" warning, in
        whichever test or request happens to collect it)."""
        with contextlib.suppress(RuntimeError):  # the loop is already closed: nothing left to close on
            self.transport.close()

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def wait_exit(self, timeout: float | None) -> bool:
        """Wait until the process itself has exited (not its pipes); False after `timeout`."""
        try:
            await asyncio.wait_for(self.exited.wait(), timeout)
        except TimeoutError:
            return False
        return True


async def spawn(argv: list[str], *, env: Mapping[str, str], limit: int) -> Child:
    """Start `argv` with piped stdio in a new session and process group, tagged (see the module docstring)."""
    loop = asyncio.get_running_loop()
    tag = uuid.uuid4().hex
    protocol = _ExitAware(limit, loop)
    transport, _ = await loop.subprocess_exec(
        lambda: protocol, *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True, env={**env, TAG_VARIABLE: tag},
    )
    return Child(asyncio.subprocess.Process(transport, protocol, loop), protocol.exited, tag, transport)


async def terminate_group(child: Child, *, grace: float = 2.0) -> str:
    """Stop `child` and everything it started: SIGTERM to its group, wait `grace` for it to exit,
    then SIGKILL the whole tree (group, descendants, tagged escapees). Returns how it ended."""
    pgid = child.pid  # started with start_new_session: the child leads its own group
    how = "exited"
    if child.proc.returncode is None:
        _signal_group(pgid, signal.SIGTERM)
        how = "terminated" if await child.wait_exit(grace) else "killed"
    # the leader is gone (or going); anything it left, in its group or not, goes too. Finding the
    # tagged reads every process's environment (~20 ms for 150 processes): not on the event loop
    _signal_group(pgid, signal.SIGKILL)
    await asyncio.to_thread(kill_tree, pgid, child.tag)
    await child.wait_exit(None)
    # the pipes close once the last holder is dead; asyncio then reaps (bounded: a stray holder we could not kill)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(child.proc.wait(), 1.0)
    child.close()
    return how
