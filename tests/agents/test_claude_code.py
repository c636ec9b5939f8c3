"""The claude-code backend against the fake CLI, as a real separate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bandstand.agents import TurnRequest
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from bandstand.errors import BackendUnavailable, CircuitOpen, TurnFailed
from tests.peers.claude import fake_claude_bin, process_exists


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def __call__(self, kind: str, fields: dict) -> None:
        self.events.append((kind, fields))


async def test_one_process_many_turns(claude_backend: ClaudeCodeBackend) -> None:
    conv = await claude_backend.open("You are BEAT.", {"model": "haiku"})
    try:
        pid = conv.pid
        replies = [await conv.turn(TurnRequest(t), Recorder()) for t in ("one", "two", "three")]
        data = [json.loads(r.text) for r in replies]
        assert [d["turn"] for d in data] == [1, 2, 3]
        assert data[-1]["seen"] == ["one", "two", "three"]
        assert data[0]["persona"] == "You are BEAT." and data[0]["model"] == "haiku"
        assert conv.pid == pid and process_exists(pid)
        # total_cost_usd is cumulative per process: each turn reports its own share
        assert [r.usage.cost_usd for r in replies] == pytest.approx([0.001] * 3)
    finally:
        await conv.close()
    assert not process_exists(pid)
    assert claude_backend.registry.entries() == []


async def test_streams_text_and_tool_use_and_skips_malformed_lines(
    claude_backend: ClaudeCodeBackend,
) -> None:
    conv = await claude_backend.open("p", {})
    rec = Recorder()
    try:
        reply = await conv.turn(TurnRequest("[[malformed]][[tool]] go"), rec)
    finally:
        await conv.close()
    kinds = [k for k, _ in rec.events]
    assert kinds == ["tool_use", "text_delta"]
    assert rec.events[0][1]["tool"] == "think"
    assert json.loads(reply.text)["echo"] == "[[malformed]][[tool]] go"


async def test_is_error_result_fails_the_turn_and_process_stays(
    claude_backend: ClaudeCodeBackend,
) -> None:
    conv = await claude_backend.open("p", {})
    try:
        with pytest.raises(TurnFailed, match="is_error") as info:
            await conv.turn(TurnRequest("[[is_error]] x"), Recorder())
        assert info.value.retryable
        pid = conv.pid
        assert json.loads((await conv.turn(TurnRequest("y"), Recorder())).text)["turn"] == 2
        assert conv.pid == pid
    finally:
        await conv.close()


async def test_structured_output_and_null_structured(claude_backend: ClaudeCodeBackend) -> None:
    schema = {"type": "object", "properties": {"echo": {"type": "string"}}}
    conv = await claude_backend.open("p", {"json_schema": schema})
    try:
        reply = await conv.turn(TurnRequest("hello"), Recorder())
        assert reply.structured["echo"] == "hello"
        with pytest.raises(TurnFailed, match="no structured output"):
            await conv.turn(TurnRequest("[[null_structured]] hi"), Recorder())
    finally:
        await conv.close()


async def test_per_turn_schema_is_asked_for_in_the_text(claude_backend: ClaudeCodeBackend) -> None:
    conv = await claude_backend.open("p", {})
    try:
        reply = await conv.turn(TurnRequest("play", schema={"type": "object"}), Recorder())
    finally:
        await conv.close()
    assert "matching this JSON schema" in json.loads(reply.text)["echo"]


async def test_missing_binary_is_backend_unavailable(tmp_path) -> None:
    backend = ClaudeCodeBackend(
        bin=str(tmp_path / "no-claude"), registry=ProcessRegistry(tmp_path / "pids")
    )
    with pytest.raises(BackendUnavailable, match="BANDSTAND_CLAUDE_BIN"):
        await backend.open("p", {})


async def test_crash_at_start_and_no_initialize_answer(tmp_path) -> None:
    # the crash is seen however slowly the fake starts (a long init timeout: a short one raced
    # the crash on a busy machine); the silent CLI can only time out, so a short one is no race
    for mode, match, init_timeout in (
        ("crash", "exited at start .*FAKE_CLAUDE_START=crash", 120.0),
        ("no_init", "no answer to initialize within 0.5 s", 0.5),
    ):
        backend = ClaudeCodeBackend(
            bin=str(fake_claude_bin(tmp_path / mode, env={"FAKE_CLAUDE_START": mode})),
            registry=ProcessRegistry(tmp_path / "pids"),
            init_timeout=init_timeout,
            term_grace=0.5,
        )
        with pytest.raises(BackendUnavailable, match=match):
            await backend.open("p", {})
        assert backend.registry.entries() == []


async def test_crash_loop_opens_the_breaker(claude_backend: ClaudeCodeBackend) -> None:
    conv = await claude_backend.open("p", {})
    try:
        for _ in range(claude_backend.breaker_threshold):
            with pytest.raises(TurnFailed, match="exited mid-turn"):
                await conv.turn(TurnRequest("[[crash]]"), Recorder())
        with pytest.raises(CircuitOpen):
            await conv.turn(TurnRequest("fine now"), Recorder())
    finally:
        await conv.close()


HOST = """
import asyncio, os
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from bandstand.agents import TurnRequest

async def main():
    backend = ClaudeCodeBackend(bin={claude!r}, registry=ProcessRegistry({registry!r}))
    conv = await backend.open("p", {{}})
    reply = await conv.turn(TurnRequest("[[spawn_child]] hi"), lambda k, f: None)
    if {hang}:
        asyncio.ensure_future(conv.turn(TurnRequest("[[hang_hard]]"), lambda k, f: None))
        await asyncio.sleep(0.3)
    print(conv.pid, reply.text, flush=True)
    os._exit(9)  # the host dies without cleaning up

asyncio.run(main())
"""


@pytest.mark.parametrize("hang", [True, False], ids=["cli-stuck-in-a-turn", "cli-exits-on-eof"])
def test_registry_reaps_children_of_a_crashed_host(tmp_path, hang: bool) -> None:
    registry_dir = tmp_path / "pids"
    host = HOST.format(
        claude=str(fake_claude_bin(tmp_path / "bin")), registry=str(registry_dir), hang=hang
    )
    done = subprocess.run(
        [sys.executable, "-c", host], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 9, done.stderr
    pid_text, reply = done.stdout.split(" ", 1)
    pid = int(pid_text)
    grandchild = int(json.loads(reply)["echo"].rsplit("child=", 1)[1])
    try:
        # the CLI left mid-turn outlives its host; a CLI that saw stdin EOF exits, but its child stays
        assert process_exists(grandchild)
        if hang:
            assert process_exists(pid)
        reaped = ProcessRegistry(registry_dir).reap_stale()
        if hang:
            assert reaped == [pid]
        _wait_gone(pid)
        _wait_gone(grandchild)
        assert ProcessRegistry(registry_dir).entries() == []
    finally:
        for p in (pid, grandchild):
            if process_exists(p):
                os.kill(p, 9)


def _wait_gone(pid: int) -> None:
    """Wait (bounded) for a killed orphan to leave the process table."""
    for _ in range(500):
        if not process_exists(pid):
            return
        subprocess.run(["sleep", "0.01"], check=True)
    raise AssertionError(f"process {pid} is still running")


def test_host_exit_takes_its_process_groups_along(tmp_path) -> None:
    registry_dir = tmp_path / "pids"
    host = HOST.format(
        claude=str(fake_claude_bin(tmp_path / "bin")), registry=str(registry_dir), hang=True
    )
    host = host.replace(
        "os._exit(9)  # the host dies without cleaning up",
        "raise SystemExit(0)  # exits, never closing",
    )
    done = subprocess.run(
        [sys.executable, "-c", host], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    pid_text, reply = done.stdout.split(" ", 1)
    grandchild = int(json.loads(reply)["echo"].rsplit("child=", 1)[1])
    try:
        _wait_gone(int(pid_text))
        _wait_gone(grandchild)  # killed with its group at interpreter exit, no reaping needed
    finally:
        if process_exists(grandchild):
            os.kill(grandchild, 9)
