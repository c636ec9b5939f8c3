"""Process hygiene of the claude-code backend against real processes (issue #17, runtime):
grandchildren that leave the process group, a CLI that exits while one holds its stdout,
an endless stdout line, a hung CLI whose session gives the interrupt less time than the
backend's graces."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from bandstand.agents import TurnRequest
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from bandstand.errors import BackendUnavailable, TurnFailed, TurnTimeout
from bandstand.runtime import Session, SessionLimits
from tests.peers.claude import fake_claude_bin, marked, process_exists, wait_gone


def backend_for(tmp_path: Path, mark: str, **kwargs: object) -> ClaudeCodeBackend:
    env = {"FAKE_CLAUDE_MARK": mark}
    start = kwargs.pop("start", None)
    if start:
        env["FAKE_CLAUDE_START"] = str(start)
    options: dict = {"init_timeout": 30.0, "interrupt_grace": 2.0, "term_grace": 0.5, **kwargs}
    return ClaudeCodeBackend(bin=str(fake_claude_bin(tmp_path / f"bin-{mark}", env=env)),
                             registry=ProcessRegistry(tmp_path / "pids"), **options)


def _noop(kind: str, fields: dict) -> None:
    pass


async def test_grandchildren_that_left_the_group_die_with_their_sessions(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    backend = backend_for(tmp_path, mark)
    escaped = []
    try:
        for run in range(4):
            async with Session(backend, name=f"run{run}", limits=SessionLimits(turn_timeout=30)) as session:
                reply = json.loads((await session.send("[[escape_child]] a helper of my own")).text)
                escaped.append(int(reply["echo"].rsplit("escaped=", 1)[1]))
                assert process_exists(escaped[-1])
        assert wait_gone(escaped) == []
        assert wait_gone(marked(mark)) == []
        assert backend.registry.entries() == []
    finally:
        for pid in marked(mark):
            subprocess.run(["kill", "-9", str(pid)], check=False)


async def test_a_cli_that_exits_at_start_is_noticed_while_an_escapee_holds_its_stdout(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    backend = backend_for(tmp_path, mark, start="escape", init_timeout=60.0)
    try:
        with pytest.raises(BackendUnavailable, match=r"exited at start \(code 2\)"):
            await backend.open("p", {})
        assert wait_gone(marked(mark)) == []  # the escapee went with it
        assert backend.registry.entries() == []
    finally:
        for pid in marked(mark):
            subprocess.run(["kill", "-9", str(pid)], check=False)


async def test_a_cli_that_dies_mid_turn_fails_the_turn_while_an_escapee_holds_its_stdout(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    backend = backend_for(tmp_path, mark)
    try:
        async with Session(backend, limits=SessionLimits(turn_timeout=60)) as session:
            with pytest.raises(TurnFailed, match=r"exited mid-turn \(code 3\)"):
                await session.send("[[escape_child]][[crash]] one more")
            assert wait_gone(marked(mark)) == []  # the dead CLI's escapee went with it
            reply = json.loads((await session.send("still there?")).text)
            assert reply["echo"].endswith("still there?")
        assert wait_gone(marked(mark)) == []
    finally:
        for pid in marked(mark):
            subprocess.run(["kill", "-9", str(pid)], check=False)


async def test_an_endless_stdout_line_is_a_typed_turn_failure(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    backend = backend_for(tmp_path, mark)
    conv = await backend.open("p", {})
    try:
        first = conv.pid
        with pytest.raises(TurnFailed, match="stdout line longer than 33554432 bytes") as failed:
            await conv.turn(TurnRequest("[[huge_line:40000000]] flood"), _noop)
        assert failed.value.retryable
        assert first is not None and wait_gone([first]) == []  # stopped: the stream cannot be followed
        reply = await conv.turn(TurnRequest("and now?"), _noop)  # a new process takes over
        assert conv.pid != first and json.loads(reply.text)["echo"] == "and now?"
    finally:
        await conv.close()
    assert wait_gone(marked(mark)) == []


async def test_a_hung_cli_is_killed_when_the_interrupt_budget_is_shorter_than_the_graces(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    backend = backend_for(tmp_path, mark, interrupt_grace=3.0, term_grace=3.0)
    limits = SessionLimits(turn_timeout=30, interrupt_timeout=0.2)
    async with Session(backend, limits=limits) as session:
        await session.send("remember the riff")
        first = session._conv.pid  # type: ignore[union-attr]
        with pytest.raises(TurnTimeout):
            await session.send("[[hang_hard]]", timeout=0.3)
        reply = json.loads((await session.send("go on", timeout=20)).text)
        assert session._conv.pid != first  # type: ignore[union-attr]
        assert "remember the riff" in reply["echo"] and reply["echo"].endswith("go on")
        assert first is not None and wait_gone([first]) == []
    assert wait_gone(marked(mark)) == []


CRASHING_HOST = """
import asyncio, os
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from bandstand.agents import TurnRequest

async def main():
    backend = ClaudeCodeBackend(bin={claude!r}, registry=ProcessRegistry({registry!r}))
    conv = await backend.open("p", {{}})
    reply = await conv.turn(TurnRequest("[[escape_child]] hi"), lambda k, f: None)
    print(reply.text, flush=True)
    os._exit(9)  # the host dies without cleaning up

asyncio.run(main())
"""


def test_the_next_host_reaps_the_escapees_of_a_crashed_one(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    claude = fake_claude_bin(tmp_path / "bin", env={"FAKE_CLAUDE_MARK": mark})
    host = CRASHING_HOST.format(claude=str(claude), registry=str(tmp_path / "pids"))
    try:
        done = subprocess.run([sys.executable, "-c", host], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 9, done.stderr
        escaped = int(json.loads(done.stdout)["echo"].rsplit("escaped=", 1)[1])
        assert process_exists(escaped)  # the CLI saw stdin EOF and exited; its escapee lives on
        ProcessRegistry(tmp_path / "pids").reap_stale()
        assert wait_gone(marked(mark)) == []
        assert ProcessRegistry(tmp_path / "pids").entries() == []
    finally:
        for pid in marked(mark):
            subprocess.run(["kill", "-9", str(pid)], check=False)
