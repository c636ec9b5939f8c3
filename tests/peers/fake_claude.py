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
    [[say]]            the reply text is exactly the rest of the message

Environment: FAKE_CLAUDE_LOG (append every stdin line to this file),
FAKE_CLAUDE_START (``crash`` exits 2 at start, ``no_init`` never answers initialize),
FAKE_CLAUDE_COST (USD per turn, default 0.001).
Only the standard library: the tests and the benchmark run it as a real process.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

SWITCH = re.compile(r"\s*\[\[(\w+)(?::([^\]]*))?\]\]")


def leading_switches(content: str) -> tuple[dict[str, str | None], str]:
    """The switches at the start of `content`, and the rest of it."""
    switches: dict[str, str | None] = {}
    pos = 0
    while match := SWITCH.match(content, pos):
        switches[match.group(1)] = match.group(2)
        pos = match.end()
    return switches, content[pos:].lstrip()


def out(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


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

    def control(self, msg: dict) -> bool:
        """Answer a control request; True when it is an interrupt."""
        request = msg.get("request", {})
        subtype = request.get("subtype")
        if subtype == "initialize" and os.environ.get("FAKE_CLAUDE_START") == "no_init":
            return False
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
    ) -> None:
        self.total_cost += self.cost
        out(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": is_error,
                "duration_ms": int((time.monotonic() - started) * 1000),
                "duration_api_ms": 1,
                "num_turns": 1,
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
        out(
            {
                "type": "system",
                "subtype": "init",
                "session_id": self.session_id,
                "model": self.opts.get("model"),
                "tools": [],
            }
        )
        if "malformed" in switches:
            sys.stdout.write("this line is not json\n")
            sys.stdout.write('{"type": "assistant", "message": {"content": [\n')
            sys.stdout.flush()
        if "spawn_child" in switches:
            child = subprocess.Popen(["sleep", "600"])
            content = f"{content} child={child.pid}"
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
        if "say" in switches:
            text = rest
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


def _maybe_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


if __name__ == "__main__":
    sys.exit(Fake(parse_args(sys.argv[1:])).main())
