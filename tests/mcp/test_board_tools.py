"""`bandstand mcp --board URL --as SESSION`: one session's board tools over MCP. The official SDK's
client, in process and against the real command over stdio: the tools are the toolbox's, a claim
and a review move the task, and a call the protocol refuses is an error result that writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bandstand.board import Board

SRC = Path(__file__).resolve().parents[2] / "src"


def _board(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'board.db'}"
    with Board.open(url, workdir=tmp_path) as board:
        board.init("conductor-1")
        for task_id in ("task-01", "task-02"):
            board.create_task(task_id, phase="launch")
            board.instruct(task_id, f"write the part of {task_id}", conductor_session="conductor-1")
    return url


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_a_musician_works_its_task_through_the_mcp_tools(tmp_path: Path) -> None:
    from mcp import Client

    from bandstand.mcp import build_board_server
    from bandstand.producer.board.board_sessions import open_board_tools

    url = _board(tmp_path)
    with open_board_tools(url, "musician-1", "musician", workdir=tmp_path, phase="launch") as toolbox:
        async with Client(build_board_server(toolbox)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"claim_task", "submit_work", "request_review", "wait_for_review", "complete", "handoff"} <= names
            claimed = await client.call_tool("claim_task", {})
            assert not claimed.is_error and json.loads(_text(claimed))["task_id"] == "task-01"
            refused = await client.call_tool("report_completion", {
                "task_id": "task-02", "summary": "not mine", "checkpoint": 2, "checkpoints_total": 2,
                "context_usage": 10})
            assert refused.is_error
            assert _text(refused).startswith("error: report_completion: task-02 is not claimed yet (state watching)")
            bad = await client.call_tool("request_review", {"task_id": "task-01", "summary": "x"})
            assert bad.is_error and "checkpoint: Field required" in _text(bad)
            done = await client.call_tool("submit_work", {"task_id": "task-01", "answer": "a bass line"})
            assert not done.is_error
            asked = await client.call_tool("request_review", {
                "task_id": "task-01", "summary": "bass", "checkpoint": 1, "checkpoints_total": 2,
                "context_usage": 12})
            assert json.loads(_text(asked))["state"] == "needs_review"
    with Board.open(url, workdir=tmp_path) as board:
        assert str(board.task("task-01").state) == "needs_review"
        assert str(board.task("task-02").state) == "watching"
        assert [m.message_type for m in board.messages_since(0, task_id="task-02")] == ["instruction"]
        assert [m.message_type for m in board.messages_since(0, task_id="task-01")] == [
            "instruction", "result", "review_request"]
    assert (tmp_path / "output" / "board" / "task-01" / "answer.md").read_text() == "a bass line\n"


async def test_the_command_serves_the_conductor_tools_over_stdio(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    url = _board(tmp_path)
    with Board.open(url, workdir=tmp_path) as board:
        board.claim("task-01", "musician-1")
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "bandstand", "mcp", "--board", url, "--as", "conductor-1", "--role", "conductor", "--workdir",
        str(tmp_path)], env={"PYTHONPATH": str(SRC), "PATH": str(Path(sys.executable).parent)})
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"list_tasks", "read_task", "approve", "reject", "propose_fix", "request_exit"}
        refused = await client.call_tool("approve", {"task_id": "task-01", "note": "looks fine"})
        assert refused.is_error and "task-01" in _text(refused) and "working" in _text(refused)
        asked = await client.call_tool("request_exit", {"task_id": "task-01", "reason": "hand off"})
        assert not asked.is_error and json.loads(_text(asked))["state"] == "exit_requested"


@pytest.mark.parametrize(("args", "says"), [
    (["--board", "sqlite:///x.db"], "the board tools need both --board URL and --as SESSION"),
    (["--board", "sqlite:///x.db", "--as", "m-1", "--role", "drummer"], "--role 'drummer': the board roles are"),
])
def test_bad_board_options_are_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, "-m", "bandstand", "mcp", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(SRC), "PATH": str(Path(sys.executable).parent)},
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr


async def test_the_documented_client_config_starts_the_board_tools(tmp_path: Path) -> None:
    """docs/board.md's `.mcp.json` snippet, with this test's board in place of ``sqlite:///band.db``."""
    import re

    from mcp import Client, StdioServerParameters

    doc = (Path(__file__).resolve().parents[2] / "docs" / "board.md").read_text()
    config = json.loads(next(b for b in re.findall(r"```json\n(.*?)```", doc, re.S) if "mcpServers" in b))
    server = config["mcpServers"]["board"]
    url = _board(tmp_path)
    args = [url if a == "sqlite:///band.db" else a for a in server["args"]]
    assert server["command"] == "bandstand" and url in args
    params = StdioServerParameters(command=sys.executable, args=["-m", "bandstand", *args], cwd=str(tmp_path),
                                   env={"PYTHONPATH": str(SRC), "PATH": str(Path(sys.executable).parent)})
    async with Client(params) as client:
        claimed = await client.call_tool("claim_task", {})
        assert json.loads(_text(claimed))["worked_by"] == "musician-task-01"
    with Board.open(url, workdir=tmp_path) as board:
        assert board.task("task-01").session_id == "musician-1"
