"""Model-backed board sessions: the model makes its own board writes, through tools.

With a model backend (``claude-code``, ``anthropic``, ``openai``) a launched
session is given the board tools of its role (`board.tools.BoardToolbox`) and
works the protocol itself. The harness here only relays: `tool_turns` sends a
message with the tools, runs every call the reply makes through the toolbox —
the one place each call is checked against the protocol's states and fencing
(a refused call is an error result the model reads, never a crash) — and
sends the results back, until the model ends its turn without calling a tool.
A ``claude-code`` session gets the same tools through the CLI's MCP bridge
(``--mcp-config`` with an SDK server, ``--allowedTools mcp__bandstand``;
`agents.claude_tools`).

`run_model_musician` starts one session per task while the launch has a task
to claim: the session claims it (`claim_task`), logs its steps, submits the
work, asks for review, waits for the verdict, resumes, reports completion and
completes — or hands off. A session that ends its turn while its task is not
finished is reminded (`NUDGES` times); then it is closed and its task goes
stale, and the conductor hands it to the next musician."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["MAX_ROUNDS", "NUDGES", "musician_prompt", "open_board_tools", "run_model_musician", "tool_turns"]

#: Model messages with tool calls in one `tool_turns` before the session is cut off (a budget).
MAX_ROUNDS = 40
#: Reminders to a session that ended its turn with its task unfinished.
NUDGES = 2
#: Sessions in a row that claimed nothing while tasks were claimable, before the musician gives up.
IDLE_SESSIONS = 3


async def tool_turns(session: Any, message: str, toolbox: Any, *, max_rounds: int = MAX_ROUNDS) -> str:
    """Send `message` with the toolbox's tools; answer every call through the toolbox until the model
    ends its turn without calls. Returns the model's last text."""
    from bandstand.agents.base import ToolResult
    from bandstand.agents.tools import error_result, specs
    from bandstand.errors import AgentError

    tools = specs(toolbox.specs())
    reply = await session.send(message, tools=tools)
    for _ in range(max_rounds):
        if not reply.tool_calls or toolbox.stop.is_set():  # a stop request: no more calls are run
            return str(reply.text)
        results = []
        for call in reply.tool_calls:
            if call.error is not None:  # an unknown tool or arguments that are not an object
                results.append(error_result(call))
                continue
            answer = await asyncio.to_thread(toolbox.call, call.name, dict(call.arguments))
            results.append(ToolResult(call.id, answer.content, answer.is_error))
        reply = await session.send("", tools=tools, tool_results=results)
    raise AgentError(f"{session.name}: more than {max_rounds} rounds of tool calls in one turn; ended the session")


@contextlib.contextmanager
def open_board_tools(board: str | None, session_id: str, role: str, *, workdir: str | os.PathLike[str] = ".",
                     phase: str | None = None) -> Iterator[Any]:
    """One session's board tools on an open board (for `bandstand mcp --board`): a musician's work
    submitted with `submit_work` is written to ``WORKDIR/output/board/TASK/answer.md``."""
    from pathlib import Path

    from bandstand.board import Board
    from bandstand.board.tools import BoardToolbox
    from bandstand.errors import InvalidInput
    from bandstand.producer.board.board_work import answer_work

    if role not in ("musician", "conductor"):
        raise InvalidInput(f"--role {role!r}: the board roles are musician and conductor")
    if not session_id.strip():
        raise InvalidInput("--as names the session the tools act as (e.g. --as musician-1); it cannot be empty")
    folder = Path(workdir)
    out = folder / "output" / "board"
    with Board.open(board, workdir=folder, migrate=False) as opened:
        yield BoardToolbox(opened, session_id, role, workdir=folder, phase=phase,
                           submit=lambda task_id, answer: answer_work(task_id, answer, out).to_json())


def musician_prompt(setup: Any) -> str:
    from bandstand.board.skilltext import launch_prompt

    return launch_prompt(role="musician", name="a musician of this launch", session_id=setup.session_id,
                         board=setup.board, task_id="the next task of this launch: claim_task claims it",
                         workdir=str(setup.workdir), instruction="claim_task returns it.", tools=True)


def _claimable(board: Any, phase: str) -> tuple[bool, bool]:
    """(any task of the launch claimable, every task of the launch finished)."""
    from bandstand.board import CLAIMABLE, TERMINAL

    mine = [t for t in board.tasks() if t.phase == phase]
    return any(t.state in CLAIMABLE for t in mine), bool(mine) and all(t.state in TERMINAL for t in mine)


async def run_model_musician(setup: Any, board: Any, make_session: Callable[[str], Any], stop: threading.Event,
                             report: Any, phase: str) -> Any:
    """Start sessions while the launch has tasks to claim (see the module docstring)."""
    from bandstand.board import TERMINAL
    from bandstand.board.tools import BoardToolbox
    from bandstand.errors import AgentError
    from bandstand.producer.board.board_work import answer_work, task_checks

    def submit(task_id: str, answer: str) -> str:
        return answer_work(task_id, answer, setup.out).to_json()

    def gates_for(task_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = board.last_message(task_id, "instruction")
        named = task_checks(found.message if found is not None else "")
        return named.tests, named.sources

    idle = 0
    number = 0
    while not stop.is_set():
        claimable, finished = await asyncio.to_thread(_claimable, board, phase)
        if finished:
            break
        if not claimable:
            await asyncio.sleep(setup.poll)
            continue
        number += 1
        toolbox = BoardToolbox(board, setup.session_id, "musician", workdir=setup.workdir, phase=phase,
                               poll=setup.poll, heartbeat=setup.heartbeat, submit=submit, gates_for=gates_for,
                               stop=stop)
        session = make_session(f"{setup.session_id}-{number}")
        try:
            try:
                await session.start()
            except AgentError as exc:
                raise AgentError(f"{setup.session_id}: the {setup.backend} session could not start ({exc}); "
                                 "it claimed no task") from exc
            await tool_turns(session, musician_prompt(setup), toolbox)
            for _ in range(NUDGES):
                held = toolbox.holding
                if held is None or stop.is_set():
                    break
                task = await asyncio.to_thread(board.task, held)
                if task.state in TERMINAL or task.session_id != setup.session_id:
                    break
                await tool_turns(session, f"{held} is {task.state} and still yours: go on with the board tools "
                                          "until it is complete, or hand it off.", toolbox)
        except AgentError as exc:
            if toolbox.holding is None:
                raise
            report.errors.append(f"{toolbox.holding}: {exc}")  # the task goes stale; the conductor recovers it
        finally:
            await session.close()
        held = toolbox.holding
        if held is None:
            idle += 1
            if idle >= IDLE_SESSIONS:
                raise AgentError(f"{setup.session_id}: {idle} {setup.backend} sessions in a row claimed no task "
                                 "although tasks were waiting; stopping")
            await asyncio.sleep(setup.poll)
            continue
        idle = 0
        task = await asyncio.to_thread(board.task, held)
        if task.state.value == "complete" and task.session_id == setup.session_id:
            report.completed.append(held)
        elif task.state not in TERMINAL:
            report.lost.append(f"{held}: the session ended with the task {task.state}")
    return report
