"""The `claude-code` backend: one persistent `claude` CLI process per conversation.

The process runs ``claude -p --output-format stream-json --verbose
--input-format stream-json --system-prompt <persona> --tools "" …`` in its own
process group. A turn writes one ``user`` line and reads stdout until the
``result`` line (the end-of-turn signal); ``assistant`` text and tool-use blocks
become ``text_delta`` / ``tool_use`` events. Non-JSON stdout lines are skipped.
A result with ``is_error`` (or a non-success subtype, or a missing structured
output when a JSON schema is enforced) fails the turn.

Tools (`TurnRequest.tools`) reach the CLI through its SDK MCP bridge
(`bandstand.agents.claude_tools`): the process is started with the tool set
(from ``options["tools"]`` at open, else restarted with the conversation
replayed when a turn brings another set); a turn that ends in tool calls
returns them while the CLI waits, and the next turn's results answer it.

After a per-turn timeout the session calls `interrupt()`: an ``interrupt``
control request first; if no ``result`` follows within the grace period the
group gets SIGTERM, then SIGKILL — and if the caller's own budget for the
interrupt ends first (it cancels the call), the whole tree is killed at once,
so a hung process never outlives its interrupt. A process that died (crash, kill) is
restarted at the next turn, and the conversation so far is replayed to it in
that turn's message (as it is to the first process of a session resumed with
an earlier history). `close()` interrupts a running turn, closes stdin, waits,
then SIGTERM/SIGKILL. Children are recorded in a `ProcessRegistry`; the
backend reaps leftovers of crashed hosts when it opens its first conversation.
Killing takes the whole tree: the group, descendants, and processes that left
the group but carry the child's tag (`bandstand.agents.procs`).

The CLI's exit is noticed when the process exits, not when stdout reaches EOF
(a grandchild may hold stdout open): a read that sees the exit takes what the
CLI wrote before it and then ends. A stdout line longer than ``line_limit``
fails the turn (`TurnFailed`, retryable) and the process is killed; the next
turn starts a fresh one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

from bandstand.agents.base import (
    Conversation,
    Emit,
    Message,
    ToolSpec,
    TurnReply,
    TurnRequest,
    Usage,
)
from bandstand.agents.breaker import CircuitBreaker
from bandstand.agents.claude_subagents import Subagents, subagent_args
from bandstand.agents.claude_tools import ToolBridge, cli_args
from bandstand.agents.procs import Child, ProcessRegistry, kill_tree, spawn, terminate_group
from bandstand.agents.replies import schema_instruction
from bandstand.errors import BackendUnavailable, TurnFailed

_LINE_LIMIT = 32 * 1024 * 1024
_AFTER_EXIT = 0.25  # seconds to take what an exited CLI left in the pipe


class _Overlong(Exception):
    """A stdout line over the limit: the stream cannot be followed any more."""


def replay_text(history: Sequence[Message], text: str) -> str:
    """One message that gives a restarted process the conversation so far."""
    lines = [f"[{m.role}] {m.content}" for m in history]
    return (
        "(The conversation so far, replayed after a restart:)\n"
        + "\n".join(lines)
        + "\n(End of the replay. The next message follows.)\n"
        + text
    )


class ClaudeCodeBackend:
    """``ClaudeCodeBackend(bin="claude", model=None, …)``; one process per conversation."""

    name = "claude-code"

    def __init__(
        self,
        *,
        bin: str = "claude",
        model: str | None = None,
        thinking: bool = False,
        bare: bool = False,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        registry: ProcessRegistry | None = None,
        init_timeout: float = 60.0,
        interrupt_grace: float = 2.0,
        term_grace: float = 2.0,
        breaker_threshold: int = 3,
        breaker_cooldown: float = 30.0,
        line_limit: int = _LINE_LIMIT,
    ) -> None:
        self.bin = bin
        self.model = model
        self.thinking = thinking
        self.bare = bare
        self.extra_args = tuple(extra_args)
        self.env = dict(env or {})
        self.registry = registry or ProcessRegistry()
        self.init_timeout = init_timeout
        self.interrupt_grace = interrupt_grace
        self.term_grace = term_grace
        self.breaker_threshold = breaker_threshold
        self.breaker_cooldown = breaker_cooldown
        self.line_limit = line_limit
        self._reaped = False

    def executable(self) -> str:
        """The resolved path of the CLI, or `BackendUnavailable` saying how to get it."""
        found = shutil.which(self.bin)
        if found is None:
            raise BackendUnavailable(
                f"claude-code: the Claude Code CLI '{self.bin}' was not found; install it "
                "(npm install -g @anthropic-ai/claude-code) or set BANDSTAND_CLAUDE_BIN",
                backend=self.name,
            )
        return found

    def command(self, persona: str, options: Mapping[str, Any], tools: Sequence[ToolSpec] = ()) -> list[str]:
        cmd = [
            self.executable(),
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            "--system-prompt",
            persona,
            "--tools",
            "",
            "--strict-mcp-config",
            "--no-session-persistence",
        ]
        model = options.get("model") or self.model
        if model:
            cmd += ["--model", str(model)]
        if not (options.get("thinking", self.thinking)):
            cmd += ["--thinking", "disabled"]
        if options.get("bare", self.bare):
            cmd.append("--bare")
        if options.get("json_schema") is not None:
            cmd += ["--json-schema", json.dumps(options["json_schema"], separators=(",", ":"))]
        if options.get("max_budget_usd") is not None:
            cmd += ["--max-budget-usd", str(options["max_budget_usd"])]
        cmd += cli_args(tools)
        if options.get("subagents"):  # a team leader: its teammates are the CLI's own subagents
            at = cmd.index("--tools")
            del cmd[at : at + 2]
            cmd += subagent_args(options["subagents"])
        cmd += [*self.extra_args, *map(str, options.get("extra_args", ()))]
        return cmd

    async def open(self, persona: str, options: Mapping[str, Any]) -> Conversation:
        if not self._reaped:
            self._reaped = True
            self.registry.reap_stale()
        tools = tuple(options.get("tools") or ())
        conversation = ClaudeCodeConversation(self, self.command(persona, options, tools), options, persona, tools)
        try:
            await conversation.spawn()
        except BaseException:
            await conversation.close()
            raise
        return conversation


class ClaudeCodeConversation:
    """One live `claude` process and the turns run on it."""

    def __init__(
        self, backend: ClaudeCodeBackend, cmd: list[str], options: Mapping[str, Any], persona: str = "",
        tools: tuple[ToolSpec, ...] = (),
    ) -> None:
        self.backend = backend
        self.cmd = cmd
        self.persona = persona
        self.options = options
        self.bridge = ToolBridge(tools)
        self.subagents = Subagents() if options.get("subagents") else None
        self._tool_turn = False  # the CLI's turn is open, waiting for tool results
        self.enforced_schema = options.get("json_schema") is not None
        self.proc: asyncio.subprocess.Process | None = None
        self.child: Child | None = None
        self.restarts = 0
        self.breaker = CircuitBreaker(
            threshold=backend.breaker_threshold,
            cooldown=backend.breaker_cooldown,
            name="claude-code",
        )
        self._busy = False
        self._fresh = True  # this process has not seen the conversation yet
        self._cost_seen = 0.0
        self._requests = 0
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # ------------------------------------------------------------------ process

    async def spawn(self) -> None:
        env = {**os.environ, **self.backend.env}
        try:
            self.child = await spawn(self.cmd, env=env, limit=self.backend.line_limit)
        except OSError as exc:
            raise BackendUnavailable(
                f"claude-code: cannot run {self.cmd[0]}: {exc}", retryable=False
            ) from exc
        self.proc = self.child.proc
        self.backend.registry.register(self.proc.pid, self.proc.pid, self.cmd, self.child.tag)
        self._fresh = True
        self._cost_seen = 0.0
        self._busy = False
        self._tool_turn = False
        self.bridge.turn_ended()
        if self.subagents is not None:  # a new process: the old one's teammates are gone with it
            self.subagents = Subagents()
        self._stderr_task = asyncio.create_task(self._drain_stderr(self.proc))
        request_id = self._request_id()
        self._write(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {"subtype": "initialize", "hooks": None},
            }
        )
        try:
            async with asyncio.timeout(self.backend.init_timeout):
                while True:
                    try:
                        msg = await self._next()
                    except TurnFailed as exc:
                        raise BackendUnavailable(f"{exc} (at start)", retryable=True) from None
                    if msg is None:
                        code = await self._exit_code()
                        raise BackendUnavailable(
                            f"claude-code: the CLI exited at start (code {code}): {await self._exit_stderr()}",
                            retryable=True,
                        )
                    if (
                        msg.get("type") == "control_response"
                        and msg.get("response", {}).get("request_id") == request_id
                    ):
                        return
        except TimeoutError:
            raise BackendUnavailable(
                f"claude-code: no answer to initialize within {self.backend.init_timeout} s",
                retryable=True,
            ) from None

    async def _drain_stderr(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        with contextlib.suppress(Exception):
            while line := await proc.stderr.readline():
                self._stderr.append(line.decode("utf-8", "replace").rstrip())

    def stderr_tail(self) -> str:
        return " | ".join(self._stderr) or "(no stderr)"

    async def _exit_stderr(self) -> str:
        """The stderr tail of an exited process, once its last lines are read (bounded wait:
        a grandchild may hold stderr open)."""
        if self._stderr_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), _AFTER_EXIT)
        return self.stderr_tail()

    async def _exit_code(self) -> int | None:
        """The exit code of a process whose stdout ended (it exits at once, or is taken as gone)."""
        if self.child is None:
            return None
        await self.child.wait_exit(1.0)
        return self.child.proc.returncode

    def _alive(self) -> bool:
        proc, child = self.proc, self.child
        return (
            proc is not None
            and child is not None
            and not child.exited.is_set()
            and proc.stdout is not None
            and not proc.stdout.at_eof()
        )

    def _request_id(self) -> str:
        self._requests += 1
        return f"req_{self._requests}_bandstand"

    def _write(self, obj: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(obj, ensure_ascii=False) + "\n").encode())

    async def _next(self) -> dict[str, Any] | None:
        """The next message that is not a control request from the CLI (those are answered here)."""
        while True:
            msg = await self._read()
            if msg is None or msg.get("type") != "control_request":
                return msg
            response = self.bridge.control(msg)
            if response is not None:
                self._write(response)
                await self._drain()

    async def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await self.proc.stdin.drain()

    async def _read(self) -> dict[str, Any] | None:
        """The next JSON object from stdout, None at EOF or once the CLI has exited; non-JSON
        lines are skipped. A line over the limit kills the process and fails the turn."""
        assert self.child is not None
        child = self.child
        while True:
            try:
                line = await _readline(child)
            except _Overlong:
                await self._kill()
                raise TurnFailed(
                    f"claude-code: the CLI wrote a stdout line longer than {self.backend.line_limit} bytes "
                    "without a newline; the process was stopped (the next turn starts a new one)",
                    retryable=True,
                ) from None
            if not line:
                return None
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(msg, dict):
                return msg

    def _kill_now(self) -> None:
        """Kill the process tree at once, without waiting (the caller is being cancelled)."""
        proc, child, self.proc, self.child = self.proc, self.child, None, None
        if proc is None or child is None:
            return
        kill_tree(proc.pid, child.tag)
        child.close()
        self.backend.registry.unregister(proc.pid)
        self._busy = self._tool_turn = False

    async def _kill(self) -> None:
        proc, child, self.proc, self.child = self.proc, self.child, None, None
        if proc is None or child is None:
            return
        await terminate_group(child, grace=self.backend.term_grace)
        if (
            proc.stdin is not None
        ):  # lets asyncio close the transport now, not at garbage collection
            proc.stdin.close()
        self.backend.registry.unregister(proc.pid)
        if self._stderr_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._stderr_task, 1.0)

    async def _restart(self) -> None:
        await self._kill()
        self.restarts += 1
        try:
            await self.spawn()
        except BaseException:
            self.breaker.failure()
            raise

    # ------------------------------------------------------------------ turns

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        if self._closed:
            raise TurnFailed("claude-code: the conversation is closed")
        self.breaker.before_call()  # crash loops and failing starts open the breaker
        if request.tool_results:
            return await self._results(request, emit)
        if tuple(request.tools) != self.bridge.tools:  # the process offers a fixed set: start one with this set
            self.bridge = ToolBridge(request.tools)
            self.cmd = self.backend.command(self.persona, self.options, request.tools)
            await self._kill()
        if not self._alive():
            await self._restart()
            emit("backend_restarted", {"restarts": self.restarts, "pid": self.pid})
        text = request.text
        if request.schema is not None and not self.enforced_schema:
            text += schema_instruction(request.schema)
        if self._fresh and request.history:  # restarted, or a session resumed from its log
            text = replay_text(request.history, text)
        self._fresh = False
        return await self._guarded(self._run_turn(text, emit))

    async def _results(self, request: TurnRequest, emit: Emit) -> TurnReply:
        """Answer the calls the CLI waits on, then read on to the next calls or the turn's end."""
        if not self._tool_turn or not self._alive():
            raise TurnFailed("claude-code: there are no tool calls waiting for these results (the process restarted?)",
                             retryable=False)
        if request.text.strip():
            raise TurnFailed("claude-code: a turn that answers tool calls carries only the results (the CLI's turn "
                             "is still open); send the text in the next turn", retryable=False)
        for response in self.bridge.answer(request.tool_results):
            self._write(response)
        await self._drain()
        return await self._guarded(self._read_turn(emit))

    async def _guarded(self, running: Any) -> TurnReply:
        try:
            reply: TurnReply = await running
        except TurnFailed as exc:
            # a crash or API error counts against the process; a bad reply from a healthy one does not
            (self.breaker.failure if exc.retryable else self.breaker.success)()
            raise
        except asyncio.CancelledError:  # timed out or stopped
            self.breaker.failure()
            raise
        self.breaker.success()
        return reply

    async def _run_turn(self, text: str, emit: Emit) -> TurnReply:
        assert self.proc is not None and self.proc.stdin is not None
        self._write(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "parent_tool_use_id": None,
                "session_id": "default",
            }
        )
        self._busy = True
        await self._drain()
        return await self._read_turn(emit)

    async def _read_turn(self, emit: Emit) -> TurnReply:
        """Read until the turn's `result`, or until the model's message stops with calls for the host."""
        assert self.proc is not None
        texts: list[str] = []
        ended: dict[str, Any] | None = None  # the leader's result, held while its teammates work
        while True:
            if ended is not None and self.subagents is not None and not self.subagents.busy:
                self._busy = False
                return self._finish(ended)
            msg = await self._next()
            if msg is None:
                self._busy = self._tool_turn = False
                code, tail = await self._exit_code(), await self._exit_stderr()
                await self._kill()  # what it left behind goes now, not at the next turn
                raise TurnFailed(
                    f"claude-code: the CLI exited mid-turn (code {code}): {tail}",
                    retryable=True,
                    exit_code=code,
                )
            if self.subagents is not None and self.subagents.line(msg, emit):
                continue
            kind = msg.get("type")
            if kind == "assistant":
                for block in msg.get("message", {}).get("content", ()) or ():
                    if self.subagents is not None:
                        self.subagents.leader_block(block)
                    if block.get("type") == "text" and block.get("text"):
                        texts.append(block["text"])
                        emit("text_delta", {"text": block["text"]})
                    elif block.get("type") == "tool_use":
                        call = self.bridge.block(block)
                        emit("tool_use", {"id": block.get("id"), "tool": call.name if call else block.get("name"),
                                          "input": block.get("input"), "error": call.error if call else None})
            elif kind == "stream_event" and (msg.get("event") or {}).get("type") == "message_stop":
                calls = self.bridge.take_calls()
                if calls:  # the model waits for the host's results; the CLI's turn stays open
                    self._tool_turn = True
                    return TurnReply("".join(texts), None, Usage(), {"pid": self.pid}, calls, "tool_use")
            elif kind == "result":
                self._tool_turn = False
                self.bridge.turn_ended()
                if self.subagents is None:
                    self._busy = False
                    return self._finish(msg)
                # returned once every teammate it started has finished; until then the turn is
                # busy, so a timeout's interrupt ends with the process (and its teammates)
                ended = msg

    def _finish(self, msg: dict[str, Any]) -> TurnReply:
        total = float(msg.get("total_cost_usd") or 0.0)
        cost, self._cost_seen = max(0.0, total - self._cost_seen), max(total, self._cost_seen)
        raw = msg.get("usage") or {}
        usage = Usage(
            int(raw.get("input_tokens") or 0),
            int(raw.get("output_tokens") or 0),
            int(raw.get("cache_read_input_tokens") or 0),
            int(raw.get("cache_creation_input_tokens") or 0),
            cost,
        )
        subtype = msg.get("subtype")
        if msg.get("is_error") or subtype != "success":
            raise TurnFailed(
                f"claude-code: turn ended with {subtype}{' (is_error)' if msg.get('is_error') else ''}: "
                f"{str(msg.get('result') or '')[:300]}",
                retryable=True,
                subtype=subtype,
            )
        structured = msg.get("structured_output")
        if self.enforced_schema and structured is None:
            raise TurnFailed("claude-code: the reply has no structured output", retryable=False)
        meta: dict[str, Any] = {
            "session_id": msg.get("session_id"),
            "duration_ms": msg.get("duration_ms"),
            "pid": self.pid,
        }
        if self.subagents is not None:
            meta["teammates"] = self.subagents.take_finished()
        return TurnReply(str(msg.get("result") or ""), structured, usage, meta)

    async def interrupt(self) -> None:
        """Interrupt the running turn; kill and mark for restart if it does not end in time.
        Cancelled (the caller's budget ran out first): the process tree is killed at once."""
        if not self._busy or not self._alive():
            return
        try:
            await self._interrupt()
        except asyncio.CancelledError:
            self._kill_now()
            raise

    async def _interrupt(self) -> None:
        try:
            self._write(
                {
                    "type": "control_request",
                    "request_id": self._request_id(),
                    "request": {"subtype": "interrupt"},
                }
            )
            async with asyncio.timeout(self.backend.interrupt_grace):
                while (msg := await self._next()) is not None:
                    if msg.get("type") == "result":
                        self._busy = self._tool_turn = False
                        self.bridge.turn_ended()
                        total = float(msg.get("total_cost_usd") or 0.0)
                        self._cost_seen = max(total, self._cost_seen)
                        return
        except (TimeoutError, OSError, TurnFailed):
            pass
        await self._kill()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        proc = self.proc
        if proc is None:
            return
        if self._busy and self._alive():
            with contextlib.suppress(Exception):
                self._write(
                    {
                        "type": "control_request",
                        "request_id": self._request_id(),
                        "request": {"subtype": "interrupt"},
                    }
                )
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        try:
            if self.child is not None:
                await self.child.wait_exit(self.backend.interrupt_grace)
        except asyncio.CancelledError:
            self._kill_now()
            raise
        await self._kill()


async def _readline(child: Child) -> bytes:
    """The next stdout line of `child`; b"" at EOF, or once the process has exited and the
    pipe has nothing more for a moment (a grandchild may keep it open)."""
    stdout = child.proc.stdout
    assert stdout is not None
    reading = asyncio.ensure_future(stdout.readline())
    try:
        if not child.exited.is_set():
            exiting = asyncio.ensure_future(child.exited.wait())
            try:
                await asyncio.wait({reading, exiting}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                exiting.cancel()
        if not reading.done():  # exited: what it wrote before is in the pipe already
            await asyncio.wait({reading}, timeout=_AFTER_EXIT)
        if not reading.done():
            return b""
        try:
            return reading.result()
        except (ValueError, asyncio.LimitOverrunError):
            raise _Overlong() from None
    finally:
        if not reading.done():
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reading
