#!/usr/bin/env python3
"""A fake `claude` CLI that speaks the stream-json protocol of Claude Code 2.x.

Run as ``fake_claude.py --output-format stream-json --verbose --input-format
stream-json [--system-prompt P] [--model M] [--json-schema S] …``. It answers
the ``initialize`` and ``interrupt`` control requests, and each user line with
``system/init``, one ``assistant`` message and a ``result`` line, like the real
CLI. Messages that arrive during a turn are queued and get their own turns; a
non-JSON stdin line kills it (exit 1); stdin EOF finishes and exits 0; SIGINT
acts as an interrupt; SIGTERM exits 143.

The default reply is JSON text: ``{"echo": <content>, "turn": <n in this
process>, "seen": [<every user content this process saw>], "model": …}``
(also the structured output when ``--json-schema`` is given). Switches in a
user message change that turn; they must lead the message (so a conversation
replayed to a restarted process does not trigger them again), e.g.
``[[slow:0.2]][[tool]] play something``:

    [[slow:S]]         answer after S seconds (interruptible)
    [[hang]]           never answer (until interrupted)
    [[hang_hard]]      never answer, ignore interrupts and SIGTERM
    [[crash]]          write part of a reply, then exit 3 mid-turn
    [[malformed]]      write a non-JSON line and a torn JSON line before the reply
    [[is_error]]       result with subtype success but is_error true (an API failure)
    [[null_structured]] structured_output null (with --json-schema)
    [[tool]]           also emit a tool_use block
    [[spawn_child]]    start a grandchild (`sleep 600`) in the same process group
    [[escape_child]]   start a grandchild (`sleep 600`) that leaves the group (setsid), holding stdout
    [[huge_line:N]]    write N bytes of stdout without a newline first
    [[team:a,b]]       the leader starts subagents a and b (see Teams below)
    [[say]]            the reply text is exactly the rest of the message

Tools, as the CLI 2.1.332 offers an SDK MCP server's tools (`--mcp-config` with
a server of type "sdk", `--allowedTools`, `--include-partial-messages`): the
fake asks the host `initialize` over the control channel (``mcp_message``)
when the host initializes it, and `notifications/initialized` + `tools/list`
at its first turn; the tools are named ``mcp__<server>__<tool>``. A user
message in the `tool_script` form (``[[calls]] …``) makes the model call them:
one ``assistant`` line per content block (with ``stream_event`` lines around
them under --include-partial-messages, ending ``message_delta`` stop_reason
``tool_use`` and ``message_stop``), then the calls one at a time — a
``tools/call`` request carrying ``_meta["claudecode/toolUseId"]``, answered by
the host, then a ``user`` line with the ``tool_result``; an unknown tool or
input that is not an object is answered by the CLI itself with an error
result. The model's next message answers the results (`tool_script.answer`);
the ``result`` line counts both API calls. Interrupts work while a call waits.

Teams, as CLI 2.1.332 runs subagents (``--agents JSON`` defines them; the
``Task`` tool must be among ``--tools``, else the model says it cannot): for
``[[team:bass,drums]] task`` the model calls ``Agent`` once per name
({description, prompt, subagent_type}); each call is answered at once with an
async-launch tool_result (``tool_use_result.isAsync``) and a ``system``
``task_started`` (task_id, tool_use_id, description, task_type "local_agent");
the turn ends. Then each subagent works in the background, across the turn
boundary: an ``assistant`` line with ``parent_tool_use_id`` = its tool_use id,
``task_progress``, and ``task_notification`` (status completed, or failed when
its prompt holds ``[[fail]]``; summary = its answer; never, when it holds ``[[hang]]``). A subagent answers
``<name> (<first words of its prompt>): <task>``.

Environment: FAKE_CLAUDE_LOG (append every stdin line to this file),
FAKE_CLAUDE_CRASH_ONCE / FAKE_CLAUDE_CRASH_PERSONA (the first process whose system prompt
holds the persona text crashes at start, exit 2; later ones start),
FAKE_CLAUDE_START (``crash`` exits 2 at start, ``no_init`` never answers initialize,
``escape`` leaves a setsid grandchild holding stdout and exits 2 at start),
FAKE_CLAUDE_COST (USD per turn, default 0.001), FAKE_CLAUDE_PERSONAS (a JSON
object {text: reply}: a process whose --system-prompt holds one of the texts
answers that reply instead of the echo — also as the structured output), FAKE_CLAUDE_POLICY (the
name of a module beside this file with ``decide(system, transcript)``, e.g. ``board_policy``: with
tools offered, that scripted model decides each message and the CLI loops over its calls).
Only the standard library: the tests and the benchmark run it as a real process.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import tool_script  # beside this file (tests/peers), standard library only

SWITCH = re.compile(r"\s*\[\[(\w+)(?::([^\]]*))?\]\]")


def leading_switches(content: str) -> tuple[dict[str, str | None], str]:
    """The switches at the start of `content`, and the rest of it."""
    switches: dict[str, str | None] = {}
    pos = 0
    while match := SWITCH.match(content, pos):
        switches[match.group(1)] = match.group(2)
        pos = match.end()
    return switches, content[pos:].lstrip()


_OUT = threading.Lock()  # subagents write from their own threads


def out(obj: dict) -> None:
    with _OUT:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def escape() -> int:
    """A grandchild that leaves this process group and session, keeping stdout and stderr open."""
    return subprocess.Popen(["sleep", "600"], start_new_session=True).pid


def parse_args(argv: list[str]) -> dict[str, str | None]:
    opts: dict[str, str | None] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-v":
            opts["v"] = None
        if arg.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                opts[arg[2:]] = argv[i + 1]
                i += 2
                continue
            if i + 1 < len(argv) and argv[i + 1] == "":
                opts[arg[2:]] = ""
                i += 2
                continue
            opts[arg[2:]] = None
        i += 1
    return opts


class Fake:
    def __init__(self, opts: dict[str, str | None]) -> None:
        self.opts = opts
        self.inbox: queue.Queue[str | None] = queue.Queue()
        self.pending: list[dict] = []
        self.interrupted = threading.Event()
        self.session_id = f"fake-{os.getpid()}"
        self.turn = 0
        self.seen: list[str] = []
        self.total_cost = 0.0
        self.cost = float(os.environ.get("FAKE_CLAUDE_COST", "0.001"))
        self.log = os.environ.get("FAKE_CLAUDE_LOG")
        self.eof = False
        self.partial = "include-partial-messages" in opts
        self.servers = _sdk_servers(opts.get("mcp-config"))
        self.tools: list[str] = []  # mcp__server__tool names, once listed
        self.listed = False
        self.requests = 0
        self.ids = 0
        self.transcript: list[dict] = []  # FAKE_CLAUDE_POLICY: the conversation as the policy reads it

    def reader(self) -> None:
        for line in sys.stdin:
            if self.log:
                with open(self.log, "a", encoding="utf-8") as fh:
                    fh.write(line if line.endswith("\n") else line + "\n")
            self.inbox.put(line)
        self.inbox.put(None)

    def next_message(self, timeout: float | None) -> dict | str | None:
        """A parsed message, None at EOF, or "timeout"."""
        try:
            line = self.inbox.get(timeout=timeout)
        except queue.Empty:
            return "timeout"
        if line is None:
            self.eof = True
            return None
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            sys.stderr.write(f"Error parsing stream-json input: {line[:80]!r}\n")
            sys.stderr.flush()
            os._exit(1)

    def host_request(self, request: dict) -> dict | None:
        """Send a control request to the host and wait for its answer (None: interrupted or EOF)."""
        self.requests += 1
        request_id = f"fake-req-{self.requests}"
        out({"type": "control_request", "request_id": request_id, "request": request})
        while True:
            msg = self.next_message(0.05)
            if msg == "timeout":
                if self.interrupted.is_set():
                    self.interrupted.clear()
                    return None
                continue
            if msg is None:
                return None
            assert isinstance(msg, dict)
            if msg.get("type") == "control_response" and msg.get("response", {}).get("request_id") == request_id:
                return msg["response"]
            if msg.get("type") == "control_request":
                if self.control(msg):
                    return None
            elif msg.get("type") != "control_response":
                self.pending.append(msg)

    def mcp(self, server: str, message: dict) -> dict | None:
        answer = self.host_request({"subtype": "mcp_message", "server_name": server, "message": message})
        return None if answer is None else (answer.get("response") or {}).get("mcp_response") or {}

    def list_tools(self) -> None:
        if self.listed:
            return
        self.listed = True
        for server in self.servers:
            self.mcp(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            self.ids += 1
            listed = self.mcp(server, {"method": "tools/list", "jsonrpc": "2.0", "id": self.ids}) or {}
            self.tools += [f"mcp__{server}__{t['name']}" for t in (listed.get("result") or {}).get("tools", [])]

    def stream(self, event: dict) -> None:
        if self.partial:
            out({"type": "stream_event", "event": event, "session_id": self.session_id, "parent_tool_use_id": None,
                 "uuid": f"ev-{time.monotonic_ns()}"})

    def message(self, blocks: list[dict], stop_reason: str) -> None:
        """One model message as the CLI shows it: an assistant line per block, stream events around them."""
        self.ids += 1
        message = {"id": f"msg_fake_{self.ids}", "type": "message", "role": "assistant",
                   "model": self.opts.get("model"), "content": [], "stop_reason": None}
        self.stream({"type": "message_start", "message": message})
        for index, block in enumerate(blocks):
            opening = {**block, "input": {}} if block["type"] == "tool_use" else {"type": "text", "text": ""}
            self.stream({"type": "content_block_start", "index": index, "content_block": opening})
            if block["type"] == "tool_use":
                raw = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
                for piece in ["", *tool_script.pieces(raw)]:
                    self.stream({"type": "content_block_delta", "index": index,
                                 "delta": {"type": "input_json_delta", "partial_json": piece}})
            else:
                self.stream({"type": "content_block_delta", "index": index,
                             "delta": {"type": "text_delta", "text": block["text"]}})
            out({"type": "assistant", "message": {**message, "content": [block]}, "parent_tool_use_id": None,
                 "session_id": self.session_id})
            self.stream({"type": "content_block_stop", "index": index})
        self.stream({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                     "usage": {"output_tokens": 8}})
        self.stream({"type": "message_stop"})

    def call_tools(self, script: object, started: float) -> None:
        """The model calls the tools of `script`, the CLI runs them one by one, the model answers the results."""
        blocks: list[dict] = [{"type": "text", "text": script.text}] if script.text else []  # type: ignore[attr-defined]
        for call in script.calls:  # type: ignore[attr-defined]
            # the model names tools as it sees them, mcp__server__tool (a made-up one too)
            name = call.name if call.name.startswith("mcp__") else next(
                (t for t in self.tools if t.endswith(f"__{call.name}")), f"mcp__{self.servers[0]}__{call.name}")
            self.ids += 1
            blocks.append({"type": "tool_use", "id": f"toolu_fake_{self.ids:06d}", "name": name, "input": call.input})
        self.message(blocks, "tool_use")
        results = self.run_calls(blocks[1 if script.text else 0:], started)  # type: ignore[attr-defined]
        if results is None:
            return
        text = tool_script.answer(results)
        self.message([{"type": "text", "text": text}], "end_turn")
        self.result(text, started=started, num_turns=2)

    def policy_turn(self, content: str, started: float) -> None:
        """FAKE_CLAUDE_POLICY: a scripted model (a module beside this file with `decide(system,
        transcript)`, e.g. `board_policy`) decides every message from the conversation so far; the CLI
        runs its calls and asks it again, until it answers without calls."""
        policy = importlib.import_module(os.environ["FAKE_CLAUDE_POLICY"])
        content = content.rsplit(tool_script.REPLAY_END, 1)[-1].strip()
        if content:
            self.transcript.append({"kind": "user", "text": content})
        rounds = 1
        while True:
            decided = policy.decide(self.opts.get("system-prompt") or "", self.transcript)
            if not decided["calls"]:
                text = decided["text"] or "."
                self.message([{"type": "text", "text": text}], "end_turn")
                self.result(text, started=started, num_turns=rounds)
                return
            blocks: list[dict] = []
            for call in decided["calls"]:
                self.ids += 1
                name = next((t for t in self.tools if t.endswith(f"__{call['name']}")),
                            f"mcp__{self.servers[0]}__{call['name']}")
                blocks.append({"type": "tool_use", "id": f"toolu_fake_{self.ids:06d}", "name": name,
                               "input": call["arguments"]})
            self.message(([{"type": "text", "text": decided["text"]}] if decided["text"] else []) + blocks, "tool_use")
            results = self.run_calls(blocks, started)
            if results is None:
                return
            for call, got in zip(decided["calls"], results, strict=True):
                self.transcript.append({"kind": "call", "name": call["name"], "arguments": call["arguments"]})
                self.transcript.append({"kind": "result", "name": call["name"], "content": got["content"],
                                        "is_error": got["isError"]})
            rounds += 1

    def run_calls(self, blocks: list[dict], started: float) -> list[dict] | None:
        """The CLI runs the model's tool_use blocks one by one (None: interrupted while a call waited)."""
        results = []
        for block in blocks:
            name, data = block["name"], block["input"]
            if name not in self.tools:
                content, error = f"<tool_use_error>Error: No such tool available: {name}</tool_use_error>", True
            elif not isinstance(data, dict):
                content, error = f"InputValidationError: {name} failed: the input is not an object", True
            else:
                _, server, tool = name.split("__", 2)
                self.ids += 1
                answer = self.mcp(server, {"method": "tools/call", "params": {
                    "name": tool, "arguments": data, "_meta": {"claudecode/toolUseId": block["id"], "progressToken": self.ids}},
                    "jsonrpc": "2.0", "id": self.ids})
                if answer is None:
                    out({"type": "user", "message": {"role": "user", "content": [
                        {"type": "text", "text": "[Request interrupted by user]"}]}})
                    self.result("", subtype="error_during_execution", is_error=True, started=started)
                    return None
                got = answer.get("result") or {}
                content = "".join(c.get("text", "") for c in got.get("content", [])) or str(answer.get("error", ""))
                error = bool(got.get("isError")) or "error" in answer
            out({"type": "user", "message": {"role": "user", "content": [{
                "tool_use_id": block["id"], "type": "tool_result", "content": [{"type": "text", "text": content}],
                **({"is_error": True} if error else {})}]}, "parent_tool_use_id": None, "session_id": self.session_id,
                "tool_use_result": [{"type": "text", "text": content}]})
            results.append({"id": block["id"], "content": content, "isError": error})
        return results

    def team(self, names: str, task: str, started: float) -> bool:
        """Start the named subagents in the background and end the turn; False when it cannot."""
        agents = json.loads(self.opts.get("agents") or "{}")
        tools = (self.opts.get("tools") or "").replace(",", " ").split()
        if not agents or not {"Task", "Agent"} & set(tools):
            return False  # no Agent tool: the model answers in words
        blocks, launches = [], []
        for name in [n.strip() for n in names.split(",") if n.strip()]:
            self.ids += 1
            use_id, task_id = f"toolu_agent_{self.ids:04d}", f"task_{self.ids:04d}"
            blocks.append({"type": "tool_use", "id": use_id, "name": "Agent",
                           "input": {"description": f"{name}: {task[:40]}", "prompt": task, "subagent_type": name}})
            launches.append((name, use_id, task_id))
        for block in blocks:
            out({"type": "assistant", "message": {"model": self.opts.get("model"), "role": "assistant",
                 "content": [block]}, "parent_tool_use_id": None, "session_id": self.session_id})
        for name, use_id, task_id in launches:
            known = name in agents
            text = (f"Async agent launched successfully. agentId: {task_id}" if known
                    else f"Agent type '{name}' not found. Available agents: {', '.join(agents)}")
            out({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use_id, "content": text, **({} if known else {"is_error": True})}]},
                "parent_tool_use_id": None, "session_id": self.session_id,
                "tool_use_result": {"isAsync": True, "status": "async_launched", "agentId": task_id} if known else text})
            if known:
                out({"type": "system", "subtype": "task_started", "task_id": task_id, "tool_use_id": use_id,
                     "description": f"{name}: {task[:40]}", "task_type": "local_agent",
                     "session_id": self.session_id, "uuid": f"ev-{task_id}-start"})
        running = [(n, u, t) for n, u, t in launches if n in agents]
        text = f"Started {', '.join(n for n, _, _ in running) or 'nobody'}; waiting for their results."
        out({"type": "assistant", "message": {"model": self.opts.get("model"), "role": "assistant",
             "content": [{"type": "text", "text": text}]}, "parent_tool_use_id": None, "session_id": self.session_id})
        self.result(text, started=started)
        for name, use_id, task_id in running:
            threading.Thread(target=self.subagent, args=(agents[name], name, use_id, task_id, task), daemon=True).start()
        return True

    def subagent(self, spec: dict, name: str, use_id: str, task_id: str, task: str) -> None:
        """One subagent's work, after its leader's turn ended."""
        time.sleep(0.05)
        prompt = str(spec.get("prompt", ""))
        answer = f"{name} ({' '.join(prompt.split()[:6])}): {task}"
        if "[[hang]]" in prompt:  # works forever: never notifies
            time.sleep(3600)
        out({"type": "assistant", "message": {"model": spec.get("model"), "role": "assistant",
             "content": [{"type": "text", "text": answer}]}, "parent_tool_use_id": use_id,
             "session_id": self.session_id})
        out({"type": "system", "subtype": "task_progress", "task_id": task_id, "tool_use_id": use_id,
             "description": spec.get("description", name), "summary": f"{name} is writing",
             "usage": {"total_tokens": len(answer), "tool_uses": 0, "duration_ms": 50},
             "session_id": self.session_id, "uuid": f"ev-{task_id}-progress"})
        failed = "[[fail]]" in prompt
        out({"type": "system", "subtype": "task_notification", "task_id": task_id, "tool_use_id": use_id,
             "status": "failed" if failed else "completed", "output_file": "",
             "summary": f"{name} failed" if failed else answer,
             "usage": {"total_tokens": len(answer), "tool_uses": 0, "duration_ms": 50},
             "session_id": self.session_id, "uuid": f"ev-{task_id}-done"})

    def control(self, msg: dict) -> bool:
        """Answer a control request; True when it is an interrupt."""
        request = msg.get("request", {})
        subtype = request.get("subtype")
        if subtype == "initialize" and os.environ.get("FAKE_CLAUDE_START") == "no_init":
            return False
        if subtype == "initialize":
            for server in self.servers:  # the CLI connects its SDK MCP servers while it initializes
                self.ids += 1
                self.mcp(server, {"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "claude-code", "version": "2.1.332"}}, "jsonrpc": "2.0", "id": 0})
        response = (
            {"commands": [], "models": [], "pid": os.getpid()} if subtype == "initialize" else {}
        )
        out(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": msg.get("request_id"),
                    "response": response,
                },
            }
        )
        return subtype == "interrupt"

    def wait(self, seconds: float | None, hard: bool = False) -> bool:
        """Wait up to `seconds` (None: forever); True if interrupted."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            if self.interrupted.is_set() and not hard:
                self.interrupted.clear()
                return True
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return False
            if self.eof:
                time.sleep(left)
                continue
            msg = self.next_message(left)
            if msg == "timeout":
                continue
            if msg is None:
                continue
            assert isinstance(msg, dict)
            if msg.get("type") == "control_request":
                if self.control(msg) and not hard:
                    return True
            else:
                self.pending.append(msg)

    def result(
        self,
        text: str,
        *,
        subtype: str = "success",
        is_error: bool = False,
        structured=None,
        started=0.0,
        num_turns: int = 1,
    ) -> None:
        self.total_cost += self.cost
        out(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": is_error,
                "duration_ms": int((time.monotonic() - started) * 1000),
                "duration_api_ms": 1,
                "num_turns": num_turns,
                "result": text,
                "session_id": self.session_id,
                "total_cost_usd": round(self.total_cost, 9),
                "usage": {
                    "input_tokens": len(self.seen[-1]) if self.seen else 0,
                    "output_tokens": len(text),
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                },
                "structured_output": structured,
            }
        )

    def run_turn(self, msg: dict) -> None:
        started = time.monotonic()
        content = msg.get("message", {}).get("content", "")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        switches, rest = leading_switches(content)
        self.turn += 1
        self.seen.append(content)
        self.list_tools()
        out(
            {
                "type": "system",
                "subtype": "init",
                "session_id": self.session_id,
                "model": self.opts.get("model"),
                "tools": list(self.tools),
                "mcp_servers": [{"name": n, "status": "connected", "source": "sdk"} for n in self.servers],
            }
        )
        if "malformed" in switches:
            sys.stdout.write("this line is not json\n")
            sys.stdout.write('{"type": "assistant", "message": {"content": [\n')
            sys.stdout.flush()
        if "spawn_child" in switches:
            child = subprocess.Popen(["sleep", "600"])
            content = f"{content} child={child.pid}"
        if "escape_child" in switches:
            content = f"{content} escaped={escape()}"
        if switches.get("huge_line"):
            with _OUT:
                chunk = b"x" * 1_000_000
                left = int(switches["huge_line"] or 0)
                while left > 0:
                    sys.stdout.buffer.write(chunk[: min(left, len(chunk))])
                    left -= len(chunk)
                sys.stdout.flush()
        if switches.get("team") and self.team(switches["team"] or "", rest, started):
            return
        hard = "hang_hard" in switches
        if hard:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        delay = float(switches["slow"]) if switches.get("slow") else None
        waits = "hang" in switches or hard or delay is not None
        if waits and self.wait(delay, hard=hard):
            out(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                    },
                }
            )
            self.result("", subtype="error_during_execution", is_error=True, started=started)
            return
        if self.tools and os.environ.get("FAKE_CLAUDE_POLICY"):
            self.policy_turn(content, started)
            return
        script = tool_script.parse(content) if self.tools else None
        if script is not None:
            self.call_tools(script, started)
            return
        scripted = _persona_reply(self.opts.get("system-prompt"))
        if "say" in switches:
            text = rest
            data = None
        elif scripted is not None:
            text = scripted
            data = None
        else:
            data = {
                "echo": content,
                "turn": self.turn,
                "seen": list(self.seen),
                "model": self.opts.get("model"),
                "persona": self.opts.get("system-prompt"),
            }
            text = json.dumps(data)
        blocks: list[dict] = [{"type": "text", "text": text}]
        if "tool" in switches:
            blocks.insert(
                0,
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "think",
                    "input": {"about": "groove"},
                },
            )
        if "crash" in switches:
            out(
                {
                    "type": "assistant",
                    "message": {
                        "model": self.opts.get("model"),
                        "content": [{"type": "text", "text": text[:5]}],
                    },
                }
            )
            os._exit(3)
        out(
            {
                "type": "assistant",
                "message": {
                    "model": self.opts.get("model"),
                    "role": "assistant",
                    "content": blocks,
                },
            }
        )
        if "is_error" in switches:
            self.result("API Error: 529 overloaded", is_error=True, started=started)
            return
        structured = None
        if self.opts.get("json-schema") is not None and "null_structured" not in switches:
            structured = data if data is not None else _maybe_json(text)
        self.result(text, structured=structured, started=started)

    def main(self) -> int:
        if "version" in self.opts or "v" in self.opts:
            print("2.1.330 (Claude Code, bandstand test fake)")
            return 0
        if os.environ.get("FAKE_CLAUDE_START") == "crash":
            sys.stderr.write("fake claude: cannot start (FAKE_CLAUDE_START=crash)\n")
            return 2
        if _crash_once(self.opts.get("system-prompt")):
            sys.stderr.write("fake claude: cannot start (FAKE_CLAUDE_CRASH_ONCE)\n")
            return 2
        if os.environ.get("FAKE_CLAUDE_START") == "escape":
            escape()
            sys.stderr.write("fake claude: cannot start (FAKE_CLAUDE_START=escape)\n")
            return 2
        for flag, value in (("output-format", "stream-json"), ("input-format", "stream-json")):
            if self.opts.get(flag) != value:
                sys.stderr.write(f"Error: --{flag} {value} is required by this fake\n")
                return 1
        if "verbose" not in self.opts:
            sys.stderr.write(
                "Error: When using --print, --output-format=stream-json requires --verbose\n"
            )
            return 1
        signal.signal(signal.SIGINT, lambda *_: self.interrupted.set())
        threading.Thread(target=self.reader, daemon=True).start()
        while True:
            if self.pending:
                msg = self.pending.pop(0)
            else:
                got = self.next_message(None)
                if got is None:
                    return 0
                assert isinstance(got, dict)
                msg = got
            kind = msg.get("type")
            if kind == "control_request":
                self.control(msg)
            elif kind == "user":
                self.interrupted.clear()
                self.run_turn(msg)
            if self.eof and not self.pending:
                return 0


def _sdk_servers(config: str | None) -> list[str]:
    """The names of the SDK MCP servers in a --mcp-config JSON value."""
    if not config:
        return []
    servers = json.loads(config).get("mcpServers", {})
    return [name for name, spec in servers.items() if spec.get("type") == "sdk"]


def _crash_once(system_prompt: object) -> bool:
    """FAKE_CLAUDE_CRASH_ONCE=PATH: the first process whose system prompt holds FAKE_CLAUDE_CRASH_PERSONA
    (any, when unset) creates PATH and crashes at start; every later one starts."""
    path = os.environ.get("FAKE_CLAUDE_CRASH_ONCE")
    persona = os.environ.get("FAKE_CLAUDE_CRASH_PERSONA", "")
    if not path or persona not in str(system_prompt or ""):
        return False
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _persona_reply(system: str | None) -> str | None:
    """The reply FAKE_CLAUDE_PERSONAS gives a process with this system prompt (None: the echo)."""
    replies = json.loads(os.environ.get("FAKE_CLAUDE_PERSONAS") or "{}")
    return next((reply for text, reply in replies.items() if text in (system or "")), None)


def _maybe_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


if __name__ == "__main__":
    sys.exit(Fake(parse_args(sys.argv[1:])).main())
